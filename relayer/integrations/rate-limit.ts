import type { EngineStore } from "../accounts/index.ts";

/** `rate_limit.rps`, `.burst` of an integration. */
export interface RateLimit {
  rps: number;
  burst: number;
}

/**
 * The integration's token bucket (`rate_limit.rps`, `.burst`), one row per integration in
 * `integration_rate_buckets`, so every relayer process on the database draws from the same
 * bucket: up to `burst` requests at once, then `rps` per second across all of them. Own code:
 * cockatiel has no rate limiter and the shared state must live where the processes meet.
 *
 * `reserve` takes one token, possibly in the future, and returns how long the caller waits for it
 * (0: send now). The refill and the take are one upsert: PostgreSQL serialises concurrent
 * upserts on the row, so two processes never spend the same token. Every attempt of a call
 * reserves its own token (retries are metered too).
 */
export async function reserveToken(
  store: EngineStore,
  integration: string,
  limit: RateLimit,
  nowMs: number,
): Promise<number> {
  const [row] = await store.query<{ tokens: number }>(
    `INSERT INTO integration_rate_buckets AS b (integration, tokens, updated_ms)
     VALUES ($1, $2::double precision - 1, $3)
     ON CONFLICT (integration) DO UPDATE SET
       tokens = LEAST($2::double precision,
                      b.tokens + GREATEST(0, $3 - b.updated_ms) * $4::double precision / 1000) - 1,
       updated_ms = GREATEST(b.updated_ms, $3)
     RETURNING tokens`,
    [integration, limit.burst, Math.floor(nowMs), limit.rps],
  );
  const tokens = Number(row!.tokens);
  return tokens >= 0 ? 0 : Math.ceil((-tokens * 1000) / limit.rps);
}
