-- Text analysis (relayer/analysis/): analyses, their hash-chained audit records, the chain's
-- anchors and retention checkpoint, bias incidents and the provider's shared rate bucket.

-- One analysis. The output and the redacted input are AES-256-GCM blobs under the master key with
-- the analysis id as associated data (`<id>:output`, `<id>:input`): no text in clear.
CREATE TABLE analyses (
  id                 text PRIMARY KEY,
  api_key_id         text NOT NULL,
  workflow_id        text,
  model              text NOT NULL,
  model_version      text NOT NULL,
  route_reason       text NOT NULL,        -- nda | short | long
  fallback_reason    text,                 -- why the fallback model answered, when it did
  redactions         jsonb NOT NULL,       -- [{type, count}]
  compliance_checks  jsonb NOT NULL,
  alerts             jsonb NOT NULL,
  output_blob        text NOT NULL,
  input_blob         text NOT NULL,
  audit_id           text NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX analyses_key ON analyses (api_key_id, created_at);
CREATE INDEX analyses_workflow ON analyses (workflow_id, created_at) WHERE workflow_id IS NOT NULL;

-- The audit records (spec "Audit log record"), append-only and hash-chained:
-- hash = sha256(prev_hash || canonical JSON of {seq, id, api_key_id, analysis_id, record}).
CREATE TABLE analysis_audit (
  seq          bigint PRIMARY KEY,
  id           text NOT NULL UNIQUE,
  api_key_id   text NOT NULL,
  analysis_id  text NOT NULL,
  record       jsonb NOT NULL,
  prev_hash    text NOT NULL,
  hash         text NOT NULL,
  recorded_at  timestamptz NOT NULL
);
CREATE INDEX analysis_audit_key ON analysis_audit (api_key_id, recorded_at, seq);

-- Rows never change; they leave only through retention pruning, which sets
-- `veriflow.audit_prune` for its own transaction.
CREATE FUNCTION analysis_audit_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    RAISE EXCEPTION 'analysis_audit is append-only';
  END IF;
  IF coalesce(current_setting('veriflow.audit_prune', true), '') <> 'on' THEN
    RAISE EXCEPTION 'analysis_audit rows leave only through retention pruning';
  END IF;
  RETURN OLD;
END $$;
CREATE TRIGGER analysis_audit_append_only BEFORE UPDATE OR DELETE ON analysis_audit
  FOR EACH ROW EXECUTE FUNCTION analysis_audit_guard();

-- The chain's head (one row): appends lock it, so processes sharing the database chain in order.
CREATE TABLE analysis_audit_head (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  seq        bigint NOT NULL,
  hash       text NOT NULL
);
INSERT INTO analysis_audit_head (seq, hash) VALUES (0, repeat('0', 64));

-- Where pruning stopped: records up to `seq` were removed; `hash` is record seq's hash, anchored.
CREATE TABLE analysis_audit_checkpoint (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  seq        bigint NOT NULL,
  hash       text NOT NULL
);
INSERT INTO analysis_audit_checkpoint (seq, hash) VALUES (0, repeat('0', 64));

-- Heads anchored with ProofRegistry.anchorBatch(root = head hash, count = seq, uri).
CREATE TABLE analysis_audit_anchors (
  seq           bigint PRIMARY KEY,
  hash          text NOT NULL,
  chain_id      integer NOT NULL,
  registry      text NOT NULL,
  tx_hash       text NOT NULL,
  block_number  bigint NOT NULL,
  batch_id      bigint NOT NULL,
  anchored_at   timestamptz NOT NULL DEFAULT now()
);

-- Inputs refused by the bias pre-check: the SHA-256 of the text, never the text.
CREATE TABLE analysis_incidents (
  id            bigserial PRIMARY KEY,
  api_key_id    text NOT NULL,
  kind          text NOT NULL,
  input_sha256  text NOT NULL,
  score         double precision NOT NULL,
  threshold     double precision NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- The provider's token bucket (rate_limit.rpm, .burst), shared by every process on the database.
CREATE TABLE analysis_rate_bucket (
  name        text PRIMARY KEY,
  tokens      double precision NOT NULL,
  updated_ms  bigint NOT NULL
);
