import { z } from "zod";
import type { EngineStore } from "../accounts/store.ts";
import { agentResultSchema } from "../agents/index.ts";
import type { ActionFlow } from "../routing/chaining.ts";
import type { Attestation } from "./report.ts";
import { riskEvaluationSchema, type RiskEvaluation } from "./risk.ts";

/** Persistence of per-action steps (`engine_steps`) and the agents' memo values. */

/** An error body as stored with a step or an execution (`{error, detail, ...extra}`). */
export const errorBodySchema = z.looseObject({ error: z.string(), detail: z.string().optional() });
export type ErrorBody = z.infer<typeof errorBodySchema>;

const flowSchema = z.object({
  asset: z.string(),
  amount: z.string(),
  chain: z.string(),
}) satisfies z.ZodType<ActionFlow>;

/**
 * What a completed action's step stores in `engine_steps.result`: its agent's result plus what the
 * orchestrator adds (the agent's class name, the chained output, the fallback taken).
 */
export const stepResultSchema = z.intersection(
  agentResultSchema,
  z.object({
    agent: z.string(),
    output: flowSchema,
    fallback_from: z.string().nullable().default(null),
    fallback_reason: z.string().optional(),
  }),
);
export type StepResult = z.infer<typeof stepResultSchema>;

/** The finalisation's own step (action index -1) stores the attestation it sent. */
export interface FinalStepResult {
  attestation: Attestation;
}

export interface StepRow {
  execution_id: string;
  action_index: number;
  agent: string;
  state: "running" | "completed" | "failed";
  chain: string | null;
  fallback_from: string | null;
  result: StepResult | null;
  risk: RiskEvaluation | null;
  error: ErrorBody | null;
  started_at: string;
  finished_at: string | null;
}

/** What the input of a started step records (the memo values are added by {@link stepMemo}). */
export interface StepInput {
  asset: string;
  amount: string;
  previous: ActionFlow | null;
  fallback_reason?: string;
}

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

const parse = <T>(v: unknown): T => (typeof v === "string" ? (JSON.parse(v) as T) : (v as T));
const iso = (v: Date | string): string => new Date(v).toISOString();

/** Reads a stored value with its schema; a row that does not parse names itself. */
function read<T>(schema: z.ZodType<T>, value: unknown, what: string): T | null {
  const raw = parse<unknown>(value);
  if (raw === null || raw === undefined) return null;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new Error(`${what} does not parse: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
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
    finished_at: row.finished_at === null ? null : iso(row.finished_at),
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
  return async <T>(key: string, compute: () => Promise<T>): Promise<T> => {
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
