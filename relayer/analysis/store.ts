import type { EngineStore } from "../accounts/index.ts";
import type { Store } from "../store/index.ts";
import {
  appendAudits,
  auditParams,
  chainAfter,
  insertAuditsStatement,
  moveHeadStatement,
  pruneAuditRecords,
  type AuditEntry,
  type AuditHead,
  type AuditRecord,
} from "./audit.ts";
import { MAX_RETRY_AFTER_SECONDS } from "./provider.ts";

/**
 * The analyses repository: every statement that writes `analyses`, `analysis_incidents` and
 * `analysis_rate_bucket` (the audit chain's tables are audit.ts's; storing analyses appends their
 * records through it).
 */
export interface AnalysisRow {
  id: string;
  api_key_id: string;
  workflow_id: string | null;
  model: string;
  model_version: string;
  route_reason: string;
  fallback_reason: string | null;
  redactions: Array<{ type: string; count: number }>;
  compliance_checks: {
    clm_violations: number;
    uben_compliance: "passed" | "failed";
    pii_leakage: boolean;
  };
  alerts: Array<{ type: string; detail: string }>;
  output_blob: string;
  input_blob: string;
  audit_id: string;
  created_at: string;
}

const json = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);

function toRow(r: Record<string, unknown>): AnalysisRow {
  return {
    ...(r as unknown as AnalysisRow),
    redactions: json(r.redactions) as AnalysisRow["redactions"],
    compliance_checks: json(r.compliance_checks) as AnalysisRow["compliance_checks"],
    alerts: json(r.alerts) as AnalysisRow["alerts"],
    created_at: new Date(r.created_at as string).toISOString(),
  };
}

const ANALYSIS_TYPES = [
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "jsonb",
  "jsonb",
  "jsonb",
  "text",
  "text",
  "text",
  "timestamptz",
];

/** Columns and rows of an `INSERT INTO analyses`, from `analysisParams` at `$first`… */
function analysisRows(first: number): string {
  return `(id, api_key_id, workflow_id, model, model_version, route_reason, fallback_reason,
       redactions, compliance_checks, alerts, output_blob, input_blob, audit_id, created_at)
     SELECT * FROM unnest(${ANALYSIS_TYPES.map((t, i) => `$${first + i}::${t}[]`).join(", ")})`;
}

function analysisParams(rows: readonly AnalysisRow[]): unknown[] {
  return [
    rows.map((r) => r.id),
    rows.map((r) => r.api_key_id),
    rows.map((r) => r.workflow_id),
    rows.map((r) => r.model),
    rows.map((r) => r.model_version),
    rows.map((r) => r.route_reason),
    rows.map((r) => r.fallback_reason),
    rows.map((r) => JSON.stringify(r.redactions)),
    rows.map((r) => JSON.stringify(r.compliance_checks)),
    rows.map((r) => JSON.stringify(r.alerts)),
    rows.map((r) => r.output_blob),
    rows.map((r) => r.input_blob),
    rows.map((r) => r.audit_id),
    rows.map((r) => r.created_at),
  ];
}

/** Inserts analyses in one statement (in the caller's transaction, with their audit records). */
export async function insertAnalyses(tx: Store, rows: readonly AnalysisRow[]): Promise<void> {
  await tx.query(`INSERT INTO analyses ${analysisRows(1)}`, analysisParams(rows), {
    prepare: true,
  });
}

/** An analysis to store: its row without its audit record's id, and its audit record. */
export interface FinishedAnalysis {
  row: Omit<AnalysisRow, "audit_id">;
  record: AuditRecord;
}

/** The audit chain's writes are audit.ts's statements; this one composes them with its own. */
const STORE_AFTER_HEAD = `WITH head AS (
       ${moveHeadStatement(1)}
     ), audit AS (
       ${insertAuditsStatement(5)} WHERE EXISTS (SELECT 1 FROM head)
     ), analysis AS (
       INSERT INTO analyses ${analysisRows(14)} WHERE EXISTS (SELECT 1 FROM head)
     )
     SELECT count(*)::int AS moved FROM head`;

/**
 * Stores analyses that finished together with their audit records, appended to the chain in
 * order; returns the rows (with their audit ids) and the chain's new head. With the head this
 * process last wrote (`head`), in ONE statement that moves the head only if it still is that one
 * and inserts only then: when no other process wrote in between (always on PGlite, which has one
 * process), one statement and one commit. Otherwise, or without a head, in a transaction that
 * locks the head first.
 */
export async function storeAnalyses(
  store: Store,
  head: AuditHead | null,
  analyses: readonly FinishedAnalysis[],
): Promise<{ rows: AnalysisRow[]; head: AuditHead }> {
  const inputs = analyses.map((a) => ({
    apiKeyId: a.row.api_key_id,
    analysisId: a.row.id,
    record: a.record,
  }));
  const withIds = (entries: readonly AuditEntry[]) =>
    analyses.map((a, i): AnalysisRow => ({ ...a.row, audit_id: entries[i]!.id }));
  const headOf = (entries: readonly AuditEntry[]) => ({
    seq: entries.at(-1)!.seq,
    hash: entries.at(-1)!.hash,
  });
  if (head) {
    const entries = chainAfter(head, inputs);
    const rows = withIds(entries);
    const next = headOf(entries);
    const [result] = await store.query<{ moved: number }>(
      STORE_AFTER_HEAD,
      [next.seq, next.hash, head.seq, head.hash, ...auditParams(entries), ...analysisParams(rows)],
      { prepare: true },
    );
    if (result!.moved === 1) return { rows, head: next };
  }
  return store.transaction(async (tx) => {
    const entries = await appendAudits(tx, inputs);
    const rows = withIds(entries);
    await insertAnalyses(tx, rows);
    return { rows, head: headOf(entries) };
  });
}

