-- Integration health shared by every relayer process on one database (relayer/integrations/):
-- the rate limit token buckets, the state of each integration node (401 handling) and its alerts.

-- One token bucket per integration (`rate_limit.rps`, `.burst`). `tokens` may go negative: each
-- reservation takes a token now or in the future and waits for it, so processes queue in order.
CREATE TABLE integration_rate_buckets (
  integration  text PRIMARY KEY,
  tokens       double precision NOT NULL,
  updated_ms   bigint NOT NULL
);

-- enabled → suspect (a 401 answered a freshly issued credential) → disabled (repeated 401s with
-- fresh credentials); a success clears `suspect`; only an operator re-enables a disabled node
-- (`npm run integrations -- enable <name>`).
CREATE TABLE integration_states (
  integration             text PRIMARY KEY,
  state                   text NOT NULL DEFAULT 'enabled',   -- enabled | suspect | disabled
  unauthorized_count      integer NOT NULL DEFAULT 0,
  credential_fingerprint  text,
  reason                  text,
  suspect_since           timestamptz,
  disabled_at             timestamptz,
  updated_at              timestamptz NOT NULL DEFAULT now()
);

-- Operator alerts raised by the integrations (credential suspect, node disabled, response accepted
-- under the rollback schema version, monitor unavailable or off its schema).
CREATE TABLE integration_alerts (
  id            bigserial PRIMARY KEY,
  integration   text NOT NULL,
  kind          text NOT NULL,
  detail        text NOT NULL,
  execution_id  text,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX integration_alerts_by_integration ON integration_alerts (integration, id);
