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
 * The analyses repository: every statement that writes `analyses`, `analysis_idempotency`,
 * `analysis_incidents` and `analysis_rate_bucket` (the audit chain's tables are audit.ts's;
 * storing analyses appends their records through it).
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
  /** The Idempotency-Key this analysis claimed: marked with its id in the same statement. */
  idempotency?: ClaimedKey;
}

/** An `Idempotency-Key` held by a running analysis (`claimIdempotencyKey`). */
export interface ClaimedKey {
  apiKeyId: string;
  key: string;
  /** The claiming request's random token: only its holder marks or releases the key. */
  claim: string;
}

/** Marks claimed keys with their analyses, from `keyMarkParams` at `$first`. */
function markKeysStatement(first: number): string {
  const [apiKey, key, claim, analysis] = [0, 1, 2, 3].map((i) => `$${first + i}::text[]`);
  return `UPDATE analysis_idempotency i SET analysis_id = u.analysis_id
       FROM unnest(${apiKey}, ${key}, ${claim}, ${analysis}) AS u(api_key_id, key, claim, analysis_id)
      WHERE i.api_key_id = u.api_key_id AND i.key = u.key AND i.claim = u.claim`;
}

function keyMarkParams(analyses: readonly FinishedAnalysis[]): unknown[] {
  const marked = analyses.filter((a) => a.idempotency);
  return [
    marked.map((a) => a.idempotency!.apiKeyId),
    marked.map((a) => a.idempotency!.key),
    marked.map((a) => a.idempotency!.claim),
    marked.map((a) => a.row.id),
  ];
}

/** The audit chain's writes are audit.ts's statements; this one composes them with its own. */
const storeAfterHead = (markKeys: boolean) => `WITH head AS (
       ${moveHeadStatement(1)}
     ), audit AS (
       ${insertAuditsStatement(5)} WHERE EXISTS (SELECT 1 FROM head)
     ), analysis AS (
       INSERT INTO analyses ${analysisRows(14)} WHERE EXISTS (SELECT 1 FROM head)
     )${
       markKeys
         ? `, keys AS (
       ${markKeysStatement(28)} AND EXISTS (SELECT 1 FROM head)
     )`
         : ""
     }
     SELECT count(*)::int AS moved FROM head`;
const STORE_AFTER_HEAD = storeAfterHead(false);
const STORE_AFTER_HEAD_WITH_KEYS = storeAfterHead(true);

/**
 * Stores analyses that finished together with their audit records, appended to the chain in
 * order; returns the rows (with their audit ids) and the chain's new head. With the head this
 * process last wrote (`head`), in ONE statement that moves the head only if it still is that one
 * and inserts only then: when no other process wrote in between (always on PGlite, which has one
 * process), one statement and one commit. Otherwise, or without a head, in a transaction that
 * locks the head first. The keys the analyses claimed are marked with them in that statement or
 * transaction: a key is answered by its analysis from the moment the analysis exists.
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
  const markKeys = analyses.some((a) => a.idempotency);
  if (head) {
    const entries = chainAfter(head, inputs);
    const rows = withIds(entries);
    const next = headOf(entries);
    const [result] = await store.query<{ moved: number }>(
      markKeys ? STORE_AFTER_HEAD_WITH_KEYS : STORE_AFTER_HEAD,
      [
        next.seq,
        next.hash,
        head.seq,
        head.hash,
        ...auditParams(entries),
        ...analysisParams(rows),
        ...(markKeys ? keyMarkParams(analyses) : []),
      ],
      { prepare: true },
    );
    if (result!.moved === 1) return { rows, head: next };
  }
  return store.transaction(async (tx) => {
    const entries = await appendAudits(tx, inputs);
    const rows = withIds(entries);
    await insertAnalyses(tx, rows);
    if (markKeys) await tx.query(markKeysStatement(1), keyMarkParams(analyses));
    return { rows, head: headOf(entries) };
  });
}

/**
 * Retention (audit.ts `pruneAuditRecords`): the audit records older than `cutoff` up to the newest
 * anchored head among them, and the analyses they audit with them (an analysis is kept as long as
 * its audit), and the bias incidents older than `cutoff` (no chain holds them). Returns how many
 * records were removed. With them go the Idempotency-Keys of the removed analyses (a key never
 * names an analysis that is gone) and the keys claimed before `keysBefore` (past their replay
 * window).
 */
