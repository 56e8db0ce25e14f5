-- External REST integrations (relayer/integrations/): key material, interactions and their anchors.

-- Credentials and request-signing keys, only as AES-256-GCM blobs under the master key, bound to
-- `id` as associated data (`credential:<credential_id>`, `signing:<integration>`).
CREATE TABLE integration_secrets (
  id          text PRIMARY KEY,
  blob        text NOT NULL,
  public_key  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- A Merkle batch of interactions anchored with ProofRegistry.anchorBatch. Built (root and leaf
-- proofs stored with its interactions) in one database transaction, then sent through the engine's
-- transaction journal (slot `ib_<id>`): a restart resumes the journalled transaction.
CREATE TABLE integration_batches (
  id            bigserial PRIMARY KEY,
  integration   text NOT NULL,
  chain_id      integer NOT NULL,
  registry      text NOT NULL,
  root          text NOT NULL,
  count         integer NOT NULL,
  uri           text NOT NULL,
  state         text NOT NULL DEFAULT 'built',          -- built | anchored
  tx_hash       text,
  block_number  bigint,
  onchain_id    bigint,
  created_at    timestamptz NOT NULL DEFAULT now(),
  anchored_at   timestamptz,
  UNIQUE (chain_id, root)
);

-- Every external call that received a response. endpoint_hash = keccak256(endpoint),
-- response_hash = keccak256(response) (spec "Proof record"); observed_at is the Unix time in
-- seconds the relayer observed the response (the batch leaf's timestamp).
CREATE TABLE integration_interactions (
  id             bigserial PRIMARY KEY,
  integration    text NOT NULL,
  execution_id   text,
  action_index   integer,
  method         text NOT NULL,
  endpoint       text NOT NULL,
  response       text NOT NULL,
  endpoint_hash  text NOT NULL,
  response_hash  text NOT NULL,
  http_status    integer NOT NULL,
  observed_at    bigint NOT NULL,
  mode           text NOT NULL,                          -- immediate | batch
  chain_id       integer NOT NULL,
  registry       text NOT NULL,
  anchor_state   text NOT NULL DEFAULT 'pending',        -- pending | anchored
  request_id     text,
  signature      text,
  tx_hash        text,
  block_number   bigint,
  batch_id       bigint REFERENCES integration_batches (id),
  leaf_index     integer,
  leaf_proof     jsonb,
  created_at     timestamptz NOT NULL DEFAULT now(),
  anchored_at    timestamptz
);
CREATE INDEX integration_interactions_execution ON integration_interactions (execution_id, id);
CREATE INDEX integration_interactions_pending ON integration_interactions (integration, anchor_state, id);
