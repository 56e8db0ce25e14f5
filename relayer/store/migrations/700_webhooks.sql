-- Webhooks: endpoints registered per API key, and their deliveries.
--
-- The deliveries are the outbox: database triggers on the engine's tables write them in the same
-- transaction as the state change they report (an execution's state or stage, a step completing
-- or failing, the proof attested, the final report, a compliance alert), so no event is lost or invented when a
-- process stops between the change and the delivery. Nothing is written for a key without
-- endpoints. The dispatcher (relayer/webhooks/dispatch.ts) sends each endpoint's deliveries of an
-- execution in id order, at least once, retrying with backoff; `id` is the webhook-id.

CREATE TABLE webhook_endpoints (
  id          text PRIMARY KEY,                 -- whk_...
  api_key_id  text NOT NULL,
  url         text NOT NULL,
  secret_enc  text NOT NULL,                    -- whsec_..., AES-256-GCM under the master key
  events      text[] NOT NULL DEFAULT '{}',     -- empty: every event type
  description text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  deleted_at  timestamptz
);
CREATE INDEX webhook_endpoints_by_key ON webhook_endpoints (api_key_id) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  id              bigserial PRIMARY KEY,
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints (id),
  execution_id    text NOT NULL,
  type            text NOT NULL,
  payload         jsonb NOT NULL,               -- {type, timestamp, data}: the body, byte-stable
  state           text NOT NULL DEFAULT 'pending', -- pending | delivered | failed
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until     timestamptz,                  -- a dispatcher is sending it until then
  last_status     integer,
  last_error      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  delivered_at    timestamptz
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, execution_id, id)
  WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id DESC);

-- One event → one delivery per endpoint of the execution's key that wants its type.
CREATE FUNCTION webhook_enqueue(execution text, event_type text, data jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (endpoint_id, execution_id, type, payload)
  SELECT e.id, execution, event_type,
         jsonb_build_object(
           'type', event_type,
           'timestamp', to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'data', data)
    FROM webhook_endpoints e
    JOIN workflow_executions x ON x.id = execution AND x.api_key_id = e.api_key_id
   WHERE e.deleted_at IS NULL
     AND (cardinality(e.events) = 0 OR event_type = ANY (e.events));
END $$;

CREATE FUNCTION webhook_on_execution() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.state = OLD.state AND NEW.stage = OLD.stage THEN
    RETURN NULL;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints
                  WHERE api_key_id = NEW.api_key_id AND deleted_at IS NULL) THEN
    RETURN NULL;
  END IF;
  PERFORM webhook_enqueue(NEW.id, 'execution.state_changed', jsonb_build_object(
    'execution_id', NEW.id,
    'name', NEW.name,
    'state', NEW.state,
    'stage', NEW.stage,
    'previous_state', CASE WHEN TG_OP = 'UPDATE' THEN OLD.state END,
    'previous_stage', CASE WHEN TG_OP = 'UPDATE' THEN OLD.stage END,
    'error', NEW.error));
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_execution_changed
  AFTER INSERT OR UPDATE OF state, stage ON workflow_executions
  FOR EACH ROW EXECUTE FUNCTION webhook_on_execution();

CREATE FUNCTION webhook_on_step() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.state NOT IN ('completed', 'failed')
     OR (TG_OP = 'UPDATE' AND NEW.state = OLD.state) THEN
    RETURN NULL;
  END IF;
  -- The finalisation's own row (index -1): its completion is the proof attested on chain; its
  -- failure reaches clients as the execution's failed state.
  IF NEW.action_index < 0 THEN
    IF NEW.state = 'completed' THEN
      PERFORM webhook_enqueue(NEW.execution_id, 'execution.attested', jsonb_build_object(
        'execution_id', NEW.execution_id,
        'attestation', NEW.result -> 'attestation'));
    END IF;
    RETURN NULL;
  END IF;
  PERFORM webhook_enqueue(NEW.execution_id, 'execution.step_' || NEW.state, jsonb_build_object(
    'execution_id', NEW.execution_id,
    'index', NEW.action_index,
    'agent', NEW.agent,
    'chain', NEW.chain,
    'fallback_from', NEW.fallback_from,
    'tx_hashes', COALESCE((SELECT jsonb_agg(t.hash ORDER BY t.id) FROM engine_txs t
                            WHERE t.execution_id = NEW.execution_id
                              AND t.action_index = NEW.action_index
                              AND t.state = 'confirmed'), '[]'::jsonb),
    'result', NEW.result,
    'error', NEW.error));
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_step_finished
  AFTER INSERT OR UPDATE OF state ON engine_steps
  FOR EACH ROW EXECUTE FUNCTION webhook_on_step();

CREATE FUNCTION webhook_on_report() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_enqueue(NEW.execution_id, 'execution.report', jsonb_build_object(
    'execution_id', NEW.execution_id,
    'cid', NEW.cid));
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_report_stored
  AFTER INSERT ON engine_reports
  FOR EACH ROW EXECUTE FUNCTION webhook_on_report();

CREATE FUNCTION webhook_on_alert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_enqueue(NEW.execution_id, 'execution.compliance_alert', jsonb_build_object(
    'execution_id', NEW.execution_id,
    'index', NEW.action_index,
    'address', NEW.address,
    'role', NEW.role,
    'sources', NEW.sources));
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_compliance_alert
  AFTER INSERT ON engine_compliance_alerts
  FOR EACH ROW EXECUTE FUNCTION webhook_on_alert();