/**
 * Retention (audit.ts `pruneAuditRecords`): the audit records older than `cutoff` up to the newest
 * anchored head among them, and the analyses they audit with them (an analysis is kept as long as
 * its audit), and the bias incidents older than `cutoff` (no chain holds them). Returns how many
 * records were removed.
 */
export async function pruneAnalyses(store: EngineStore, cutoff: Date): Promise<number> {
  return store.transaction(async (tx) => {
    const removed = await pruneAuditRecords(tx, cutoff);
    await tx.query("DELETE FROM analyses WHERE audit_id = ANY($1::text[])", [removed]);
    await tx.query("DELETE FROM analysis_incidents WHERE created_at < $1", [cutoff.toISOString()]);
    return removed.length;
  });
}

export async function findAnalysis(
  store: EngineStore,
  id: string,
  apiKeyId: string,
): Promise<AnalysisRow | null> {
  const [row] = await store.query("SELECT * FROM analyses WHERE id = $1 AND api_key_id = $2", [
    id,
    apiKeyId,
  ]);
  return row ? toRow(row) : null;
}

/** The analyses that reference an execution, oldest first (for its final report). */
export async function analysesOfWorkflow(
  store: EngineStore,
  workflowId: string,
): Promise<
  Array<Pick<AnalysisRow, "id" | "audit_id" | "model" | "created_at" | "compliance_checks">>
> {
  const rows = await store.query(
    `SELECT id, audit_id, model, created_at, compliance_checks FROM analyses
     WHERE workflow_id = $1 ORDER BY created_at, id`,
    [workflowId],
  );
  return rows.map((r) => ({
    id: String(r.id),
    audit_id: String(r.audit_id),
    model: String(r.model),
    created_at: new Date(r.created_at as string).toISOString(),
    compliance_checks: json(r.compliance_checks) as AnalysisRow["compliance_checks"],
  }));
}

export async function recordIncident(
  store: EngineStore,
  incident: {
    apiKeyId: string;
    kind: "bias_rejected";
    inputSha256: string;
    score: number;
    threshold: number;
    /** ISO 8601, on the service's clock (the one retention prunes by). */
    at: string;
  },
): Promise<void> {
  await store.query(
    `INSERT INTO analysis_incidents (api_key_id, kind, input_sha256, score, threshold, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      incident.apiKeyId,
      incident.kind,
      incident.inputSha256,
      incident.score,
      incident.threshold,
      incident.at,
    ],
  );
}

export interface BucketDecision {
  /** How many of the requested tokens were taken (the first `granted` requests may go on). */
  granted: number;
  /** Whole seconds until a token is free (the `Retry-After`), for those refused. */
  retryAfterSeconds: number;
}

/**
 * Takes up to `count` tokens from the shared bucket (`burst` tokens, refilled at `rpm / 60` per
 * second) in one atomic upsert, so every relayer process on the database shares the provider's
 * limit and the requests arriving together cost one statement. The upsert computes from the row's
 * latest committed state (it holds the row lock); a clock behind the stored one refills nothing.
 */
export async function takeTokens(
  store: Store,
  name: string,
  limit: { rpm: number; burst: number },
  count: number,
  nowMs: number,
): Promise<BucketDecision> {
  const perMs = limit.rpm / 60_000;
  const available =
    "LEAST($2::float8, b.tokens + GREATEST(0, $3::bigint - b.updated_ms) * $4::float8)";
  const [row] = await store.queryAsyncCommit<{ granted: number; tokens: number }>(
    `INSERT INTO analysis_rate_bucket AS b (name, tokens, updated_ms, granted)
     VALUES ($1, $2::float8 - LEAST($5::int, floor($2::float8)), $3::bigint, LEAST($5::int, floor($2::float8)))
     ON CONFLICT (name) DO UPDATE SET
       granted = LEAST($5::int, floor(${available})),
       tokens = ${available} - LEAST($5::int, floor(${available})),
       updated_ms = GREATEST(b.updated_ms, $3::bigint)
     RETURNING granted, tokens`,
    [name, limit.burst, nowMs, perMs, count],
    { prepare: true },
  );
  const granted = Number(row!.granted);
  // At most a day, as a provider's is passed on: a bucket refilling slower than a token a day (a
  // tiny rpm) would write 6e+301 or Infinity, which no client reads as a Retry-After.
  const wait = Math.ceil((1 - Number(row!.tokens)) / perMs / 1000);
  return {
    granted,
    retryAfterSeconds: granted < count ? Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, wait)) : 0,
  };
}
