-- Execution engine (issue 6): relayer-managed accounts, nonces, the transaction journal,
-- per-action steps, compliance alerts and final reports.

-- One account per API key: the same address on every chain; the private key is an
-- AES-256-GCM blob under the master key (relayer/auth/secrets.ts), bound to the API key id.
CREATE TABLE engine_accounts (
  api_key_id  text PRIMARY KEY,
  address     text NOT NULL UNIQUE,
  key_enc     text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  funded_at   timestamptz
);

-- Next nonce per (chain, sender). Allocated under a row lock in the same transaction that stores
-- the signed transaction, so a nonce is never handed out twice and never lost.
CREATE TABLE engine_nonces (
  chain_id    integer NOT NULL,
  address     text NOT NULL,
  next_nonce  bigint NOT NULL,
  PRIMARY KEY (chain_id, address)
);

-- Every transaction the engine signs, stored (raw bytes and hash) before it is broadcast.
-- `slot` names the transaction's place in its action ("approve", "swap", "swap.retry1", ...):
-- a resumed execution finds the slot and waits for that hash instead of signing again.
CREATE TABLE engine_txs (
  id            bigserial PRIMARY KEY,
  execution_id  text NOT NULL,
  action_index  integer NOT NULL,
  slot          text NOT NULL,
  kind          text NOT NULL,
  chain_id      integer NOT NULL,
  sender        text NOT NULL,
  nonce         bigint NOT NULL,
  hash          text NOT NULL,
  raw           text,
  gas_limit     bigint NOT NULL,
  state         text NOT NULL,             -- signed | sent | confirmed | reverted | released (never broadcast; nonce filled by a no-op at filled_at)
  filled_at     timestamptz,
  gas_used      bigint,
  effective_gas_price numeric,
  block_number  bigint,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (execution_id, action_index, slot)
);
CREATE INDEX engine_txs_pending ON engine_txs (state) WHERE state IN ('signed', 'sent');
CREATE UNIQUE INDEX engine_txs_sender_nonce ON engine_txs (chain_id, sender, nonce);

-- One row per action of an execution: the chain chosen (kept on resume), the agent's result.
CREATE TABLE engine_steps (
  execution_id  text NOT NULL,
  action_index  integer NOT NULL,
  agent         text NOT NULL,
  state         text NOT NULL,             -- running | completed | failed
  chain         text,
  fallback_from text,
  input         jsonb NOT NULL DEFAULT '{}'::jsonb,
  result        jsonb,
  risk          jsonb,
  error         jsonb,
  started_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz,
  PRIMARY KEY (execution_id, action_index)
);

-- Compliance alerts: a recipient or counterparty found on a sanctions source; nothing was sent.
CREATE TABLE engine_compliance_alerts (
  id            bigserial PRIMARY KEY,
  execution_id  text NOT NULL,
  action_index  integer NOT NULL,
  address       text NOT NULL,
  role          text NOT NULL,
  sources       jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX engine_compliance_alerts_execution ON engine_compliance_alerts (execution_id);

-- The final report of an execution: its CID (CIDv1 over canonical JSON), the report, the
-- relayer's signature over the CID, the proof and its attestation.
CREATE TABLE engine_reports (
  execution_id  text PRIMARY KEY,
  cid           text NOT NULL,
  report        jsonb NOT NULL,
  signer        text NOT NULL,
  signature     text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
