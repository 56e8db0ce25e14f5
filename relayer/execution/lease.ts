import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { EngineStore } from "../accounts/store.ts";

/**
 * Execution leases: one worker runs an execution at a time. The holder renews the lease every
 * third of its duration; a worker that dies stops renewing and another takes the execution over
 * once the lease expired (see `recoverExecutions`).
 */
export const DEFAULT_LEASE_SECONDS = 30;

export const WORKER_ID = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;

export async function acquireLease(
  store: EngineStore,
  executionId: string,
  seconds: number,
  owner = WORKER_ID,
): Promise<boolean> {
  const rows = await store.query<{ owner: string }>(
    `INSERT INTO engine_leases (execution_id, owner, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))
     ON CONFLICT (execution_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE engine_leases.expires_at < now() OR engine_leases.owner = EXCLUDED.owner
     RETURNING owner`,
    [executionId, owner, seconds],
  );
  return rows.length === 1;
}

export async function releaseLease(
  store: EngineStore,
  executionId: string,
  owner = WORKER_ID,
): Promise<void> {
  await store.query("DELETE FROM engine_leases WHERE execution_id = $1 AND owner = $2", [
    executionId,
    owner,
  ]);
}

/** Runs `fn` under the execution's lease; returns null when another live worker holds it. */
export async function withLease<T>(
  store: EngineStore,
  executionId: string,
  seconds: number,
  fn: () => Promise<T>,
): Promise<T | null> {
  if (!(await acquireLease(store, executionId, seconds))) return null;
  const timer = setInterval(
    () => {
      void acquireLease(store, executionId, seconds).catch(() => {});
    },
    (seconds * 1000) / 3,
  );
  try {
    return await fn();
  } finally {
    clearInterval(timer);
    await releaseLease(store, executionId).catch(() => {});
  }
}

/** Executions a dead worker left running: state running, lease expired or absent. */
export async function orphanedExecutions(store: EngineStore): Promise<string[]> {
  const rows = await store.query<{ id: string }>(
    `SELECT e.id FROM workflow_executions e LEFT JOIN engine_leases l ON l.execution_id = e.id
      WHERE e.state = 'running' AND (l.execution_id IS NULL OR l.expires_at < now())
      ORDER BY e.id LIMIT 100`,
  );
  return rows.map((r) => r.id);
}
