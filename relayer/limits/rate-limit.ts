import type { RateDecision } from "../http/index.ts";
import type { Store } from "../store/index.ts";

/**
 * Requests per minute per API key, counted in the database so every relayer process sharing it
 * enforces one limit. Fixed one-minute windows aligned to the epoch minute: the count of a window
 * is bumped only while below the limit (one atomic upsert), so rejected requests do not count and
 * `Retry-After` is exactly the time left in the window.
 */
export const RATE_WINDOW_MS = 60_000;

export async function consumeRateLimit(
  store: Store,
  keyId: string,
  limit: number,
  now = Date.now(),
): Promise<RateDecision> {
  const windowStart = now - (now % RATE_WINDOW_MS);
  const rows = await store.queryAsyncCommit<{ count: number }>(
    `INSERT INTO rate_limit_counters AS c (key_id, window_start, count) VALUES ($1, $2, 1)
     ON CONFLICT (key_id, window_start) DO UPDATE SET count = c.count + 1 WHERE c.count < $3
     RETURNING c.count`,
    [keyId, windowStart, limit],
  );
  const resetAt = windowStart + RATE_WINDOW_MS;
  const retryAfterSeconds = Math.max(1, Math.ceil((resetAt - now) / 1000));
  const count = rows[0]?.count;
  if (count === undefined) {
    return { allowed: false, limit, remaining: 0, resetAt, retryAfterSeconds };
  }
  return {
    allowed: true,
    limit,
    remaining: Math.max(0, limit - count),
    resetAt,
    retryAfterSeconds,
  };
}

/**
 * `consumeRateLimit` for many requests at once, as a statement to embed (a CTE of a larger one):
 * `wanted` names a relation of `(key_id, n, lim)`, n fresh requests of a key whose limit is lim;
 * each key's count in the window starting at the parameter `windowStart` grows by as many of them
 * as fit. Returns `key_id, count, added` for the keys that had room (`added` of their n counted).
 */
export function countRequestsStatement(wanted: string, windowStart: string): string {
  const lim = `(SELECT lim FROM ${wanted} w WHERE w.key_id = EXCLUDED.key_id)`;
  return `INSERT INTO rate_limit_counters AS c (key_id, window_start, count, added)
       SELECT key_id, ${windowStart}::bigint, LEAST(n, lim), LEAST(n, lim) FROM ${wanted}
       ON CONFLICT (key_id, window_start) DO UPDATE
          SET count = LEAST(c.count + EXCLUDED.count, ${lim}),
              added = LEAST(c.count + EXCLUDED.count, ${lim}) - c.count
        WHERE c.count < ${lim}
       RETURNING c.key_id, c.count, c.added`;
}

/** Drops windows older than the previous one. */
export async function purgeRateLimitWindows(store: Store, now = Date.now()): Promise<number> {
  const rows = await store.query(
    "DELETE FROM rate_limit_counters WHERE window_start < $1 RETURNING 1",
    [now - (now % RATE_WINDOW_MS) - RATE_WINDOW_MS],
  );
  return rows.length;
}
