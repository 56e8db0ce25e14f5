import canonicalize from "canonicalize";
import { getAddress, sha256, type Contract, type EventLog } from "ethers";

/**
 * The text analysis's audit chain as an API key's auditor checks it (docs/analysis.md "Audit
 * records"): the formula every writer and verifier shares, and a verifier that needs no database
 * and no other key's records. No Node API: the browser auditor bundles this module too.
 *
 * Each record commits to a digest of its content, and each link to the previous link and that
 * digest:
 *   digest = sha256(UTF-8 of JCS({seq, id, api_key_id, analysis_id, record}))
 *   hash   = sha256(bytes(prev_hash) || bytes(digest))   (two 32-byte values, 64 bytes hashed)
 * so the links `{seq, digest, hash}` chain without the records' content. Records written before
 * the digest existed (`digest` null, "v1") were chained over their content directly:
 *   hash   = sha256(UTF-8 of (prev_hash as 64 hex characters) || UTF-8 of JCS(...)).
 */

export const ANALYSIS_ANCHOR_URI = "veriflow:analysis-audit:";

/** What a record's digest covers. */
export interface AuditedContent {
  seq: number;
  id: string;
  api_key_id: string;
  analysis_id: string;
  record: unknown;
}

const utf8 = new TextEncoder();
const hex = (value: string) => value.slice(2);

function contentJson(content: AuditedContent): string {
  return canonicalize({
    seq: content.seq,
    id: content.id,
    api_key_id: content.api_key_id,
    analysis_id: content.analysis_id,
    record: content.record,
  })!;
}

/** The record's digest (64 hex characters). */
export function recordDigest(content: AuditedContent): string {
  return hex(sha256(utf8.encode(contentJson(content))));
}

/** The link's hash from the previous link's hash and this record's digest (hex, no 0x). */
export function linkHash(prevHash: string, digest: string): string {
  return hex(sha256(`0x${prevHash}${digest}`));
}

/** The hash of a record written before the digest existed (v1): over its content directly. */
export function legacyEntryHash(prevHash: string, content: AuditedContent): string {
  return hex(sha256(utf8.encode(prevHash + contentJson(content))));
}

/** The audit id of the record at `seq`. */
export function auditId(seq: number): string {
  return `aud_${seq}`;
}

/** One link of the chain as `GET /v1/analysis/audit/links` lists it: no content, no key. */
export interface AuditLink {
  seq: number;
  /** Null for a record written under the v1 formula. */
  digest: string | null;
  hash: string;
}

/** A head of the chain anchored in the registry (`BatchAnchored` under ANALYSIS_ANCHOR_URI). */
export interface AnchoredHead {
  seq: number;
  hash: string;
  anchoredBy: string;
  blockNumber: number;
}

/** Every head anchored under ANALYSIS_ANCHOR_URI, by anyone, read from the registry's events. */
export async function readAnchoredHeads(
  registry: Contract,
  fromBlock: number,
  anchoredBy?: string,
): Promise<AnchoredHead[]> {
  const logs = (await registry.queryFilter(
    registry.filters.BatchAnchored!(null, null, null, null, anchoredBy ?? null),
    fromBlock,
  )) as EventLog[];
  return logs
    .filter((l) => String(l.args.getValue("uri")).startsWith(ANALYSIS_ANCHOR_URI))
    .map((l) => ({
      seq: Number(l.args.getValue("count")),
      hash: String(l.args.getValue("root")).slice(2).toLowerCase(),
      anchoredBy: getAddress(String(l.args.getValue("anchoredBy"))),
      blockNumber: l.blockNumber,
    }));
}

/** A record of the key as `GET /v1/analysis/audit` lists it. */
export interface ListedAuditRecord {
  audit_id: string;
  analysis_id: string;
  api_key_id: string;
  seq: number;
  prev_hash: string;
  digest: string | null;
  hash: string;
  timestamp: string;
  model: string;
  input_sha256: string;
  output_token_count: number;
  compliance_checks: unknown;
  cost_breakdown: unknown;
}

