import { ApiError } from "../http/index.ts";
import type { Store } from "../store/index.ts";
import {
  ACTIVE_STATES,
  TERMINAL_STATES,
  complianceAlerts,
  findExecution,
  findReport,
  listExecutionRows,
  loadSteps,
  requestCancel,
  type ExecutionSummaryRow,
} from "../executions/index.ts";
import { TxJournal } from "../transactions/index.ts";
import { isId, type ExecutionState } from "../model/index.ts";

/**
 * The status view of executions: read one with its steps and report, list by cursor, cancel.
 * Every read and write is scoped by the API key that owns the execution: another key's execution
 * is not found (404). The rows come from the executions repository
 * (relayer/executions/store.ts), which owns `workflow_executions` and the engine's
 * tables; the transaction hashes from the journal.
 */

export { ACTIVE_STATES, TERMINAL_STATES };

function summary(row: ExecutionSummaryRow) {
  return {
    execution_id: row.id,
    name: row.name,
    state: row.state,
    stage: row.stage,
    cancel_requested: row.cancelRequested,
    trigger: row.trigger,
    schedule_id: row.scheduleId,
    deployment: row.deployment,
    cost_estimate: row.costEstimate,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    finished_at: row.finishedAt,
  };
}

export type ExecutionSummary = ReturnType<typeof summary>;

function notFound(id: string): ApiError {
  return new ApiError(404, "EXECUTION_NOT_FOUND", `no execution ${id} for this API key`);
}

/**
 * One execution with its steps (one per action: the engine's step when the action started, else
 * `pending`), the broadcast transaction hashes per step, compliance alerts, the error and the
 * final report when done.
 */
export async function getExecution(store: Store, apiKeyId: string, id: string) {
  if (!isId("wf", id)) throw notFound(id);
  const row = await findExecution(store, apiKeyId, id);
  if (!row) throw notFound(id);
  const [steps, txs, alerts, report] = await Promise.all([
    loadSteps(store, id),
    new TxJournal(store).list(id),
    complianceAlerts(store, id),
    findReport(store, id),
  ]);
  const hashes = new Map<number, string[]>();
  for (const t of txs) {
    if (t.state === "released") continue;
    const index = Number(t.action_index);
    hashes.set(index, [...(hashes.get(index) ?? []), t.hash]);
  }
  const { workflow } = row;
  return {
    ...summary(row),
    workflow,
    steps: workflow.actions.map((action) => {
      const step = steps.get(action.index);
      return {
        index: action.index,
        action: action.type,
        agent: step?.agent ?? null,
        state: step?.state ?? "pending",
        chain: step?.chain ?? action.chain ?? null,
        fallback_from: step?.fallback_from ?? null,
        tx_hashes: hashes.get(action.index) ?? [],
        result: step?.result ?? null,
        risk: step?.risk ?? null,
        error: step?.error ?? null,
        started_at: step?.started_at ?? null,
        finished_at: step?.finished_at ?? null,
      };
    }),
    compliance_alerts: alerts,
    error: row.error,
    receipt: row.receipt,
    report,
  };
}

export type ExecutionView = Awaited<ReturnType<typeof getExecution>>;

/** Opaque cursor: the last id of the page, base64url (ids are time-ordered). */
export function encodeCursor(id: string): string {
  return Buffer.from(id, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string, kind: "wf" | "sch"): string {
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  if (!isId(kind, id)) {
    throw new ApiError(400, "VALIDATION_FAILED", "cursor: not a cursor this API returned", {
      issues: [{ path: "query.cursor", message: "not a cursor this API returned" }],
    });
  }
  return id;
}

/** Newest first; `next_cursor` is null on the last page. */
export async function listExecutions(
  store: Store,
  apiKeyId: string,
  options: { state?: ExecutionState; limit?: number; cursor?: string },
) {
  const limit = options.limit ?? 20;
  const after = options.cursor ? decodeCursor(options.cursor, "wf") : null;
  const rows = await listExecutionRows(store, apiKeyId, {
    state: options.state,
    after,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  return {
    items: page.map(summary),
    next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.id) : null,
  };
}

/**
 * Cancels an execution. Queued: it becomes `cancelled` at once (the engine skips a job whose
 * execution is no longer queued). Running: `cancel_requested` is set and the engine stops before
 * the next action, then marks it `cancelled`. Finished: 409 EXECUTION_FINISHED.
 */
export async function cancelExecution(store: Store, apiKeyId: string, id: string) {
  if (!isId("wf", id)) throw notFound(id);
  const outcome = await requestCancel(store, apiKeyId, id);
  if (!outcome) throw notFound(id);
  if (outcome.cancelled) return { execution_id: id, state: outcome.state, cancel_requested: true };
  throw new ApiError(
    409,
    "EXECUTION_FINISHED",
    `execution ${id} is already ${outcome.state}; only queued or running executions can be cancelled`,
    { state: outcome.state },
  );
}
