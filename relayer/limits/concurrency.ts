import { ApiError } from "../http/index.ts";
import type { TierLimits } from "../config/index.ts";

/** Distinct from RATE_LIMITED: the client must wait for a workflow to finish, not for time to pass. */
export const CONCURRENCY_LIMIT_CODE = "CONCURRENCY_LIMIT_EXCEEDED";

/**
 * Throws 429 CONCURRENCY_LIMIT_EXCEEDED when `activeWorkflows` (queued or running, counted by the
 * caller) already reaches the tier's limit.
 */
export function assertConcurrencyAvailable(limits: TierLimits, activeWorkflows: number): void {
  if (activeWorkflows >= limits.concurrentWorkflows) {
    throw new ApiError(
      429,
      CONCURRENCY_LIMIT_CODE,
      `this API key already has ${activeWorkflows} active workflows, the limit of its tier is ` +
        `${limits.concurrentWorkflows}; wait for one to finish or cancel one`,
      { limit: limits.concurrentWorkflows, active: activeWorkflows },
    );
  }
}