/** An audit id the client kept (an analysis response's, or a workflow report's `analyses`). */
export interface KeptAudit {
  audit_id: string;
  analysis_id: string;
  /**
   * What the client was told of the analysis (a report's entry carries both): each must be the
   * audit record's, since the analyses table that a report is built from is not chained.
   */
  compliance_checks?: unknown;
  created_at?: string;
}

export interface KeyAuditInput {
  /** The key's own records, from `GET /v1/analysis/audit`. */
  records: readonly ListedAuditRecord[];
  /** The links from the checkpoint on, from `GET /v1/analysis/audit/links`. */
  links: readonly AuditLink[];
  /** The chain's start after pruning (`checkpoint` of the links endpoint). */
  checkpoint: { seq: number; hash: string };
  /** The registry's anchored heads (anyone's: only the operator's count). */
  anchors: readonly AnchoredHead[];
  /** The relayer's operator, the only account whose anchors are the chain's. */
  operator: string;
  kept?: readonly KeptAudit[];
}

/**
 * `not-anchored`: holds so far but no anchored head covers it yet (provable once one does);
 * `unverifiable`: cannot be shown from the links alone (a v1 record, or a pruned one).
 */
export type KeyAuditStatus = "pass" | "fail" | "not-anchored" | "unverifiable";

export interface KeyAuditCheck {
  /** `links`, `anchors`, `record[aud_N]`, `kept[aud_N]`. */
  id: string;
  status: KeyAuditStatus;
  reason: string;
}

export interface KeyAuditResult {
  /** Every check passed. */
  ok: boolean;
  checks: KeyAuditCheck[];
}

/** 64 lower-case hex characters, as every hash and digest of the chain is written. */
const isHash = (value: unknown): value is string =>
  typeof value === "string" && /^[0-9a-f]{64}$/.test(value);

/** The seq an audit id names, or null when it is not one. */
export function seqOfAuditId(id: string): number | null {
  const match = /^aud_([1-9]\d{0,14})$/.exec(id);
  return match ? Number(match[1]) : null;
}

/**
 * Checks a key's audit records against the chain's links and the registry's anchors: each record's
 * digest recomputes and is its link's; the links chain from the checkpoint; every head the
 * operator anchored from the checkpoint on is the link hash at its seq; each record is covered by
 * an anchored head the links reproduce; each kept audit id is there with its analysis id.
 */
