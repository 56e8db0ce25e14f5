import type { Contract, Log } from "ethers";
import type { EngineStore } from "../accounts/index.ts";
import {
  ANALYSIS_ANCHOR_URI,
  auditId,
  legacyEntryHash,
  linkHash,
  readAnchoredHeads,
  recordDigest,
  type AuditLink,
} from "../audit/index.ts";
import { TxJournal } from "../transactions/index.ts";
import type { AnchorTarget } from "../integrations/index.ts";
import type { Store } from "../store/index.ts";

/**
 * The audit records of the text analysis (spec "Audit log record"), exactly the spec's fields
 * and no text. Records are append-only (a database trigger refuses UPDATE and any DELETE outside
 * retention pruning) and hash-chained in one sequence shared by every process and key, through a
 * digest of each record (relayer/audit/analysis-chain.ts has the formula):
 * `digest = sha256(JCS({seq, id, api_key_id, analysis_id, record}))`,
 * `hash = sha256(prev_hash || digest)`, so a key's auditor checks the links without the other
 * keys' records. Records written before the digest (migration 402) keep their v1 hash, over the
 * content directly (`digest` null); they only precede the others.
 *
 * The head is anchored in ProofRegistry on an interval as `anchorBatch(root = head hash, count =
 * seq, uri = "veriflow:analysis-audit:<seq>")`, so an auditor holding the records recomputes the
 * hashes and finds the head on chain (`batchOf(hash)`): a record altered or removed before an
 * anchored head breaks the chain there. Pruning removes only records older than the retention
 * that an anchor covers, and keeps the hash of the last removed one (itself anchored) as the
 * chain's new start.
 */
export interface AuditRecord {
  timestamp: string;
  model: string;
  input_sha256: string;
  output_token_count: number;
  compliance_checks: {
    clm_violations: number;
    uben_compliance: "passed" | "failed";
    pii_leakage: boolean;
  };
  cost_breakdown: { provider_tokens: number; platform_units: number };
}

export interface AuditEntry {
  seq: number;
  id: string;
  api_key_id: string;
  analysis_id: string;
  record: AuditRecord;
  prev_hash: string;
  /** Null for a record written under the v1 formula (before migration 402). */
  digest: string | null;
  hash: string;
}

/**
 * Whether an entry's stored digest (when it has one) is its content's, and its hash the link from
 * `prevHash`, under the formula it was written with.
 */
function entryHolds(prevHash: string, entry: AuditEntry): boolean {
  if (entry.digest === null) return legacyEntryHash(prevHash, entry) === entry.hash;
  return recordDigest(entry) === entry.digest && linkHash(prevHash, entry.digest) === entry.hash;
}

/**
 * Appends records after the head, in the given order (in the caller's transaction, which holds
 * the head's row lock until it commits: one writer at a time across processes). One INSERT for
 * all of them, so the analyses finishing together share one transaction and one commit.
 */
export async function appendAudits(
  tx: Store,
  inputs: ReadonlyArray<{ apiKeyId: string; analysisId: string; record: AuditRecord }>,
): Promise<AuditEntry[]> {
  const [head] = await tx.query<{ seq: string; hash: string }>(
    "SELECT seq, hash FROM analysis_audit_head FOR UPDATE",
    [],
    { prepare: true },
  );
  const entries = chainAfter({ seq: Number(head!.seq), hash: head!.hash }, inputs);
  await tx.query(INSERT_AUDITS, auditParams(entries), {
    prepare: true,
  });
  const last = entries.at(-1)!;
  await tx.query("UPDATE analysis_audit_head SET seq = $1, hash = $2", [last.seq, last.hash], {
    prepare: true,
  });
  return entries;
}

/** The chain's head: the last record's seq and hash. */
export interface AuditHead {
  seq: number;
  hash: string;
}

