import type { EngineStore } from "../accounts/index.ts";
import type { Store } from "../store/index.ts";
import type { ScreenResult } from "../agents/index.ts";
import type { SubmissionReceipt } from "../proofs/index.ts";
import type { CostEstimate } from "../routing/index.ts";
import type { Workflow, ExecutionStage, ExecutionState } from "../model/index.ts";
import {
  type ComplianceAlert,
  type SignedReport,
  riskEvaluationSchema,
  type RiskEvaluation,
  errorBodySchema,
  stepResultSchema,
  type ErrorBody,
  type FinalStepResult,
  type StepInput,
  type StepResult,
  type StepRow,
} from "../report/index.ts";
import { z } from "zod";

/**
 * The executions repository: every statement on `workflow_executions` (migration 100) and the
 * engine's tables (`engine_steps`, `engine_leases`, `engine_compliance_alerts`, `engine_reports`,
 * migrations 200-201), used by the intake, the status view, the orchestrator, the finalisation,
 * the worker and the leases. The transaction journal (`engine_txs`, `engine_nonces`) has its own
 * owner, `TxJournal` (transactions.ts), whose nonce allocation lives with its statements.
 * JSON columns are read back through their schemas (steps.ts): callers get typed rows.
 */

/** Queued or running: what counts against the tier's concurrent-workflow limit. */
export const ACTIVE_STATES: readonly ExecutionState[] = ["queued", "running"];
export const TERMINAL_STATES: readonly ExecutionState[] = ["completed", "failed", "cancelled"];

const parse = <T>(v: unknown): T => (typeof v === "string" ? (JSON.parse(v) as T) : (v as T));
const iso = (v: Date | string): string => new Date(v).toISOString();
const isoOrNull = (v: Date | string | null): string | null => (v === null ? null : iso(v));

