-- Every signed version of a journalled transaction: a stuck one is replaced at the same nonce with
-- higher fees, and whichever version the chain mines is the transaction (engine_txs.hash ends as
-- that one). Written before the version is broadcast, so a crash never loses a version.
-- engine_txs.state gains `dropped`: its nonce went to another transaction; it can never be mined.
CREATE TABLE engine_tx_versions (
  tx_id       bigint NOT NULL REFERENCES engine_txs (id) ON DELETE CASCADE,
  hash        text NOT NULL,
  raw         text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tx_id, hash)
);