/** The records `inputs` become when appended, in order, after `head`. */
export function chainAfter(
  head: AuditHead,
  inputs: ReadonlyArray<{ apiKeyId: string; analysisId: string; record: AuditRecord }>,
): AuditEntry[] {
  let seq = head.seq;
  let prevHash = head.hash;
  return inputs.map((input): AuditEntry => {
    seq += 1;
    const content = {
      seq,
      id: auditId(seq),
      api_key_id: input.apiKeyId,
      analysis_id: input.analysisId,
      record: input.record,
    };
    const digest = recordDigest(content);
    const entry = { ...content, prev_hash: prevHash, digest, hash: linkHash(prevHash, digest) };
    prevHash = entry.hash;
    return entry;
  });
}

/**
 * The INSERT of records into `analysis_audit`, from `auditParams` at `$first`…, as a statement to
 * embed (it ends in a SELECT, which the caller may restrict with a WHERE).
 */
export function insertAuditsStatement(first: number): string {
  const types = ["bigint", "text", "text", "text", "jsonb", "text", "text", "text", "timestamptz"];
  return `INSERT INTO analysis_audit (seq, id, api_key_id, analysis_id, record, prev_hash, digest, hash, recorded_at)
     SELECT * FROM unnest(${types.map((t, i) => `$${first + i}::${t}[]`).join(", ")})`;
}
const INSERT_AUDITS = insertAuditsStatement(1);

/**
 * Moves the head to `($new seq, $new hash)` only if it still is `($old seq, $old hash)` (the four
 * parameters from `$first`), as a statement to embed: returns a row when it moved.
 */
export function moveHeadStatement(first: number): string {
  const [seq, hash, oldSeq, oldHash] = [0, 1, 2, 3].map((i) => `$${first + i}`);
  return `UPDATE analysis_audit_head SET seq = ${seq}, hash = ${hash}
      WHERE seq = ${oldSeq} AND hash = ${oldHash} RETURNING 1`;
}

export function auditParams(entries: readonly AuditEntry[]): unknown[] {
  return [
    entries.map((e) => e.seq),
    entries.map((e) => e.id),
    entries.map((e) => e.api_key_id),
    entries.map((e) => e.analysis_id),
    entries.map((e) => JSON.stringify(e.record)),
    entries.map((e) => e.prev_hash),
    entries.map((e) => e.digest),
    entries.map((e) => e.hash),
    entries.map((e) => e.record.timestamp),
  ];
}

function toEntry(row: Record<string, unknown>): AuditEntry {
  return {
    seq: Number(row.seq),
    id: String(row.id),
    api_key_id: String(row.api_key_id),
    analysis_id: String(row.analysis_id),
    record: (typeof row.record === "string" ? JSON.parse(row.record) : row.record) as AuditRecord,
    prev_hash: String(row.prev_hash),
    digest: row.digest == null ? null : String(row.digest),
    hash: String(row.hash),
  };
}

/** A record as `GET /v1/analysis/audit` lists it to its key (relayer/audit's ListedAuditRecord). */
export function listedRecord(e: AuditEntry) {
  return {
    audit_id: e.id,
    analysis_id: e.analysis_id,
    api_key_id: e.api_key_id,
    ...e.record,
    seq: e.seq,
    prev_hash: e.prev_hash,
    digest: e.digest,
    hash: e.hash,
  };
}

/** A key's records between two instants (ISO 8601), oldest first, after `cursor` (a seq). */
export async function listAudit(
  store: EngineStore,
  query: { apiKeyId: string; from?: string; to?: string; afterSeq?: number; limit: number },
): Promise<AuditEntry[]> {
  const rows = await store.query(
    `SELECT seq, id, api_key_id, analysis_id, record, prev_hash, digest, hash FROM analysis_audit
     WHERE api_key_id = $1 AND ($2::timestamptz IS NULL OR recorded_at >= $2)
       AND ($3::timestamptz IS NULL OR recorded_at < $3) AND seq > $4
     ORDER BY seq LIMIT $5`,
    [query.apiKeyId, query.from ?? null, query.to ?? null, query.afterSeq ?? 0, query.limit],
  );
  return rows.map(toEntry);
}

