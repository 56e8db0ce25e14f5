import { ApiError } from "../http/errors.ts";
import type { Store } from "../store/index.ts";
import { isId } from "./ids.ts";
import type { Workflow } from "./model.ts";
import type { CostEstimate } from "../routing/index.ts";
import type { SubmissionReceipt } from "../proofs/index.ts";
import type { ExecutionStage, ExecutionState } from "./schemas.ts";
import { loadSteps, type StepRow } from "../execution/steps.ts";

/**
 * Executions as rows of `workflow_executions` (migration 100): insert (inside the submission
 * transaction), read one with its steps and report, list by cursor, cancel. Every read and write
 * is scoped by the API key that owns the execution: another key's execution is not found (404).
 */

/** Queued or running: what counts against the tier's concurrent-workflow limit. */
export const ACTIVE_STATES: readonly ExecutionState[] = ["queued", "running"];
export const TERMINAL_STATES: readonly ExecutionState[] = ["completed", "failed", "cancelled"];

export interface NewExecution {
  id: string;
  apiKeyId: string;
  workflow: Workflow;
  trigger: "api" | "schedule";
  scheduleId?: string | null;
  scheduleJobId?: string | null;
  deploymentId?: string | null;
  costEstimate: unknown;
  /** The signed submission receipt (null without an ExecutionAttestor to bind it to). */
  receipt?: SubmissionReceipt | null;
  /** A firing refused before it ran (e.g. over the concurrency limit) is recorded as failed. */
  failed?: { error: string; detail: string };
}

/**
 * Inserts the execution; returns false when a row for the same schedule firing already exists
 * (a retried `workflow.schedule` job), so a firing creates at most one execution.
 */
export async function insertExecution(tx: Store, row: NewExecution): Promise<boolean> {
  const inserted = await tx.query(
    `INSERT INTO workflow_executions
       (id, api_key_id, name, state, workflow, trigger, schedule_id, schedule_job_id, deployment_id,
        cost_estimate, error, finished_at, receipt)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10::jsonb, $11::jsonb,
             CASE WHEN $4 = 'failed' THEN now() END, $12::jsonb)
     ON CONFLICT (schedule_job_id) DO NOTHING
     RETURNING id`,
    [
      row.id,
      row.apiKeyId,
      row.workflow.name,
      row.failed ? "failed" : "queued",
      JSON.stringify(row.workflow),
      row.trigger,
      row.scheduleId ?? null,
      row.scheduleJobId ?? null,
      row.deploymentId ?? null,
      row.costEstimate === null ? null : JSON.stringify(row.costEstimate),
      row.failed ? JSON.stringify(row.failed) : null,
      row.receipt ? JSON.stringify(row.receipt) : null,
    ],
  );
  return inserted.length === 1;
}

/**
 * Inserts several API-submitted executions in one statement (the group-committed submission path:
 * no schedule firings, so no conflicts to skip).
 */
