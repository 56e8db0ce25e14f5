import { handleWhen, IterableBackoff, retry, type RetryPolicy as CockatielRetry } from "cockatiel";
import type { RetryCondition, RetryPolicy } from "./config.ts";

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

/** A failed attempt: an HTTP status (the response arrived) or a transport failure. */
export class AttemptFailure extends Error {
  readonly status: number | null;
  readonly kind: "status" | "network_error" | "timeout";
  constructor(
    kind: "status" | "network_error" | "timeout",
    status: number | null,
    message: string,
  ) {
    super(message);
    this.name = "AttemptFailure";
    this.kind = kind;
    this.status = status;
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

export function isRetryable(policy: RetryPolicy, err: unknown): boolean {
  return err instanceof AttemptFailure && policy.conditions.some((c) => matches(c, err));
}

export function retryPolicy(policy: RetryPolicy): CockatielRetry {
  return retry(
    handleWhen((err) => isRetryable(policy, err)),
    { maxAttempts: policy.attempts - 1, backoff: new IterableBackoff(retryDelays(policy)) },
  );
}