/** The chain's start after pruning: the seq and hash the first remaining link follows. */
export interface AuditCheckpoint {
  seq: number;
  hash: string;
}

/**
 * The links `{seq, digest, hash}` from `fromSeq` (the checkpoint's next by default) to `toSeq`
 * (inclusive; `max` links by default), oldest first, with the checkpoint and the head: no key,
 * no analysis id, no content.
 */
export async function listLinks(
  store: EngineStore,
  range: { fromSeq?: number; toSeq?: number; max: number },
): Promise<{
  checkpoint: AuditCheckpoint;
  head: AuditHead;
  fromSeq: number;
  toSeq: number;
  links: AuditLink[];
}> {
  // One statement, one snapshot: a pruning in between cannot move the checkpoint past the links.
  const [row] = await store.query<{
    checkpoint_seq: string;
    checkpoint_hash: string;
    head_seq: string;
    head_hash: string;
    links: Array<{ seq: number | string; digest: string | null; hash: string }> | string;
  }>(
    `SELECT c.seq AS checkpoint_seq, c.hash AS checkpoint_hash, h.seq AS head_seq, h.hash AS head_hash,
       (SELECT coalesce(json_agg(json_build_object('seq', a.seq, 'digest', a.digest, 'hash', a.hash)
                                 ORDER BY a.seq), '[]')
          FROM analysis_audit a
         WHERE a.seq >= coalesce($1::bigint, c.seq + 1)
           AND a.seq <= coalesce($2::bigint, coalesce($1::bigint, c.seq + 1) + $3 - 1)) AS links
     FROM analysis_audit_checkpoint c, analysis_audit_head h`,
    [range.fromSeq ?? null, range.toSeq ?? null, range.max],
  );
  const links = typeof row!.links === "string" ? JSON.parse(row!.links) : row!.links;
  const checkpointSeq = Number(row!.checkpoint_seq);
  const fromSeq = range.fromSeq ?? checkpointSeq + 1;
  return {
    fromSeq,
    toSeq: range.toSeq ?? fromSeq + range.max - 1,
    checkpoint: { seq: checkpointSeq, hash: row!.checkpoint_hash },
    head: { seq: Number(row!.head_seq), hash: row!.head_hash },
    links: (links as Array<{ seq: number | string; digest: string | null; hash: string }>).map(
      (l) => ({ seq: Number(l.seq), digest: l.digest, hash: l.hash }),
    ),
  };
}

export interface ChainVerification {
  ok: boolean;
  /** The first seq whose hash or link does not hold, when not ok. */
  brokenAt: number | null;
  problem: string | null;
  /** Records checked, from the checkpoint on. */
  checked: number;
  head: { seq: number; hash: string };
  /** Anchored heads whose hash the recomputed chain reproduces and the registry holds. */
  anchorsVerified: number;
}

/** Where the chain's anchors are read back from: the registry's `BatchAnchored` events. */
export interface AuditAnchorSource {
  registry: Contract;
  /** The registry's deployment block (its events are read from there). */
  fromBlock: number;
  /** The account that anchors the chain (the relayer's operator); any logger when absent. */
  anchoredBy?: string;
}

/**
 * Recomputes the chain from the retention checkpoint to the head and checks every stored anchor
 * against it. With the registry (`source`), the chain itself is the reference, so that rows
 * rewritten or removed together with their anchor rows still show: the checkpoint must be a head
 * anchored there (`batchOf`), every stored anchor must be there, and every head the registry
 * holds under `veriflow:analysis-audit:` from the anchoring account, from the checkpoint on, must
 * be a record's hash (a head beyond the last record means the tail was removed). Records appended
 * after the last anchor are provable only once anchored.
 */
