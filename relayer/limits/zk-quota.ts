import { ApiError } from "../http/index.ts";
import type { Store } from "../store/index.ts";
import type { TierName } from "../config/index.ts";

/**
 * The proving and anchoring quota of `/zk/generate`: each call costs a Groth16 proof and an
 * operator transaction, so each key gets `zkProofsPerDay` (by tier) per UTC day, counted in the
 * database (one limit for every relayer process). The count is bumped only while below the limit,
 * in one atomic upsert, so refused calls do not count. Past it: 429 ZK_QUOTA_EXCEEDED with when
 * the quota resets (`resets_at`, `retry_in`, `Retry-After`).
 */
export const ZK_QUOTA_EXCEEDED = "ZK_QUOTA_EXCEEDED";
export const DAY_MS = 86_400_000;

export interface ZkQuotaDecision {
  /** Calls used today, this one included. */
  used: number;
  limit: number;
  /** Epoch ms at which the quota resets (the next UTC midnight). */
  resetsAt: number;
}

export async function chargeZkProof(
  store: Store,
  apiKey: { id: string; tier: TierName },
  limit: number,
  now: number,
): Promise<ZkQuotaDecision> {
  const dayStart = now - (now % DAY_MS);
  const resetsAt = dayStart + DAY_MS;
  const rows = await store.query<{ count: number }>(
    `INSERT INTO zk_quota_counters AS c (key_id, day_start, count) VALUES ($1, $2, 1)
     ON CONFLICT (key_id, day_start) DO UPDATE SET count = c.count + 1 WHERE c.count < $3
     RETURNING c.count`,
    [apiKey.id, dayStart, limit],
  );
  const used = rows[0]?.count;
  if (used === undefined || used > limit) {
    const retryIn = Math.max(1, Math.ceil((resetsAt - now) / 1000));
    throw new ApiError(
      429,
      ZK_QUOTA_EXCEEDED,
      `the ${apiKey.tier} tier allows ${limit} /zk/generate proofs per UTC day; the quota resets at ${new Date(resetsAt).toISOString()}`,
      { limit, used: limit, resets_at: new Date(resetsAt).toISOString(), retry_in: retryIn },
      { "Retry-After": String(retryIn) },
    );
  }
  return { used, limit, resetsAt };
}

/** Drops the counters of days before yesterday. */
export async function purgeZkQuotaDays(store: Store, now: number): Promise<number> {
  const rows = await store.query("DELETE FROM zk_quota_counters WHERE day_start < $1 RETURNING 1", [
    now - (now % DAY_MS) - DAY_MS,
  ]);
  return rows.length;
}