export async function insertExecutions(tx: Store, rows: readonly NewExecution[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = 9;
  const params: unknown[] = [];
  const values = rows.map((row, i) => {
    params.push(
      row.id,
      row.apiKeyId,
      row.workflow.name,
      JSON.stringify(row.workflow),
      row.trigger,
      row.scheduleId ?? null,
      row.deploymentId ?? null,
      row.costEstimate === null ? null : JSON.stringify(row.costEstimate),
      row.receipt ? JSON.stringify(row.receipt) : null,
    );
    const n = i * columns;
    return `($${n + 1}, $${n + 2}, $${n + 3}, 'queued', $${n + 4}::jsonb, $${n + 5}, $${n + 6}, $${n + 7}, $${n + 8}::jsonb, $${n + 9}::jsonb)`;
  });
  await tx.query(
    `INSERT INTO workflow_executions
       (id, api_key_id, name, state, workflow, trigger, schedule_id, deployment_id, cost_estimate,
        receipt)
     VALUES ${values.join(", ")}`,
    params,
  );
}

/**
 * Inside a submission transaction: locks the keys' rows of `workflow_active_counts` (sorted, so
 * processes cannot deadlock) and returns each key's active (queued or running) executions, as
 * committed by whoever held the lock before. The lock serialises the submissions of one key across
 * processes until this transaction ends, so "read the count, then insert" cannot race; the count
 * is kept by triggers (migration 101), one row read instead of counting the key's executions.
 */
export async function lockActiveCounts(
  tx: Store,
  apiKeyIds: readonly string[],
): Promise<Map<string, number>> {
  // ON CONFLICT DO UPDATE locks an existing row and returns its latest committed version.
  const rows = await tx.query<{ api_key_id: string; active: number }>(
    `INSERT INTO workflow_active_counts AS c (api_key_id, active)
       SELECT k, 0 FROM unnest($1::text[]) AS k ORDER BY k
     ON CONFLICT (api_key_id) DO UPDATE SET active = c.active
     RETURNING api_key_id, active`,
    [[...new Set(apiKeyIds)].sort()],
  );
  return new Map(rows.map((r) => [r.api_key_id, Number(r.active)]));
}

interface ExecutionRow {
  id: string;
  name: string;
  state: ExecutionState;
  stage: ExecutionStage;
  workflow: Workflow | string;
  trigger: "api" | "schedule";
  schedule_id: string | null;
  deployment_name: string | null;
  deployment_version: number | null;
  cost_estimate: CostEstimate | string | null;
  receipt?: SubmissionReceipt | string | null;
  cancel_requested_at: Date | string | null;
  error: { error: string; detail: string } | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  finished_at: Date | string | null;
}

const iso = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString();
const json = <T>(value: T | string): T =>
  typeof value === "string" ? (JSON.parse(value) as T) : value;

const SUMMARY_COLUMNS = `e.id, e.name, e.state, e.stage, e.trigger, e.schedule_id, e.cost_estimate,
  e.cancel_requested_at, e.created_at, e.updated_at, e.finished_at,
  d.name AS deployment_name, d.version AS deployment_version`;

function summary(row: ExecutionRow) {
  return {
    execution_id: row.id,
    name: row.name,
    state: row.state,
    stage: row.stage,
    cancel_requested: row.cancel_requested_at !== null,
    trigger: row.trigger,
    schedule_id: row.schedule_id,
    deployment:
      row.deployment_name === null
        ? null
        : { name: row.deployment_name, version: Number(row.deployment_version) },
    cost_estimate: row.cost_estimate === null ? null : json(row.cost_estimate),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    finished_at: iso(row.finished_at),
  };
}

export type ExecutionSummary = ReturnType<typeof summary>;

function notFound(id: string): ApiError {
  return new ApiError(404, "EXECUTION_NOT_FOUND", `no execution ${id} for this API key`);
}

/** Whether the engine's tables exist yet (they come with its migrations). */
async function hasTable(store: Store, name: string): Promise<boolean> {
  const [row] = await store.query<{ t: string | null }>(`SELECT to_regclass($1)::text AS t`, [
    name,
  ]);
  return Boolean(row?.t);
}

/**
 * One execution with its steps (one per action: the engine's `engine_steps` row when the action
 * started, else `pending`), the transaction hashes per step (`engine_txs`), compliance alerts,
 * the error and the final report (`engine_reports`) when done.
 */
export async function getExecution(store: Store, apiKeyId: string, id: string) {
  if (!isId("wf", id)) throw notFound(id);
  const [row] = await store.query<ExecutionRow>(
    `SELECT ${SUMMARY_COLUMNS}, e.workflow, e.error, e.receipt
       FROM workflow_executions e LEFT JOIN workflow_deployments d ON d.id = e.deployment_id
      WHERE e.id = $1 AND e.api_key_id = $2`,
    [id, apiKeyId],
  );
  if (!row) throw notFound(id);
  const workflow = json(row.workflow);

  let steps: ReadonlyMap<number, StepRow> = new Map();
  const hashes = new Map<number, string[]>();
  let alerts: unknown[] = [];
  let report: {
    cid: string;
    signer: string;
    signature: string;
    report: Record<string, unknown>;
  } | null = null;
  if (await hasTable(store, "engine_steps")) steps = await loadSteps(store, id);
  if (await hasTable(store, "engine_txs")) {
    for (const t of await store.query<{ action_index: number; hash: string }>(
      `SELECT action_index, hash FROM engine_txs
        WHERE execution_id = $1 AND state <> 'released' ORDER BY id`,
      [id],
    )) {
      const list = hashes.get(Number(t.action_index)) ?? [];
      list.push(t.hash);
      hashes.set(Number(t.action_index), list);
    }
  }
  if (await hasTable(store, "engine_compliance_alerts")) {
    alerts = await store.query(
      `SELECT action_index, address, role, sources, created_at
         FROM engine_compliance_alerts WHERE execution_id = $1 ORDER BY id`,
      [id],
    );
  }
  if (await hasTable(store, "engine_reports")) {
    const [r] = await store.query<{
      cid: string;
      report: Record<string, unknown> | string;
      signer: string;
      signature: string;
    }>(`SELECT cid, report, signer, signature FROM engine_reports WHERE execution_id = $1`, [id]);
    if (r)
      report = { cid: r.cid, signer: r.signer, signature: r.signature, report: json(r.report) };
  }

  return {
    ...summary(row),
    workflow,
    receipt: row.receipt ? json(row.receipt) : null,
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
    error: row.error === null ? null : json(row.error),
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
  const rows = await store.query<ExecutionRow>(
    `SELECT ${SUMMARY_COLUMNS}
       FROM workflow_executions e LEFT JOIN workflow_deployments d ON d.id = e.deployment_id
      WHERE e.api_key_id = $1
        AND ($2::text IS NULL OR e.state = $2)
        AND ($3::text IS NULL OR e.id < $3)
      ORDER BY e.id DESC
      LIMIT $4`,
    [apiKeyId, options.state ?? null, after, limit + 1],
  );
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
  const [updated] = await store.query<{ state: ExecutionState }>(
    `UPDATE workflow_executions
        SET state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END,
            finished_at = CASE WHEN state = 'queued' THEN now() ELSE finished_at END,
            cancel_requested_at = COALESCE(cancel_requested_at, now()),
            updated_at = now()
      WHERE id = $1 AND api_key_id = $2 AND state = ANY($3::text[])
      RETURNING state`,
    [id, apiKeyId, ACTIVE_STATES],
  );
  if (updated) return { execution_id: id, state: updated.state, cancel_requested: true };
  const [existing] = await store.query<{ state: ExecutionState }>(
    `SELECT state FROM workflow_executions WHERE id = $1 AND api_key_id = $2`,
    [id, apiKeyId],
  );
  if (!existing) throw notFound(id);
  throw new ApiError(
    409,
    "EXECUTION_FINISHED",
    `execution ${id} is already ${existing.state}; only queued or running executions can be cancelled`,
    { state: existing.state },
  );
}