/** Reads a stored JSON value with its schema; a value that does not parse names itself. */
function read<T>(schema: z.ZodType<T>, value: unknown, what: string): T | null {
  const raw = parse<unknown>(value);
  if (raw === null || raw === undefined) return null;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new Error(`${what} does not parse: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

// ---------------------------------------------------------------- intake (workflow_executions)

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
export async function insertExecution(tx: EngineStore, row: NewExecution): Promise<boolean> {
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
export async function insertExecutions(
  tx: EngineStore,
  rows: readonly NewExecution[],
): Promise<void> {
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
  tx: EngineStore,
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

/** One submission of a batch, as the batch statement stores it. */
export interface SubmissionRow {
  id: string;
  apiKeyId: string;
  workflow: Workflow;
  deploymentId: string | null;
  costEstimate: unknown;
  receipt?: SubmissionReceipt | null;
  /** The key's tier limit of concurrent workflows. */
  limit: number;
}

const submissionStatements = new Map<string, string>();

/** The batch statement around pg-boss's insert (insertSubmissionBatch); built once per insert. */
function submissionStatement(insertJobs: string): string {
  let sql = submissionStatements.get(insertJobs);
  if (sql !== undefined) return sql;
  const jobs = `(SELECT coalesce(json_agg(json_build_object('data', json_build_object('executionId', a.id)) ORDER BY a.ord), '[]'::json) FROM admitted a)`;
  sql = `WITH input AS (
       SELECT * FROM json_to_recordset($1::json) AS x(
         ord int, id text, api_key_id text, name text, workflow jsonb, deployment_id text,
         cost_estimate jsonb, receipt jsonb, lim int)
     ), locked AS (
       -- ON CONFLICT DO UPDATE locks an existing row and returns its latest committed version.
       INSERT INTO workflow_active_counts AS c (api_key_id, active)
       SELECT DISTINCT api_key_id, 0 FROM input ORDER BY 1
       ON CONFLICT (api_key_id) DO UPDATE SET active = c.active
       RETURNING c.api_key_id, c.active
     ), ranked AS (
       SELECT i.*, l.active,
              row_number() OVER (PARTITION BY i.api_key_id ORDER BY i.ord) AS n
         FROM input i JOIN locked l USING (api_key_id)
     ), admitted AS (
       SELECT * FROM ranked WHERE active + n <= lim
     ), inserted AS (
       INSERT INTO workflow_executions
         (id, api_key_id, name, state, workflow, trigger, deployment_id, cost_estimate, receipt)
       SELECT id, api_key_id, name, 'queued', workflow, 'api', deployment_id, cost_estimate, receipt
         FROM admitted
       RETURNING id
     ), jobs AS (
       ${insertJobs.replace("$1", () => jobs)}
     )
     SELECT r.ord, r.active, r.active + r.n <= r.lim AS admitted
       FROM ranked r
      -- Every admitted execution has its row and its job, or the statement fails as a whole.
      WHERE 1 / (CASE WHEN (SELECT count(*) FROM inserted) = (SELECT count(*) FROM admitted)
                       AND (SELECT count(*) FROM jobs) = (SELECT count(*) FROM admitted)
                      THEN 1 ELSE 0 END) = 1
      ORDER BY r.ord`;
  if (submissionStatements.size >= 16) submissionStatements.clear();
  submissionStatements.set(insertJobs, sql);
  return sql;
}

/**
 * Stores a batch of API submissions in ONE statement (the intake's submission batcher,
 * relayer/workflows/submissions.ts): per row, in order, its key's active count when its turn came and whether it was admitted (its execution row and its
 * `workflow.execute` job inserted). `insertJobs` is `Queue.insertStatement(workflow.execute)`.
 */
export async function insertSubmissionBatch(
  store: Store,
  insertJobs: string,
  rows: readonly SubmissionRow[],
): Promise<Array<{ ord: number; active: number; admitted: boolean }>> {
  const input = rows.map((row, ord) => ({
    ord,
    id: row.id,
    api_key_id: row.apiKeyId,
    name: row.workflow.name,
    workflow: row.workflow,
    deployment_id: row.deploymentId,
    cost_estimate: row.costEstimate,
    receipt: row.receipt ?? null,
    lim: row.limit,
  }));
  return store.query(
    submissionStatement(insertJobs),
    [JSON.stringify(input)],
    // Planning this statement costs more than running it on a batch: plan it once per connection.
    { prepare: true },
  );
}

// ------------------------------------------------------------- status view (workflow_executions)

/** An execution as its owner sees it in lists (no workflow, no error). */
export interface ExecutionSummaryRow {
  id: string;
  name: string;
  state: ExecutionState;
  stage: ExecutionStage;
  trigger: "api" | "schedule";
  scheduleId: string | null;
  deployment: { name: string; version: number } | null;
  costEstimate: CostEstimate | null;
  cancelRequested: boolean;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export interface ExecutionDetailRow extends ExecutionSummaryRow {
  workflow: Workflow;
  error: ErrorBody | null;
  /** The signed submission receipt, when the relayer issued one. */
  receipt: SubmissionReceipt | null;
}

interface RawSummary {
  id: string;
  name: string;
  state: ExecutionState;
  stage: ExecutionStage;
  trigger: "api" | "schedule";
  schedule_id: string | null;
  deployment_name: string | null;
  deployment_version: number | null;
  cost_estimate: CostEstimate | string | null;
  cancel_requested_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  finished_at: Date | string | null;
}

const SUMMARY_COLUMNS = `e.id, e.name, e.state, e.stage, e.trigger, e.schedule_id, e.cost_estimate,
  e.cancel_requested_at, e.created_at, e.updated_at, e.finished_at,
  d.name AS deployment_name, d.version AS deployment_version`;

function toSummary(row: RawSummary): ExecutionSummaryRow {
  return {
    id: row.id,
    name: row.name,
    state: row.state,
    stage: row.stage,
    trigger: row.trigger,
    scheduleId: row.schedule_id,
    deployment:
      row.deployment_name === null
        ? null
        : { name: row.deployment_name, version: Number(row.deployment_version) },
    costEstimate: row.cost_estimate === null ? null : parse<CostEstimate>(row.cost_estimate),
    cancelRequested: row.cancel_requested_at !== null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    finishedAt: isoOrNull(row.finished_at),
  };
}

/** One execution of the key, or null (another key's execution is not found). */
export async function findExecution(
  store: EngineStore,
  apiKeyId: string,
  id: string,
): Promise<ExecutionDetailRow | null> {
  const [row] = await store.query<
    RawSummary & { workflow: unknown; error: unknown; receipt: unknown }
  >(
    `SELECT ${SUMMARY_COLUMNS}, e.workflow, e.error, e.receipt
       FROM workflow_executions e LEFT JOIN workflow_deployments d ON d.id = e.deployment_id
      WHERE e.id = $1 AND e.api_key_id = $2`,
    [id, apiKeyId],
  );
  if (!row) return null;
  return {
    ...toSummary(row),
    workflow: parse<Workflow>(row.workflow),
    error: read(errorBodySchema, row.error, `workflow_executions ${id} error`),
    receipt: row.receipt ? parse<SubmissionReceipt>(row.receipt) : null,
  };
}

/** A page of the key's executions, newest first, after the id `after` (ids are time-ordered). */
export async function listExecutionRows(
  store: EngineStore,
  apiKeyId: string,
  options: { state?: ExecutionState; after: string | null; limit: number },
): Promise<ExecutionSummaryRow[]> {
  const rows = await store.query<RawSummary>(
    `SELECT ${SUMMARY_COLUMNS}
       FROM workflow_executions e LEFT JOIN workflow_deployments d ON d.id = e.deployment_id
      WHERE e.api_key_id = $1
        AND ($2::text IS NULL OR e.state = $2)
        AND ($3::text IS NULL OR e.id < $3)
      ORDER BY e.id DESC
      LIMIT $4`,
    [apiKeyId, options.state ?? null, options.after, options.limit],
  );
  return rows.map(toSummary);
}

/**
 * Requests the cancellation of an active execution of the key: a queued one becomes `cancelled`
 * at once, a running one gets `cancel_requested_at` (the engine stops before its next action).
 * Returns the state after the request, or (not active) the state it has, or null (not found).
 */
export async function requestCancel(
  store: EngineStore,
  apiKeyId: string,
  id: string,
): Promise<
  { cancelled: true; state: ExecutionState } | { cancelled: false; state: ExecutionState } | null
> {
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
  if (updated) return { cancelled: true, state: updated.state };
  const [existing] = await store.query<{ state: ExecutionState }>(
    `SELECT state FROM workflow_executions WHERE id = $1 AND api_key_id = $2`,
    [id, apiKeyId],
  );
  return existing ? { cancelled: false, state: existing.state } : null;
}

/**
 * Every active execution of a key, as its revocation leaves them: queued ones `cancelled` at once,
 * running ones `cancel_requested` (the engine stops before their next action). Run in the
 * revocation's transaction, so no job of a revoked key starts after it commits. Returns how many.
 */
export async function cancelExecutionsOfKey(
  store: EngineStore,
  apiKeyId: string,
): Promise<{ cancelled: number; stopping: number }> {
  const rows = await store.query<{ state: ExecutionState }>(
    `UPDATE workflow_executions
        SET state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END,
            finished_at = CASE WHEN state = 'queued' THEN now() ELSE finished_at END,
            cancel_requested_at = COALESCE(cancel_requested_at, now()),
            updated_at = now()
      WHERE api_key_id = $1 AND state = ANY($2::text[])
      RETURNING state`,
    [apiKeyId, ACTIVE_STATES],
  );
  const cancelled = rows.filter((r) => r.state === "cancelled").length;
  return { cancelled, stopping: rows.length - cancelled };
}

// ------------------------------------------------------------------ engine (workflow_executions)

/** What the engine reads of an execution to run or finish it. */
export interface EngineExecutionRow {
  id: string;
  apiKeyId: string;
  name: string;
  state: ExecutionState;
  stage: ExecutionStage;
  workflow: Workflow;
  cancelRequested: boolean;
  /** The recorded error of a failed or cancelled execution. */
  error: ErrorBody | null;
}

export async function loadExecution(
  store: EngineStore,
  id: string,
): Promise<EngineExecutionRow | null> {
  const [row] = await store.query<{
    id: string;
    api_key_id: string;
    name: string;
    state: ExecutionState;
    stage: ExecutionStage;
    workflow: unknown;
    cancel_requested_at: unknown;
    error: unknown;
  }>(
    "SELECT id, api_key_id, name, state, stage, workflow, cancel_requested_at, error FROM workflow_executions WHERE id = $1",
    [id],
  );
  if (!row) return null;
  return {
    id: row.id,
    apiKeyId: row.api_key_id,
    name: row.name,
    state: row.state,
    stage: row.stage,
    workflow: parse<Workflow>(row.workflow),
    cancelRequested: Boolean(row.cancel_requested_at),
    error: read(errorBodySchema, row.error, `workflow_executions ${id} error`),
  };
}

/**
 * queued → running only if it is still queued (or running: a resumed job). Returns false when it
 * is neither (a cancel that landed meanwhile made it `cancelled`: it must not run).
 */
export async function markRunning(store: EngineStore, id: string): Promise<boolean> {
  const rows = await store.query(
    `UPDATE workflow_executions
        SET state = 'running', stage = 'execute', started_at = COALESCE(started_at, now()),
            updated_at = now()
      WHERE id = $1 AND state IN ('queued', 'running')
      RETURNING state`,
    [id],
  );
  return rows.length === 1;
}

export async function executionState(
  store: EngineStore,
  id: string,
): Promise<ExecutionState | null> {
  const [row] = await store.query<{ state: ExecutionState }>(
    "SELECT state FROM workflow_executions WHERE id = $1",
    [id],
  );
  return row?.state ?? null;
}

export async function cancelRequested(store: EngineStore, id: string): Promise<boolean> {
  const [row] = await store.query<{ cancel_requested_at: unknown }>(
    "SELECT cancel_requested_at FROM workflow_executions WHERE id = $1",
    [id],
  );
  return Boolean(row?.cancel_requested_at);
}

/** Sets the state (start and finish times with it), the stage and the error. */
export async function setExecution(
  store: EngineStore,
  id: string,
  fields: { state?: ExecutionState; stage?: ExecutionStage; error?: ErrorBody },
): Promise<void> {
  await store.query(
    `UPDATE workflow_executions
        SET state = COALESCE($2, state), stage = COALESCE($3, stage),
            error = CASE WHEN $4::text IS NULL THEN error ELSE $4::jsonb END,
            started_at = CASE WHEN $2 = 'running' THEN COALESCE(started_at, now()) ELSE started_at END,
            finished_at = CASE WHEN $2 IN ('completed', 'failed', 'cancelled') THEN now() ELSE finished_at END,
            updated_at = now()
      WHERE id = $1`,
    [
      id,
      fields.state ?? null,
      fields.stage ?? null,
      fields.error === undefined ? null : JSON.stringify(fields.error),
    ],
  );
}

/** The execution's signed submission receipt (its salt and workflow commitment bind the proof). */
export async function submissionReceipt(
  store: EngineStore,
  id: string,
): Promise<SubmissionReceipt | null> {
  const [row] = await store.query<{ receipt: unknown }>(
    "SELECT receipt FROM workflow_executions WHERE id = $1",
    [id],
  );
  return row?.receipt ? parse<SubmissionReceipt>(row.receipt) : null;
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

/**
 * Records that a failed or cancelled execution's report waits for a chain that does not answer
 * (its outcome is recorded: the report alone is missing).
 */
export async function awaitReport(store: EngineStore, executionId: string): Promise<void> {
  await store.query(
    "INSERT INTO engine_report_waits (execution_id) VALUES ($1) ON CONFLICT DO NOTHING",
    [executionId],
  );
}

/**
 * Executions whose report waits for a chain, none held by a live worker (the recovery sweep). A
 * wait whose report was stored meanwhile (a concurrent finalisation) is over.
 */
export async function waitingReports(store: EngineStore): Promise<string[]> {
  const rows = await store.query<{ id: string }>(
    `SELECT w.execution_id AS id FROM engine_report_waits w
       LEFT JOIN engine_leases l ON l.execution_id = w.execution_id
      WHERE (l.execution_id IS NULL OR l.expires_at < now())
        AND NOT EXISTS (SELECT 1 FROM engine_reports r WHERE r.execution_id = w.execution_id)
      ORDER BY w.since LIMIT 100`,
  );
  return rows.map((r) => r.id);
}

/** Whether the execution's report waits for a chain (and is still not stored). */
export async function reportWaits(store: EngineStore, executionId: string): Promise<boolean> {
  const rows = await store.query(
    `SELECT 1 FROM engine_report_waits w WHERE w.execution_id = $1
        AND NOT EXISTS (SELECT 1 FROM engine_reports r WHERE r.execution_id = w.execution_id)`,
    [executionId],
  );
  return rows.length > 0;
}

// ------------------------------------------------------------------------------- engine_leases

/** Takes or renews the lease unless another owner holds an unexpired one. */
export async function acquireLease(
  store: EngineStore,
  executionId: string,
  seconds: number,
  owner: string,
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
  owner: string,
): Promise<void> {
  await store.query("DELETE FROM engine_leases WHERE execution_id = $1 AND owner = $2", [
    executionId,
    owner,
  ]);
}

// -------------------------------------------------------------------------------- engine_steps

interface RawStepRow {
  execution_id: string;
  action_index: number | string;
  agent: string;
  state: StepRow["state"];
  chain: string | null;
  fallback_from: string | null;
  result: unknown;
  risk: unknown;
  error: unknown;
  started_at: Date | string;
  finished_at: Date | string | null;
}

function toStep(row: RawStepRow): StepRow {
  const where = `engine_steps ${row.execution_id}#${row.action_index}`;
  return {
    execution_id: row.execution_id,
    action_index: Number(row.action_index),
    agent: row.agent,
    state: row.state,
    chain: row.chain,
    fallback_from: row.fallback_from,
    result: read(stepResultSchema, row.result, `${where} result`),
    risk: read(riskEvaluationSchema, row.risk, `${where} risk`),
    error: read(errorBodySchema, row.error, `${where} error`),
    started_at: iso(row.started_at),
    finished_at: isoOrNull(row.finished_at),
  };
}

/** The steps of an execution's actions by action index (the finalisation's own row excluded). */
export async function loadSteps(
  store: EngineStore,
  executionId: string,
): Promise<Map<number, StepRow>> {
  const rows = await store.query<RawStepRow>(
    `SELECT execution_id, action_index, agent, state, chain, fallback_from, result, risk, error,
            started_at, finished_at
       FROM engine_steps WHERE execution_id = $1 AND action_index >= 0`,
    [executionId],
  );
  return new Map(rows.map((r) => [Number(r.action_index), toStep(r)]));
}

/** Records that an action starts on a chain (kept on resume: its transactions live there). */
export async function startStep(
  store: EngineStore,
  executionId: string,
  index: number,
  agent: string,
  chain: string,
  fallbackFrom: string | null,
  input: StepInput | Record<string, never>,
): Promise<void> {
  await store.query(
    `INSERT INTO engine_steps (execution_id, action_index, agent, state, chain, fallback_from, input)
     VALUES ($1, $2, $3, 'running', $4, $5, $6::jsonb)
     ON CONFLICT (execution_id, action_index)
     DO UPDATE SET chain = EXCLUDED.chain, fallback_from = EXCLUDED.fallback_from, state = 'running', error = NULL`,
    [executionId, index, agent, chain, fallbackFrom, JSON.stringify(input)],
  );
}

export async function finishStep(
  store: EngineStore,
  executionId: string,
  index: number,
  state: "completed" | "failed",
  fields: { result?: StepResult | FinalStepResult; risk?: RiskEvaluation; error?: ErrorBody },
): Promise<void> {
  await store.query(
    `UPDATE engine_steps SET state = $3, result = COALESCE($4::jsonb, result), risk = COALESCE($5::jsonb, risk),
            error = $6::jsonb, finished_at = now()
      WHERE execution_id = $1 AND action_index = $2`,
    [
      executionId,
      index,
      state,
      fields.result === undefined ? null : JSON.stringify(fields.result),
      fields.risk === undefined ? null : JSON.stringify(fields.risk),
      fields.error === undefined ? null : JSON.stringify(fields.error),
    ],
  );
}

/** Memo values live in the step's `input.memo`: written once, read back on resume. */
export function stepMemo(store: EngineStore, executionId: string, index: number) {
  return async <T>(
    key: string,
    compute: () => Promise<T>,
    options: { replace?: boolean } = {},
  ): Promise<T> => {
    if (options.replace) {
      const value = await compute();
      await store.query(
        `UPDATE engine_steps SET input = jsonb_set(input, '{memo}', COALESCE(input -> 'memo', '{}'::jsonb) || jsonb_build_object($3::text, $4::jsonb))
          WHERE execution_id = $1 AND action_index = $2`,
        [executionId, index, key, JSON.stringify(value)],
      );
      return value;
    }
    const [row] = await store.query<{ value: unknown }>(
      "SELECT input -> 'memo' -> $3::text AS value FROM engine_steps WHERE execution_id = $1 AND action_index = $2",
      [executionId, index, key],
    );
    if (row && row.value !== null && row.value !== undefined) return parse<T>(row.value);
    const value = await compute();
    // First writer wins: a concurrent resume that computed another value reads the stored one.
    await store.query(
      `UPDATE engine_steps SET input = jsonb_set(input, '{memo}', COALESCE(input -> 'memo', '{}'::jsonb) || jsonb_build_object($3::text, $4::jsonb))
        WHERE execution_id = $1 AND action_index = $2 AND NOT COALESCE(input -> 'memo' ? $3::text, false)`,
      [executionId, index, key, JSON.stringify(value)],
    );
    const [stored] = await store.query<{ value: unknown }>(
      "SELECT input -> 'memo' -> $3::text AS value FROM engine_steps WHERE execution_id = $1 AND action_index = $2",
      [executionId, index, key],
    );
    return stored && stored.value !== null && stored.value !== undefined
      ? parse<T>(stored.value)
      : value;
  };
}

// -------------------------------------------------------------------- engine_compliance_alerts

export async function recordAlert(
  store: EngineStore,
  executionId: string,
  index: number,
  result: ScreenResult,
  role: string,
): Promise<void> {
  await store.query(
    "INSERT INTO engine_compliance_alerts (execution_id, action_index, address, role, sources) VALUES ($1, $2, $3, $4, $5::jsonb)",
    [executionId, index, result.address, role, JSON.stringify(result.sources)],
  );
}

/** The execution's compliance alerts in the order they were raised. */
export async function complianceAlerts(
  store: EngineStore,
  executionId: string,
): Promise<Array<ComplianceAlert & { created_at: string }>> {
  const rows = await store.query<{
    action_index: number | string;
    address: string;
    role: string;
    sources: unknown;
    created_at: Date | string;
  }>(
    "SELECT action_index, address, role, sources, created_at FROM engine_compliance_alerts WHERE execution_id = $1 ORDER BY id",
    [executionId],
  );
  return rows.map((r) => ({
    action_index: Number(r.action_index),
    address: r.address,
    role: r.role,
    sources: parse<string[]>(r.sources),
    created_at: iso(r.created_at),
  }));
}

// ------------------------------------------------------------------------------ engine_reports

export interface StoredReport {
  cid: string;
  /** CID of the signed report in the artifact store (null for reports signed before it was stored). */
  signed_cid: string | null;
  signer: string;
  signature: string;
  report: SignedReport;
}

export async function findReport(
  store: EngineStore,
  executionId: string,
): Promise<StoredReport | null> {
  const [row] = await store.query<{
    cid: string;
    signed_cid: string | null;
    report: unknown;
    signer: string;
    signature: string;
  }>(
    "SELECT cid, signed_cid, report, signer, signature FROM engine_reports WHERE execution_id = $1",
    [executionId],
  );
  return row
    ? {
        cid: row.cid,
        signed_cid: row.signed_cid,
        signer: row.signer,
        signature: row.signature,
        report: parse<SignedReport>(row.report),
      }
    : null;
}

/**
 * Stores the signed report once (a concurrent finalisation's identical report is kept), with the
 * CID of its signed copy in the artifact store.
 */
export async function insertReport(
  store: EngineStore,
  executionId: string,
  report: SignedReport,
  signedCid: string,
): Promise<void> {
  // The report ends a wait for its chain, if it had one (one statement: both or neither).
  await store.query(
    `WITH waited AS (DELETE FROM engine_report_waits WHERE execution_id = $1)
     INSERT INTO engine_reports (execution_id, cid, report, signer, signature, signed_cid)
     VALUES ($1, $2, $3::jsonb, $4, $5, $6)
     ON CONFLICT (execution_id) DO NOTHING`,
    [
      executionId,
      report.artifact_id,
      JSON.stringify(report),
      report.signer,
      report.signature,
      signedCid,
    ],
  );
}
