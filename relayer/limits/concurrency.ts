import { ApiError } from "../http/errors.ts";
import type { Store } from "../store/index.ts";
import type { TierLimits } from "./tiers.ts";

/** Distinct from RATE_LIMITED: the client must wait for a workflow to finish, not for time to pass. */
export const CONCURRENCY_LIMIT_CODE = "CONCURRENCY_LIMIT_EXCEEDED";

/**
 * Serialises submissions of one API key inside the caller's transaction (a transaction-scoped
 * advisory lock), so "count active workflows, then insert one" cannot race across processes.
 * Call it first in the submission transaction, then count, then `assertConcurrencyAvailable`.
 */
export async function lockKeyForSubmission(tx: Store, keyId: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
    `veriflow:submit:${keyId}`,
  ]);
}

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
