import {
  DelegateBackoff,
  handleWhen,
  retry,
  type IRetryBackoffContext,
  type RetryPolicy as CockatielRetry,
} from "cockatiel";
import type { RetryCondition, RetryPolicy } from "../config/index.ts";

/**
 * The retry policy keys (`attempts`, `backoff`, `max_delay`, `conditions`) as a cockatiel retry
 * policy. Delays are deterministic (no jitter) so they can be computed and checked:
 * exponential `initial × 2^(n-1)`, Fibonacci `initial × F(n)` (1, 1, 2, 3, 5, ...), each capped at
 * `max_delay`. `attempts` counts every attempt, the first included.
 */
export function retryDelays(policy: RetryPolicy): number[] {
  const delays: number[] = [];
  let [a, b] = [1, 1];
  for (let n = 1; n < policy.attempts; n++) {
    const factor = policy.backoff === "exponential" ? 2 ** (n - 1) : a;
    if (policy.backoff === "fibonacci") [a, b] = [b, a + b];
    delays.push(Math.min(policy.initialDelayMs * factor, policy.maxDelayMs));
  }
  return delays;
}

/**
 * `Retry-After` (RFC 9110 10.2.3): delay-seconds or an HTTP date, as milliseconds from `nowMs`
 * (a date in the past is 0); null when absent or unreadable.
 */
export function parseRetryAfter(header: string | null | undefined, nowMs: number): number | null {
  const value = header?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  if (!/[A-Za-z]/.test(value) || Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/** A failed attempt: an HTTP status (the response arrived) or a transport failure. */
export class AttemptFailure extends Error {
  readonly status: number | null;
  readonly kind: "status" | "network_error" | "timeout";
  /** The response body, when a response arrived (recorded and anchored like a success). */
  readonly text: string | null;
  /** A 429's `Retry-After`, in milliseconds from when it arrived. */
  readonly retryAfterMs: number | null;
  constructor(
    kind: "status" | "network_error" | "timeout",
    status: number | null,
    message: string,
    response: { text?: string; retryAfterMs?: number | null } = {},
  ) {
    super(message);
    this.name = "AttemptFailure";
    this.kind = kind;
    this.status = status;
    this.text = response.text ?? null;
    this.retryAfterMs = response.retryAfterMs ?? null;
  }
}

export function matches(condition: RetryCondition, failure: AttemptFailure): boolean {
  if (condition.kind !== "status") return failure.kind === condition.kind;
  if (failure.status === null) return false;
  const s = failure.status;
  switch (condition.op) {
    case ">=":
      return s >= condition.value;
    case ">":
      return s > condition.value;
    case "==":
      return s === condition.value;
    case "<=":
      return s <= condition.value;
    case "<":
      return s < condition.value;
  }
}

/**
 * Whether a failed attempt is tried again. A 429 (spec Errors: "retry after the interval given by
 * the Retry-After header") always is, unless its Retry-After asks for more than `max_delay`; other
 * failures only on the policy's conditions. `stop` (a 504 with a fallback to go to) never is.
 */
export function isRetryable(
  policy: RetryPolicy,
  err: unknown,
  stop: (failure: AttemptFailure) => boolean = () => false,
): boolean {
  if (!(err instanceof AttemptFailure) || stop(err)) return false;
  if (err.status === 429) return err.retryAfterMs === null || err.retryAfterMs <= policy.maxDelayMs;
  return policy.conditions.some((c) => matches(c, err));
}

/**
 * The policy as a cockatiel retry: the computed delays, except that a 429's Retry-After replaces
 * the delay before the next attempt (other advice in the spec: the backoff, used when it has none).
 */
export function retryPolicy(
  policy: RetryPolicy,
  stop?: (failure: AttemptFailure) => boolean,
): CockatielRetry {
  const delays = retryDelays(policy);
  return retry(
    handleWhen((err) => isRetryable(policy, err, stop)),
    {
      maxAttempts: policy.attempts - 1,
      backoff: new DelegateBackoff((context: IRetryBackoffContext<unknown>) => {
        const failed = "error" in context.result ? context.result.error : null;
        const asked = failed instanceof AttemptFailure ? failed.retryAfterMs : null;
        return asked ?? delays[context.attempt - 1] ?? policy.maxDelayMs;
      }),
    },
  );
}
