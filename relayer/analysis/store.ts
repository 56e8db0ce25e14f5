import type { EngineStore } from "../accounts/index.ts";
import type { Store } from "../store/index.ts";

/**
 * The analyses repository: every statement that writes `analyses`, `analysis_incidents` and
 * `analysis_rate_bucket` (the audit chain's tables are audit.ts's).
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

export async function insertAnalysis(tx: EngineStore, row: AnalysisRow): Promise<void> {
  await tx.query(
    `INSERT INTO analyses (id, api_key_id, workflow_id, model, model_version, route_reason,
       fallback_reason, redactions, compliance_checks, alerts, output_blob, input_blob, audit_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      row.id,
      row.api_key_id,
      row.workflow_id,
      row.model,
      row.model_version,
      row.route_reason,
      row.fallback_reason,
      JSON.stringify(row.redactions),
      JSON.stringify(row.compliance_checks),
      JSON.stringify(row.alerts),
      row.output_blob,
      row.input_blob,
      row.audit_id,
      row.created_at,
    ],
  );
}

/** Deletes the analyses audited by the given audit records (they are pruned together). */
export async function deleteAuditedAnalyses(
  tx: EngineStore,
  auditIds: readonly string[],
): Promise<void> {
  await tx.query("DELETE FROM analyses WHERE audit_id = ANY($1::text[])", [auditIds]);
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
  },
): Promise<void> {
  await store.query(
    `INSERT INTO analysis_incidents (api_key_id, kind, input_sha256, score, threshold)
     VALUES ($1, $2, $3, $4, $5)`,
    [incident.apiKeyId, incident.kind, incident.inputSha256, incident.score, incident.threshold],
  );
}

export interface BucketDecision {
  allowed: boolean;
  /** Whole seconds until a token is free (the `Retry-After`), when refused. */
  retryAfterSeconds: number;
}

/**
 * Takes one token from the shared bucket (`burst` tokens, refilled at `rpm / 60` per second) in
 * one atomic statement, so every relayer process on the database shares the provider's limit.
 */
export async function takeToken(
  store: Store,
  name: string,
  limit: { rpm: number; burst: number },
  nowMs: number,
): Promise<BucketDecision> {
  const perMs = limit.rpm / 60_000;
  const rows = await store.queryAsyncCommit<{ tokens: number }>(
    `INSERT INTO analysis_rate_bucket AS b (name, tokens, updated_ms) VALUES ($1, $2::float8 - 1, $3)
     ON CONFLICT (name) DO UPDATE SET
       tokens = LEAST($2::float8, b.tokens + GREATEST(0, $3 - b.updated_ms) * $4::float8) - 1,
       updated_ms = GREATEST(b.updated_ms, $3)
     WHERE LEAST($2::float8, b.tokens + GREATEST(0, $3 - b.updated_ms) * $4::float8) >= 1
     RETURNING tokens`,
    [name, limit.burst, nowMs, perMs],
    { prepare: true },
  );
  if (rows.length) return { allowed: true, retryAfterSeconds: 0 };
  const [row] = await store.query<{ tokens: number; updated_ms: string }>(
    "SELECT tokens, updated_ms FROM analysis_rate_bucket WHERE name = $1",
    [name],
  );
  const available = Math.min(
    limit.burst,
    (row?.tokens ?? 0) + Math.max(0, nowMs - Number(row?.updated_ms ?? nowMs)) * perMs,
  );
  return {
    allowed: false,
    retryAfterSeconds: Math.max(1, Math.ceil((1 - available) / perMs / 1000)),
  };
}
