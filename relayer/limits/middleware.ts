import { createMiddleware } from "hono/factory";
import { ApiError, type AppEnv } from "../http/index.ts";
import type { Store } from "../store/index.ts";
import { consumeRateLimit } from "./rate-limit.ts";
import type { TierLimits, TierName } from "../config/index.ts";

export const RATE_LIMITED_CODE = "RATE_LIMITED";

/**
 * Per-key requests per minute by tier (after authentication); 429 with `Retry-After` beyond.
 * Bearer requests (the compliance paths, authenticated by the API key alone) count in a bucket of
 * their own, `<key id>:bearer`, with the same limit: whoever holds only the key cannot spend the
 * signed requests' budget.
 */
export function rateLimit(options: {
  store: Store;
  limits: Record<TierName, TierLimits>;
  clock?: () => number;
}) {
  const clock = options.clock ?? Date.now;
  return createMiddleware<AppEnv>(async (c, next) => {
    const apiKey = c.get("apiKey");
    const limit = options.limits[apiKey.tier].requestsPerMinute;
    const bucket = apiKey.method === "bearer" ? `${apiKey.id}:bearer` : apiKey.id;
    const decision =
      c.get("rateDecision") ?? (await consumeRateLimit(options.store, bucket, limit, clock()));
    const headers = {
      "X-RateLimit-Limit": String(decision.limit),
      "X-RateLimit-Remaining": String(decision.remaining),
      "X-RateLimit-Reset": String(Math.ceil(decision.resetAt / 1000)),
    };
    if (!decision.allowed) {
      throw new ApiError(
        429,
        RATE_LIMITED_CODE,
        `the ${apiKey.tier} tier allows ${limit} requests per minute; retry after ${decision.retryAfterSeconds} s`,
        { retry_in: decision.retryAfterSeconds },
        { ...headers, "Retry-After": String(decision.retryAfterSeconds) },
      );
    }
    // Set before the route answers: Hono then writes them into the response it builds, where a
    // header set on a finished response copies that response (and sends its body as a stream).
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    await next();
  });
}
