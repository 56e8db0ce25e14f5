import type { Store } from "../store/index.ts";
import { TIMESTAMP_TOLERANCE_MS } from "../auth/hmac.ts";
import { RATE_WINDOW_MS, type RateDecision } from "./rate-limit.ts";

/**
 * The hot path of every signed request in one database round trip: record the verified signature
 * (replay protection, `auth_replay`) and, only if it is fresh, count the request in the key's rate
 * window (`rate_limit_counters`), with the same semantics as `recordSignature` followed by
 * `consumeRateLimit`. A request refused for its rate leaves no replay record, so the client may
 * resend it unchanged after `Retry-After` (while its timestamp is still within the window).
 */
export async function admitSignedRequest(
  store: Store,
  input: { keyId: string; signature: string; timestampMs: number; limit: number; now: number },
): Promise<{ fresh: false } | { fresh: true; rate: RateDecision }> {
  const windowStart = input.now - (input.now % RATE_WINDOW_MS);
  const [row] = await store.queryAsyncCommit<{ fresh: number; count: number | null }>(
    `WITH replay AS (
       INSERT INTO auth_replay (key_id, signature, expires_at)
       VALUES ($1, $2, to_timestamp($3::double precision / 1000))
       ON CONFLICT DO NOTHING
       RETURNING key_id
     ), counted AS (
       INSERT INTO rate_limit_counters AS c (key_id, window_start, count)
       SELECT key_id, $4, 1 FROM replay
       ON CONFLICT (key_id, window_start) DO UPDATE SET count = c.count + 1 WHERE c.count < $5
       RETURNING c.count
     )
     SELECT (SELECT count(*) FROM replay)::int AS fresh, (SELECT count FROM counted) AS count`,
    [
      input.keyId,
      input.signature,
      input.timestampMs + TIMESTAMP_TOLERANCE_MS,
      windowStart,
      input.limit,
    ],
  );
  if (!row || row.fresh === 0) return { fresh: false };
  const resetAt = windowStart + RATE_WINDOW_MS;
  const retryAfterSeconds = Math.max(1, Math.ceil((resetAt - input.now) / 1000));
  if (row.count === null) {
    await store.queryAsyncCommit("DELETE FROM auth_replay WHERE key_id = $1 AND signature = $2", [
      input.keyId,
      input.signature,
    ]);
    return {
      fresh: true,
      rate: { allowed: false, limit: input.limit, remaining: 0, resetAt, retryAfterSeconds },
    };
  }
  return {
    fresh: true,
    rate: {
      allowed: true,
      limit: input.limit,
      remaining: Math.max(0, input.limit - row.count),
      resetAt,
      retryAfterSeconds,
    },
  };
}
