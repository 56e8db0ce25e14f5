-- The relayer's own swaps through each pool (issue 15 item 13, issue 19): the reference price a
-- quote is checked against takes them out, so the relayer's own sequenced swaps neither trip the
-- check nor hide another party's move (relayer/routing/reference.ts). Kept for the reference window.
CREATE TABLE engine_pool_moves (
  chain_id    integer NOT NULL,
  pair        text NOT NULL,
  tx_hash     text NOT NULL,
  block_number bigint NOT NULL,
  -- The block's timestamp (chain time, seconds).
  block_time  bigint NOT NULL,
  -- price0CumulativeLast after the block (UQ112x112 seconds, modulo 2^256).
  cumulative  numeric(80, 0) NOT NULL,
  -- The pool's token0 price after the swap over before it.
  factor      double precision NOT NULL,
  PRIMARY KEY (chain_id, pair, tx_hash)
);
CREATE INDEX engine_pool_moves_time ON engine_pool_moves (chain_id, pair, block_time);
