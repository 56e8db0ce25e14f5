-- Workflow intake (relayer/workflows): deployed configurations, schedules, executions and
-- idempotency keys. Executions belong to the API key that created them (api_key_id); every query
-- of the HTTP API is scoped by it. Ids are prefixed, time-ordered ULIDs (wf_, sch_, dep_), so
-- ordering by id is ordering by creation and serves as the pagination cursor.

-- Named, versioned workflow configurations (POST /workflows/deploy).
CREATE TABLE workflow_deployments (
  id            text PRIMARY KEY,                -- dep_...
  api_key_id    text NOT NULL,
  name          text NOT NULL,
  version       integer NOT NULL,
  workflow      jsonb NOT NULL,                  -- the normalised model (relayer/workflows/model.ts)
  source_format text NOT NULL,                   -- json | yaml
  source        text NOT NULL,                   -- the submitted document as received
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (api_key_id, name, version)
);

-- Recurring runs, fired by pg-boss cron (job workflow.schedule, key = schedule id). This table
-- is the source of truth: a firing for a deleted or unknown schedule does nothing.
CREATE TABLE workflow_schedules (
  id                 text PRIMARY KEY,           -- sch_...
  api_key_id         text NOT NULL,
  name               text NOT NULL,
  cron               text NOT NULL,              -- five fields
  timezone           text NOT NULL,              -- IANA
  phrase             text,                       -- YAML trigger.frequency it came from
  workflow           jsonb,                      -- model to run (submitted workflows)
  deployment_name    text,                       -- or: run this deployment...
  deployment_version integer,                    -- ...at this version
  fire_count         integer NOT NULL DEFAULT 0,
  last_fired_at      timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  deleted_at         timestamptz,
  CHECK ((workflow IS NULL) <> (deployment_name IS NULL))
);
CREATE INDEX workflow_schedules_by_key ON workflow_schedules (api_key_id, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX workflow_schedules_by_deployment ON workflow_schedules (api_key_id, deployment_name) WHERE deleted_at IS NULL;

-- One row per run. Intake inserts it (state queued, stage validate) in the same transaction as
-- the workflow.execute job; the engine moves state and stage (and started_at, finished_at,
-- updated_at), writes error when it fails; steps, transactions and the final report live in the
-- engine's tables (engine_steps, engine_txs, engine_reports), keyed by execution id.
-- States: queued, running, completed, failed, cancelled. Stages: validate, route, execute, prove, report.
CREATE TABLE workflow_executions (
  id                  text PRIMARY KEY,          -- wf_...
  api_key_id          text NOT NULL,
  name                text NOT NULL,
  state               text NOT NULL DEFAULT 'queued',
  stage               text NOT NULL DEFAULT 'validate',
  workflow            jsonb NOT NULL,            -- the normalised model
  trigger             text NOT NULL DEFAULT 'api', -- api | schedule
  schedule_id         text REFERENCES workflow_schedules (id),
  schedule_job_id     text UNIQUE,               -- the pg-boss firing: one execution per firing
  deployment_id       text REFERENCES workflow_deployments (id),
  cost_estimate       jsonb,                     -- {total_usd, gas_breakdown}
  cancel_requested_at timestamptz,               -- the engine stops before the next action
  error               jsonb,                     -- {error, detail, ...} when failed
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  started_at          timestamptz,
  finished_at         timestamptz
);
CREATE INDEX workflow_executions_by_key ON workflow_executions (api_key_id, id DESC);
CREATE INDEX workflow_executions_by_key_state ON workflow_executions (api_key_id, state, id DESC);

-- Idempotency-Key: the first response to a (key, request) is replayed for 24 hours; the same
-- key with another request is a 409.
CREATE TABLE workflow_idempotency (
  api_key_id    text NOT NULL,
  key           text NOT NULL,
  request_hash  text NOT NULL,                   -- sha256 of method, path, media type and body bytes
  status        integer NOT NULL,
  response      jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (api_key_id, key)
);