export async function verifyAuditChain(
  store: EngineStore,
  source?: AuditAnchorSource,
): Promise<ChainVerification> {
  // One snapshot of the checkpoint, the head, the records and the anchor rows: on a live relayer an
  // append or a pruning between separate reads would show as a record missing.
  const { checkpoint, head, rows, anchors } = await store.transaction(async (tx) => {
    await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    const [checkpoint] = await tx.query<{ seq: string; hash: string }>(
      "SELECT seq, hash FROM analysis_audit_checkpoint",
    );
    const [head] = await tx.query<{ seq: string; hash: string }>(
      "SELECT seq, hash FROM analysis_audit_head",
    );
    const rows = (
      await tx.query(
        "SELECT seq, id, api_key_id, analysis_id, record, prev_hash, digest, hash, recorded_at FROM analysis_audit ORDER BY seq",
      )
    ).map((row) => ({ ...toEntry(row), recordedAt: new Date(row.recorded_at as string) }));
    const anchors = await tx.query<{ seq: string; hash: string }>(
      "SELECT seq, hash FROM analysis_audit_anchors WHERE seq >= $1 ORDER BY seq",
      [checkpoint!.seq],
    );
    return { checkpoint, head, rows, anchors };
  });
  const headOut = { seq: Number(head!.seq), hash: head!.hash };
  const fail = (seq: number, problem: string, checked: number): ChainVerification => ({
    ok: false,
    brokenAt: seq,
    problem,
    checked,
    head: headOut,
    anchorsVerified: 0,
  });
  let expectedSeq = Number(checkpoint!.seq) + 1;
  let prev = checkpoint!.hash;
  let sawDigest = false;
  const hashes = new Map<number, string>([[Number(checkpoint!.seq), prev]]);
  for (const [i, e] of rows.entries()) {
    if (e.seq !== expectedSeq) return fail(expectedSeq, `record ${expectedSeq} is missing`, i);
    if (e.prev_hash !== prev)
      return fail(e.seq, `record ${e.seq} does not link to its predecessor`, i);
    if (e.digest === null && sawDigest)
      return fail(e.seq, `record ${e.seq} has no digest after records that have one`, i);
    sawDigest ||= e.digest !== null;
    if (!entryHolds(prev, e)) return fail(e.seq, `record ${e.seq} was altered`, i);
    // Outside the digest, but what the listing's from/to and the retention go by.
    if (e.recordedAt.getTime() !== Date.parse(e.record.timestamp))
      return fail(e.seq, `record ${e.seq}'s recorded_at is not its timestamp`, i);
    prev = e.hash;
    hashes.set(e.seq, e.hash);
    expectedSeq++;
  }
  const last = expectedSeq - 1;
  if (last > headOut.seq)
    return fail(
      headOut.seq + 1,
      `record ${headOut.seq + 1} is beyond the head ${headOut.seq}: it was inserted after it`,
      rows.length,
    );
  if (last < headOut.seq)
    return fail(
      expectedSeq,
      `records after ${last} are missing (head ${headOut.seq})`,
      rows.length,
    );
  if (prev !== headOut.hash)
    return fail(last, `the head's hash is not record ${last}'s`, rows.length);
  const verified = new Set<number>();
  const inRegistry = async (hash: string, seq: number) => {
    const batch = (await source!.registry.getFunction("batchOf")(`0x${hash}`)) as {
      batchId: bigint;
      count: bigint;
    };
    return batch.batchId !== 0n && Number(batch.count) === seq;
  };
  const start = Number(checkpoint!.seq);
  if (source && start > 0 && !(await inRegistry(checkpoint!.hash, start)))
    return fail(
      start,
      `the retention checkpoint at ${start} is not a head anchored in the registry`,
      rows.length,
    );
  for (const a of anchors) {
    const seq = Number(a.seq);
    if (hashes.get(seq) !== a.hash)
      return fail(seq, `the anchored head at ${seq} does not match the records`, rows.length);
    if (source && !(await inRegistry(a.hash, seq)))
      return fail(seq, `the head at ${seq} is not anchored in the registry`, rows.length);
    verified.add(seq);
  }
  if (source) {
    const onChain = (await readAnchoredHeads(source.registry, source.fromBlock, source.anchoredBy))
      .filter((a) => a.seq >= start)
      .sort((a, b) => a.seq - b.seq);
    for (const a of onChain) {
      if (a.seq > headOut.seq)
        return fail(
          headOut.seq + 1,
          `the registry holds an anchored head at ${a.seq}, beyond the last record ${headOut.seq}: records were removed`,
          rows.length,
        );
      if (hashes.get(a.seq) !== a.hash)
        return fail(
          a.seq,
          `the head anchored in the registry at ${a.seq} does not match the records`,
          rows.length,
        );
      verified.add(a.seq);
    }
  }
  return {
    ok: true,
    brokenAt: null,
    problem: null,
    checked: rows.length,
    head: headOut,
    anchorsVerified: verified.size,
  };
}