export async function pruneAnalyses(
  store: EngineStore,
  cutoff: Date,
  keysBefore: Date,
): Promise<number> {
  return store.transaction(async (tx) => {
    const removed = await pruneAuditRecords(tx, cutoff);
    const analyses = await tx.query<{ id: string }>(
      "DELETE FROM analyses WHERE audit_id = ANY($1::text[]) RETURNING id",
      [removed],
    );
    await tx.query(
      "DELETE FROM analysis_idempotency WHERE analysis_id = ANY($1::text[]) OR created_at < $2",
      [analyses.map((a) => a.id), keysBefore.toISOString()],
    );
    await tx.query("DELETE FROM analysis_incidents WHERE created_at < $1", [cutoff.toISOString()]);
    return removed.length;
  });
}

/** Where a key stands when this request could not claim it. */
export type KeyHolder =
  | { state: "running"; requestHash: string; since: string }
  | { state: "answered"; requestHash: string; analysis: AnalysisRow };

/** A claim to make: the key, the request it is for and when. */
export type KeyClaim = ClaimedKey & { requestHash: string; at: string };

/**
 * Claims the Idempotency-Keys of requests arriving together, before anything is sent, in one
 * statement: a new key, one past its replay window (`expiresBefore`), or one whose analysis never
 * finished and whose claim is older than `abandonedBefore` (its process stopped). Each answer is
 * null when claimed, otherwise who holds the key, read in one snapshot with its analysis;
 * `undefined` when the holder released it meanwhile (try again). Of one key twice in the batch
 * the first is claimed and the second finds it running.
 */
export async function claimIdempotencyKeys(
  store: Store,
  claims: readonly KeyClaim[],
  expiresBefore: string,
  abandonedBefore: string,
): Promise<Array<KeyHolder | null | undefined>> {
  const id = (c: ClaimedKey) => JSON.stringify([c.apiKeyId, c.key]);
  const byKey = new Map<string, KeyClaim>();
  for (const c of claims) {
    const k = id(c);
    if (!byKey.has(k)) byKey.set(k, c);
  }
  const firsts = [...byKey.values()];
  // Without waiting for the disk: the analysis's ordinary commit makes the claim durable with it
  // (WAL is sequential). Only a database crash between the two forgets a claim; its analysis, if
  // stored after the restart, is then not under the key, and a repeat runs anew.
  const claimed = await store.queryAsyncCommit<{ claim: string }>(
    `INSERT INTO analysis_idempotency AS i (api_key_id, key, request_hash, claim, created_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
     ON CONFLICT (api_key_id, key) DO UPDATE
        SET request_hash = EXCLUDED.request_hash, claim = EXCLUDED.claim, analysis_id = NULL,
            created_at = EXCLUDED.created_at
      WHERE i.created_at < $6::timestamptz
         OR (i.analysis_id IS NULL AND i.created_at < $7::timestamptz)
     RETURNING claim`,
    [
      firsts.map((c) => c.apiKeyId),
      firsts.map((c) => c.key),
      firsts.map((c) => c.requestHash),
      firsts.map((c) => c.claim),
      firsts.map((c) => c.at),
      expiresBefore,
      abandonedBefore,
    ],
    { prepare: true },
  );
  const won = new Set(claimed.map((r) => r.claim));
  const held = claims.filter((c) => !won.has(c.claim));
  if (held.length === 0) return claims.map(() => null);
  const rows = await store.query(
    `SELECT i.api_key_id AS key_api_key_id, i.key AS key_key, i.request_hash AS key_request_hash,
            i.created_at AS key_created_at, a.*
       FROM analysis_idempotency i LEFT JOIN analyses a ON a.id = i.analysis_id
      WHERE (i.api_key_id, i.key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [held.map((c) => c.apiKeyId), held.map((c) => c.key)],
    { prepare: true },
  );
  const holders = new Map<string, KeyHolder>();
  for (const row of rows) {
    const {
      key_api_key_id: apiKeyId,
      key_key: key,
      key_request_hash: requestHash,
      key_created_at: since,
      ...analysis
    } = row;
    holders.set(
      id({ apiKeyId: String(apiKeyId), key: String(key), claim: "" }),
      analysis.id === null || analysis.id === undefined
        ? {
            state: "running",
            requestHash: String(requestHash),
            since: new Date(since as string).toISOString(),
          }
        : { state: "answered", requestHash: String(requestHash), analysis: toRow(analysis) },
    );
  }
  return claims.map((c) => (won.has(c.claim) ? null : holders.get(id(c))));
}

/** Gives a key back after its request was refused or failed: a retry may use it. */
export async function releaseIdempotencyKey(store: Store, claim: ClaimedKey): Promise<void> {
  // A release the database forgets in a crash leaves a claim that is taken over once abandoned.
  await store.queryAsyncCommit(
    `DELETE FROM analysis_idempotency
      WHERE api_key_id = $1 AND key = $2 AND claim = $3 AND analysis_id IS NULL`,
    [claim.apiKeyId, claim.key, claim.claim],
  );
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
