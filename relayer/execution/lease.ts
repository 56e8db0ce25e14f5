import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { EngineStore } from "../accounts/index.ts";
import { acquireLease, releaseLease } from "../executions/index.ts";

/**
 * Execution leases: one worker runs an execution at a time. The holder renews the lease every
 * third of its duration; a worker that dies stops renewing and another takes the execution over
 * once the lease expired (see `recoverExecutions`).
 */
export const DEFAULT_LEASE_SECONDS = 30;

export const WORKER_ID = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;

/** Runs `fn` under the execution's lease; returns null when another live worker holds it. */
export async function withLease<T>(
  store: EngineStore,
  executionId: string,
  seconds: number,
  fn: () => Promise<T>,
): Promise<T | null> {
  if (!(await acquireLease(store, executionId, seconds, WORKER_ID))) return null;
  const timer = setInterval(
    () => {
      void acquireLease(store, executionId, seconds, WORKER_ID).catch(() => {});
    },
    (seconds * 1000) / 3,
  );
  try {
    return await fn();
  } finally {
    clearInterval(timer);
    await releaseLease(store, executionId, WORKER_ID).catch(() => {});
  }
}