/**
 * Anchors the head when it moved since the last anchor. Through the engine's transaction journal
 * (slot `aa_<seq>`): a restart resumes the transaction instead of signing a second one.
 */
export async function anchorAuditHead(
  store: EngineStore,
  target: AnchorTarget,
  nowMs: number,
): Promise<{ seq: number; txHash: string } | null> {
  const [head] = await store.query<{ seq: string; hash: string }>(
    "SELECT seq, hash FROM analysis_audit_head",
  );
  const seq = Number(head!.seq);
  if (seq === 0) return null;
  const [done] = await store.query("SELECT 1 FROM analysis_audit_anchors WHERE seq = $1", [seq]);
  if (done) return null;
  const { chain, registry, address } = target;
  const signer = chain.operator;
  if (!signer) throw new Error(`no operator key on ${chain.name} to anchor the audit chain`);
  const data = registry.interface.encodeFunctionData("anchorBatch", [
    `0x${head!.hash}`,
    seq,
    `${ANALYSIS_ANCHOR_URI}${seq}`,
  ]);
  const sent = await new TxJournal(store).sendCall(
    chain,
    signer,
    { executionId: `aa_${seq}`, actionIndex: 0, slot: "anchor" },
    "attest",
    { to: address, data },
    { units: -1 },
  );
  if (sent.status !== "confirmed")
    throw new Error(`anchorBatch ${sent.hash} reverted on ${chain.name}`);
  const event = sent.receipt.logs
    .map((l: Log) => {
      try {
        return registry.interface.parseLog(l);
      } catch {
        return null;
      }
    })
    .find((e) => e?.name === "BatchAnchored");
  await store.query(
    `INSERT INTO analysis_audit_anchors (seq, hash, chain_id, registry, tx_hash, block_number, batch_id, anchored_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (seq) DO NOTHING`,
    [
      seq,
      head!.hash,
      chain.chainId,
      address,
      sent.hash,
      sent.receipt.blockNumber,
      String(event?.args.getValue("batchId") ?? 0n),
      new Date(nowMs).toISOString(),
    ],
  );
  return { seq, txHash: sent.hash };
}

/**
 * Retention, in the caller's transaction: removes the records older than `cutoff` up to the newest
 * anchored head among them, and moves the checkpoint there (the removed records stay provable
 * through that anchor; the remaining chain starts from its hash). Returns the removed records' ids.
 */
export async function pruneAuditRecords(tx: EngineStore, cutoff: Date): Promise<string[]> {
  const [anchor] = await tx.query<{ seq: string; hash: string }>(
    `SELECT a.seq, a.hash FROM analysis_audit_anchors a
     JOIN analysis_audit r ON r.seq = a.seq
     WHERE r.recorded_at < $1 ORDER BY a.seq DESC LIMIT 1`,
    [cutoff.toISOString()],
  );
  if (!anchor) return [];
  await tx.query("SELECT set_config('veriflow.audit_prune', 'on', true)");
  const removed = await tx.query<{ id: string }>(
    "DELETE FROM analysis_audit WHERE seq <= $1 RETURNING id",
    [anchor.seq],
  );
  await tx.query("SELECT set_config('veriflow.audit_prune', '', true)");
  await tx.query("UPDATE analysis_audit_checkpoint SET seq = $1, hash = $2", [
    anchor.seq,
    anchor.hash,
  ]);
  return removed.map((r) => r.id);
}
