-- Idempotency-Key on POST /v1/analysis (relayer/analysis/idempotency.ts). An analysis spends the
-- provider's tokens and takes seconds, so a key is claimed before anything is sent (a concurrent
-- request with the key is refused, not run twice) and marked with the analysis id in the
-- statement that stores the analysis. A replay reads the stored analysis: no output is kept here.
CREATE TABLE analysis_idempotency (
  api_key_id    text NOT NULL,
  key           text NOT NULL,
  request_hash  text NOT NULL,          -- sha256 of method, path, media type and body bytes
  claim         text NOT NULL,          -- the claiming request's random token
  analysis_id   text,                   -- null while the claiming request runs
  created_at    timestamptz NOT NULL,   -- on the service's clock
  PRIMARY KEY (api_key_id, key)
);
CREATE INDEX analysis_idempotency_analysis ON analysis_idempotency (analysis_id)
  WHERE analysis_id IS NOT NULL;
CREATE INDEX analysis_idempotency_created ON analysis_idempotency (created_at);
