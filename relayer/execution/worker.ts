import type { Logger } from "pino";
import type { EngineStore } from "../accounts/store.ts";
import { runExecution, setExecution, type EngineDeps } from "./orchestrator.ts";
import { finalizeExecution } from "./finalize.ts";
import type { Workflow } from "../workflows/model.ts";

/** Job sent by the intake for every execution (common.md). */
export const WORKFLOW_EXECUTE_JOB = "workflow.execute";

/** The queue calls the worker makes (the platform's `Queue`, relayer/queue/index.ts). */
export interface EngineQueue {
  work<T extends object>(
    name: string,
    handler: (
      data: T,
      job: { id: string; retryCount?: number; retryLimit?: number },
    ) => Promise<unknown>,
    options?: Record<string, unknown>,
  ): Promise<string>;
}

export interface WorkerOptions {
  /** Executions run at once in this process (pg-boss localConcurrency). */
  concurrency?: number;
  /** Idle poll interval, seconds. */
  pollingIntervalSeconds?: number;
}

/**
 * Works `workflow.execute` jobs. A final failure (agent error, risk) ends the execution inside
 * `runExecution`; a transient one (RPC outage without fallback, database) throws so pg-boss retries
 * and the retry resumes; on the last attempt the execution is marked failed with a partial report.
 */
export async function startEngineWorker(
  queue: EngineQueue,
  deps: EngineDeps,
  options: WorkerOptions = {},
): Promise<string> {
  return queue.work<{ executionId: string }>(
    WORKFLOW_EXECUTE_JOB,
    async (data, job) => {
      try {
        return { state: await runExecution(deps, data.executionId) };
      } catch (err) {
        const last = job.retryLimit !== undefined && (job.retryCount ?? 0) >= job.retryLimit;
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
      pollingIntervalSeconds: options.pollingIntervalSeconds ?? 0.5,
      includeMetadata: true,
    },
  );
}

async function failExecution(
  deps: EngineDeps,
  id: string,
  err: unknown,
  log: Logger,
): Promise<void> {
  const store: EngineStore = deps.store;
  const [row] = await store.query<{
    api_key_id: string;
    name: string;
    workflow: Workflow | string;
  }>("SELECT api_key_id, name, workflow FROM workflow_executions WHERE id = $1", [id]);
  if (!row) return;
  const error = {
    error: "EXECUTION_FAILED",
    detail: (err as Error).message?.slice(0, 500) ?? String(err),
  };
  const workflow =
    typeof row.workflow === "string" ? (JSON.parse(row.workflow) as Workflow) : row.workflow;
  await finalizeExecution(
    deps,
    { id, apiKeyId: row.api_key_id, name: row.name, workflow, state: "failed", error },
    log,
  ).catch((e: unknown) => log.error({ err: (e as Error).message }, "partial report failed"));
  await setExecution(store, id, { state: "failed", stage: "report", error });
}
