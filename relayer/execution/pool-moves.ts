import type { EngineStore } from "../accounts/store.ts";
import type { OwnMove, OwnMoves } from "../routing/index.ts";

/**
 * `engine_pool_moves`: the relayer's own swaps per pool (the owner of the table). Rows older than
 * `keepSeconds` of chain time before the newest are dropped as new ones arrive.
 */
export function poolMoves(store: EngineStore, keepSeconds: number): OwnMoves {
  return {
    async record(chainId: number, pair: string, move: OwnMove): Promise<void> {
      await store.query(
        `INSERT INTO engine_pool_moves (chain_id, pair, tx_hash, block_number, block_time, cumulative, factor)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [
          chainId,
          pair.toLowerCase(),
          move.txHash,
          move.block,
          move.timestamp,
          move.cumulative.toString(),
          move.factor,
        ],
      );
      await store.query(
        "DELETE FROM engine_pool_moves WHERE chain_id = $1 AND pair = $2 AND block_time < $3",
        [chainId, pair.toLowerCase(), move.timestamp - keepSeconds],
      );
    },
    async since(chainId: number, pair: string, since: number): Promise<OwnMove[]> {
      const rows = await store.query<{
        tx_hash: string;
        block_number: string | number;
        block_time: string | number;
        cumulative: string;
        factor: number;
      }>(
        `SELECT tx_hash, block_number, block_time, cumulative::text AS cumulative, factor
           FROM engine_pool_moves WHERE chain_id = $1 AND pair = $2 AND block_time > $3
          ORDER BY block_number, tx_hash`,
        [chainId, pair.toLowerCase(), since],
      );
      return rows.map((r) => ({
        txHash: r.tx_hash,
        block: Number(r.block_number),
        timestamp: Number(r.block_time),
        cumulative: BigInt(r.cumulative),
        factor: Number(r.factor),
      }));
    },
  };
}
