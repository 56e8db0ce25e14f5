import type { EngineStore } from "../accounts/store.ts";

/** Persistence of per-action steps (`engine_steps`) and the agents' memo values. */
export interface StepRow {
  execution_id: string;
  action_index: number;
  agent: string;
  state: "running" | "completed" | "failed";
  chain: string | null;
  fallback_from: string | null;
  input: Record<string, unknown>;
  result: Record<string, unknown> | null;
  risk: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
}

const parse = <T>(v: unknown): T => (typeof v === "string" ? (JSON.parse(v) as T) : (v as T));

function normalise(row: StepRow): StepRow {
  return {
    ...row,
    action_index: Number(row.action_index),
    input: parse(row.input) ?? {},
    result: parse(row.result),
    risk: parse(row.risk),
    error: parse(row.error),
  };
}

export async function loadSteps(
  store: EngineStore,
  executionId: string,
): Promise<Map<number, StepRow>> {
  const rows = await store.query<StepRow>("SELECT * FROM engine_steps WHERE execution_id = $1", [
    executionId,
  ]);
  return new Map(rows.map((r) => [Number(r.action_index), normalise(r)]));
}

/** Records that an action starts on a chain (kept on resume: its transactions live there). */
export async function startStep(
  store: EngineStore,
  executionId: string,
  index: number,
  agent: string,
  chain: string,
  fallbackFrom: string | null,
  input: Record<string, unknown>,
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
  fields: { result?: unknown; risk?: unknown; error?: unknown },
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
