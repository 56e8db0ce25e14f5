-- Monitored integration paths (relayer/monitors/): one row per configured monitor, claimed by one
-- process per poll (`next_poll_at`), with the last snapshot its changes are computed against.
CREATE TABLE integration_monitors (
  id              text PRIMARY KEY,
  integration     text NOT NULL,
  path            text NOT NULL,
  interval_ms     integer NOT NULL,
  state           text NOT NULL DEFAULT 'pending',   -- pending | ok | unavailable | schema_mismatch
  last_error      text,
  snapshot        jsonb,
  last_polled_at  timestamptz,
  last_changed_at timestamptz,
  next_poll_at    timestamptz NOT NULL DEFAULT now(),
  polls           bigint NOT NULL DEFAULT 0
);

-- What changed at one poll: items added, removed or changed (field, from, to), the first poll's
-- baseline, and the interaction (anchored like any other) whose response shows the new state.
CREATE TABLE integration_monitor_changes (
  id              bigserial PRIMARY KEY,
  monitor         text NOT NULL REFERENCES integration_monitors (id),
  observed_at     timestamptz NOT NULL,
  interaction_id  bigint NOT NULL REFERENCES integration_interactions (id),
  baseline        boolean NOT NULL DEFAULT false,
  changes         jsonb NOT NULL
);
CREATE INDEX integration_monitor_changes_by_monitor ON integration_monitor_changes (monitor, id);