export function verifyKeyAudit(input: KeyAuditInput): KeyAuditResult {
  const operator = getAddress(input.operator);
  const { checkpoint } = input;
  const anchors = input.anchors
    .filter((a) => getAddress(a.anchoredBy) === operator && a.seq >= checkpoint.seq)
    .sort((a, b) => a.seq - b.seq);
  const checks: KeyAuditCheck[] = [];
  const hashAt = new Map<number, string>([[checkpoint.seq, checkpoint.hash]]);
  const linkAt = new Map<number, AuditLink>();
  const foreign = input.anchors.filter((a) => getAddress(a.anchoredBy) !== operator).length;

  // The links: contiguous from the checkpoint, each v2 hash from its predecessor and digest; v1
  // links (no digest) only before the first v2 one, their hashes taken as listed.
  let broken: string | null = null;
  let prev = checkpoint.hash;
  let expected = checkpoint.seq + 1;
  let sawDigest = false;
  let legacy = 0;
  for (const link of input.links) {
    if (!isHash(prev) || !isHash(link.hash) || (link.digest !== null && !isHash(link.digest))) {
      broken = `link ${link.seq} or its predecessor is not a 32-byte hex hash`;
      break;
    }
    if (link.seq !== expected) {
      broken = `the links skip from ${expected - 1} to ${link.seq}: link ${expected} is missing`;
      break;
    }
    if (link.digest === null) {
      if (sawDigest) {
        broken = `link ${link.seq} has no digest after links that have one`;
        break;
      }
      legacy++;
    } else {
      sawDigest = true;
      if (linkHash(prev, link.digest) !== link.hash) {
        broken = `link ${link.seq}'s hash is not sha256(hash ${link.seq - 1} || its digest)`;
        break;
      }
    }
    prev = link.hash;
    hashAt.set(link.seq, link.hash);
    linkAt.set(link.seq, link);
    expected++;
  }
  const lastSeq = expected - 1;
  checks.push(
    broken
      ? { id: "links", status: "fail", reason: broken }
      : {
          id: "links",
          status: "pass",
          reason: `${input.links.length} links chain from the checkpoint at ${checkpoint.seq} to ${lastSeq}${legacy ? ` (${legacy} v1 links before the first digest, taken as listed)` : ""}`,
        },
  );

  // The anchors: the checkpoint is one; each of the operator's is the link hash at its seq.
  const anchorProblems: string[] = [];
  if (
    checkpoint.seq > 0 &&
    !anchors.some((a) => a.seq === checkpoint.seq && a.hash === checkpoint.hash)
  )
    anchorProblems.push(`the checkpoint at ${checkpoint.seq} is not a head the operator anchored`);
  for (const a of anchors) {
    if (a.seq > lastSeq)
      anchorProblems.push(
        `the operator anchored a head at ${a.seq}, beyond the last link ${lastSeq}: links are missing or records were removed`,
      );
    else if (hashAt.get(a.seq) !== a.hash)
      anchorProblems.push(`the head anchored at ${a.seq} is not the links' hash at ${a.seq}`);
  }
  const good = anchors.filter((a) => a.seq <= lastSeq && hashAt.get(a.seq) === a.hash);
  checks.push(
    broken || anchorProblems.length > 0
      ? {
          id: "anchors",
          status: "fail",
          reason: broken
            ? `not checked: the links do not chain (${broken})`
            : anchorProblems.join("; "),
        }
      : {
          id: "anchors",
          status: "pass",
          reason: `${good.length} heads anchored by the operator ${operator} are the links' hashes${foreign ? ` (${foreign} anchors by other accounts ignored)` : ""}`,
        },
  );
  const chainOk = !broken && anchorProblems.length === 0;

  // A link is covered by the first operator anchor at or after it, when every link up to that
  // anchor has a digest (v1 links cannot be recomputed: they pin nothing before them).
  const coveringAnchor = (seq: number): AnchoredHead | null => {
    const anchor = good.find((a) => a.seq >= seq);
    if (!anchor) return null;
    for (let s = seq + 1; s <= anchor.seq; s++) if (linkAt.get(s)?.digest == null) return null;
    return anchor;
  };

  const own = new Map<number, ListedAuditRecord>();
  for (const record of input.records) {
    own.set(record.seq, record);
    checks.push({ id: `record[${record.audit_id}]`, ...checkRecord(record) });
  }

  function checkRecord(record: ListedAuditRecord): Omit<KeyAuditCheck, "id"> {
    const fail = (reason: string) => ({ status: "fail" as const, reason });
    if (record.audit_id !== auditId(record.seq))
      return fail(`the record's id ${record.audit_id} is not the id of seq ${record.seq}`);
    // The records are listed before the links: a pruning in between moves the checkpoint past
    // records listed a moment earlier, which an honest relayer does once a day.
    if (record.seq <= checkpoint.seq)
      return {
        status: "unverifiable",
        reason: `listed at ${record.seq}, at or before the checkpoint at ${checkpoint.seq}: pruned since it was listed (retention); only the anchored checkpoint covers it`,
      };
    const link = linkAt.get(record.seq);
    if (!link) return fail(`no link at ${record.seq} (the links end at ${lastSeq})`);
    if (
      link.hash !== record.hash ||
      link.digest !== record.digest ||
      hashAt.get(record.seq - 1) !== record.prev_hash
    )
      return fail(`the record's digest, hash or prev_hash differs from the links at ${record.seq}`);
    const content = contentOf(record);
    if (link.digest === null) {
      if (legacyEntryHash(record.prev_hash, content) !== record.hash)
        return fail(`the record's content does not hash to its v1 hash: it was altered`);
    } else if (recordDigest(content) !== link.digest)
      return fail(
        `the record's content does not hash to the digest of link ${record.seq}: it was altered`,
      );
    if (!chainOk)
      return fail("the record matches its link, but the links do not hold (see links, anchors)");
    const anchor = coveringAnchor(record.seq);
    if (anchor)
      return {
        status: "pass",
        reason: `digest recomputed; covered by the head anchored at ${anchor.seq} (block ${anchor.blockNumber})`,
      };
    if (link.digest === null)
      return {
        status: "unverifiable",
        reason:
          "a v1 record (written before links carried digests): its key alone cannot tie it to an anchored head; the operator's verifyAuditChain does",
      };
    return {
      status: "not-anchored",
      reason: `digest recomputed; no anchored head covers ${record.seq} yet (last anchored: ${good.at(-1)?.seq ?? "none"})`,
    };
  }

  for (const kept of input.kept ?? []) {
    const seq = seqOfAuditId(kept.audit_id);
    const id = `kept[${kept.audit_id}]`;
    const record = seq === null ? undefined : own.get(seq);
    if (seq !== null && seq <= checkpoint.seq && !record) {
      checks.push({
        id,
        status: "unverifiable",
        reason: `pruned: ${kept.audit_id} is before the checkpoint at ${checkpoint.seq} (retention); only the anchored checkpoint covers it`,
      });
      continue;
    }
    if (!record) {
      checks.push({
        id,
        status: "fail",
        reason: `${kept.audit_id} is not among the key's records`,
      });
      continue;
    }
    if (record.analysis_id !== kept.analysis_id) {
      checks.push({
        id,
        status: "fail",
        reason: `${kept.audit_id} audits ${record.analysis_id}, not ${kept.analysis_id}`,
      });
      continue;
    }
    const claimed = claimedDifference(kept, record);
    if (claimed) {
      checks.push({ id, status: "fail", reason: `${kept.audit_id}: ${claimed}` });
      continue;
    }
    const recordCheck = checks.find((c) => c.id === `record[${record.audit_id}]`)!;
    checks.push({
      id,
      status: recordCheck.status,
      reason: `${kept.analysis_id} at ${seq}: ${recordCheck.reason}`,
    });
  }
  return { ok: checks.every((c) => c.status === "pass"), checks };
}

/** What the kept entry says of the analysis that its audit record does not, or null. */
function claimedDifference(kept: KeptAudit, record: ListedAuditRecord): string | null {
  if (
    kept.compliance_checks !== undefined &&
    canonicalize(kept.compliance_checks) !== canonicalize(record.compliance_checks)
  )
    return `the kept compliance_checks ${canonicalize(kept.compliance_checks)} are not the audit record's ${canonicalize(record.compliance_checks)}`;
  if (kept.created_at !== undefined && Date.parse(kept.created_at) !== Date.parse(record.timestamp))
    return `the kept created_at ${kept.created_at} is not the audit record's timestamp ${record.timestamp}`;
  return null;
}

function contentOf(record: ListedAuditRecord): AuditedContent {
  return {
    seq: record.seq,
    id: record.audit_id,
    api_key_id: record.api_key_id,
    analysis_id: record.analysis_id,
    record: {
      timestamp: record.timestamp,
      model: record.model,
      input_sha256: record.input_sha256,
      output_token_count: record.output_token_count,
      compliance_checks: record.compliance_checks,
      cost_breakdown: record.cost_breakdown,
    },
  };
}
