import type { Logger } from "pino";
import { JOB_NAMES, type JobPayloads } from "../queue/index.ts";
import type { Store } from "../store/index.ts";
import { runExecution, type EngineDeps, type ExecutionState } from "./orchestrator.ts";
import {
  loadExecution,
  orphanedExecutions,
  setExecution,
  waitingReports,
} from "../executions/index.ts";
import { finalizeExecution } from "./finalize.ts";
import { DEFAULT_LEASE_SECONDS, withLease } from "./lease.ts";

/** The queue calls the worker makes (the platform's `Queue`, relayer/queue/index.ts). */
export interface EngineQueue {
  work<T extends object>(
    name: string,
    handler: (
      data: T,
      job: { id: string; retryCount: number; retryLimit: number },
    ) => Promise<unknown>,
    options?: Record<string, unknown>,
  ): Promise<string>;
  /** Tells an idle worker of this process for queue `name` to fetch now. */
  wake(name: string): void;
}

/**
 * Notified at the commit of every execution inserted `queued`, with its job (migration
 * 203_engine_job_wakeup.sql): by every process on PostgreSQL, by this one on PGlite.
 */
export const EXECUTE_JOB_CHANNEL = "engine_jobs";

/**
 * The idle poll of the engine's queue, seconds: the safety net under the notifications and the
 * queue's wake-ups at retries' due times, for what they miss (a notification lost with its
 * connection, a retry whose process stopped).
 */
export const ENGINE_SLOW_POLL_SECONDS = 10;

export interface WorkerOptions {
  /** Executions run at once in this process (pg-boss localConcurrency). */
  concurrency?: number;
  /** Idle poll interval, seconds (default ENGINE_SLOW_POLL_SECONDS). */
  pollingIntervalSeconds?: number;
  /** Execution lease: how long a dead worker blocks its executions before another resumes them. */
  leaseSeconds?: number;
}

export interface EngineWorker {
  /**
   * Resumes the executions dead workers left running, and delivers the reports that waited for
   * a chain (also runs periodically).
   */
  recover(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Works `workflow.execute` jobs under an execution lease. A final failure (agent error, risk) ends
 * the execution inside `runExecution`; a transient one (RPC outage without fallback, database)
 * throws so pg-boss retries and the retry resumes; on the last attempt the execution is marked
 * failed with a partial report. Executions a killed worker left behind are resumed by the
 * recovery sweep once their lease expired. A job is fetched when its notification arrives on
 * EXECUTE_JOB_CHANNEL (`notifications`), else at the slow poll.
 */
export async function startEngineWorker(
  queue: EngineQueue,
  deps: EngineDeps,
  notifications: Pick<Store, "listen">,
  options: WorkerOptions = {},
): Promise<EngineWorker> {
  const leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  const run = async (executionId: string): Promise<ExecutionState | null> =>
    withLease(deps.store, executionId, leaseSeconds, () => runExecution(deps, executionId));

  await queue.work<JobPayloads["workflow.execute"]>(
    JOB_NAMES.workflowExecute,
    async (data, job) => {
      try {
        // Null: another live worker holds the execution; it finishes it.
        return { state: await run(data.executionId) };
      } catch (err) {
        const last = job.retryCount >= job.retryLimit;
        deps.logger.error(
          { executionId: data.executionId, err: (err as Error).message, last },
          "execution attempt failed",
        );
        if (last) await failExecution(deps, data.executionId, err, deps.logger);
        throw err;
      }
    },
    {
      localConcurrency: options.concurrency ?? 8,
      pollingIntervalSeconds: options.pollingIntervalSeconds ?? ENGINE_SLOW_POLL_SECONDS,
    },
  );
  const unlisten = await notifications.listen(EXECUTE_JOB_CHANNEL, () =>
    queue.wake(JOB_NAMES.workflowExecute),
  );

  let sweeping = false;
  const recover = async (): Promise<number> => {
    if (sweeping) return 0;
    sweeping = true;
    try {
      const orphans = await orphanedExecutions(deps.store);
      for (const id of orphans) {
        deps.logger.warn(
          { executionId: id },
          "resuming an execution a stopped worker left running",
        );
      }
      // Failed or cancelled, their reports waiting for a chain that did not answer (orchestrator).
      const reports = await waitingReports(deps.store);
      for (const id of [...orphans, ...reports]) {
        void run(id).catch((err: unknown) =>
          deps.logger.error(
            { executionId: id, err: (err as Error).message },
            "resume failed; will retry",
          ),
        );
      }
      return orphans.length + reports.length;
    } finally {
      sweeping = false;
    }
  };
  await recover();
  const timer = setInterval(() => void recover().catch(() => {}), (leaseSeconds * 1000) / 2);
  timer.unref();
  return {
    recover,
    stop: async () => {
      clearInterval(timer);
      await unlisten();
    },
  };
}

async function failExecution(
  deps: EngineDeps,
  id: string,
  err: unknown,
  log: Logger,
): Promise<void> {
  const row = await loadExecution(deps.store, id);
  if (!row) return;
  const error = {
    error: "EXECUTION_FAILED",
    detail: (err as Error).message?.slice(0, 500) ?? String(err),
  };
  await finalizeExecution(
    deps,
    { id, apiKeyId: row.apiKeyId, name: row.name, workflow: row.workflow, state: "failed", error },
    log,
  ).catch((e: unknown) => log.error({ err: (e as Error).message }, "partial report failed"));
  await setExecution(deps.store, id, { state: "failed", stage: "report", error });
}
