import { type Store, Batcher } from "../store/index.ts";
import {
  TIMESTAMP_TOLERANCE_MS,
  forgetSignatures,
  recordSignaturesStatement,
} from "../auth/index.ts";
import type { RateDecision } from "../http/index.ts";
import { RATE_WINDOW_MS, countRequestsStatement } from "./rate-limit.ts";

/** A verified signed request to admit: its key, signature, timestamp and the key's tier limit. */
export interface AdmissionRequest {
  keyId: string;
  signature: string;
  timestampMs: number;
  /** The key's requests per minute. */
  limit: number;
}

export type Admission = { fresh: false } | { fresh: true; rate: RateDecision };

/** The admission statement: each table's write is its owner's (auth/replay.ts, rate-limit.ts). */
const ADMISSION = `WITH replay AS (
       ${recordSignaturesStatement("$1", "$2", "$3")}
     ), wanted AS (
       SELECT r.key_id, count(*)::int AS n, min(l.lim) AS lim
         FROM replay r JOIN unnest($4::text[], $5::int[]) AS l(key_id, lim) USING (key_id)
        GROUP BY r.key_id
     ), counted AS (
       ${countRequestsStatement("wanted", "$6")}
     )
     SELECT key_id, signature, NULL::int AS count, NULL::int AS added FROM replay
     UNION ALL
     SELECT key_id, NULL, count, added FROM counted`;

/**
 * The hot path of every signed request, for all the requests that arrive together, in one
 * database statement: record each verified signature (replay protection, `auth_replay`) and count
 * the fresh ones in their key's rate window (`rate_limit_counters`), one upsert per key that
 * admits up to the limit. Per request, the same outcome as `recordSignature` followed by
 * `consumeRateLimit` in arrival order: a signature already recorded (by any process, or earlier in
 * the same batch) is a replay; a fresh request beyond its key's limit is refused and its replay
 * record removed, so the client may resend it unchanged after `Retry-After` (while its timestamp
 * is still within the window). `now` (one clock reading for the batch) picks the rate window.
 */
export async function admitSignedRequests(
  store: Store,
  requests: readonly AdmissionRequest[],
  now: number,
): Promise<Admission[]> {
  const windowStart = now - (now % RATE_WINDOW_MS);
  const resetAt = windowStart + RATE_WINDOW_MS;
  const retryAfterSeconds = Math.max(1, Math.ceil((resetAt - now) / 1000));
  const pair = (keyId: string, signature: string) => `${keyId}\n${signature}`;

  // The same signature twice in one batch: only the first can be fresh.
  const first = new Map<string, number>();
  requests.forEach((r, i) => {
    if (!first.has(pair(r.keyId, r.signature))) first.set(pair(r.keyId, r.signature), i);
  });
  const distinct = [...first.values()].map((i) => requests[i]!);
  const limits = new Map<string, number>();
  for (const r of requests) if (!limits.has(r.keyId)) limits.set(r.keyId, r.limit);

  const rows = await store.queryAsyncCommit<{
    key_id: string;
    signature: string | null;
    count: number | null;
    added: number | null;
  }>(
    ADMISSION,
    [
      distinct.map((r) => r.keyId),
      distinct.map((r) => r.signature),
      distinct.map((r) => r.timestampMs + TIMESTAMP_TOLERANCE_MS),
      [...limits.keys()],
      [...limits.values()],
      windowStart,
    ],
    { prepare: true },
  );

  const fresh = new Set<string>();
  // Per key: the count before this batch, and how many of its fresh requests still fit.
  const window = new Map<string, { before: number; left: number }>();
  for (const row of rows) {
    if (row.signature !== null) fresh.add(pair(row.key_id, row.signature));
    else window.set(row.key_id, { before: row.count! - row.added!, left: row.added! });
  }
  const refused: AdmissionRequest[] = [];
  const admissions = requests.map((r, i): Admission => {
    if (first.get(pair(r.keyId, r.signature)) !== i || !fresh.has(pair(r.keyId, r.signature))) {
      return { fresh: false };
    }
    const limit = limits.get(r.keyId)!;
    const counted = window.get(r.keyId);
    if (!counted || counted.left === 0) {
      refused.push(r);
      return {
        fresh: true,
        rate: { allowed: false, limit, remaining: 0, resetAt, retryAfterSeconds },
      };
    }
    counted.before += 1;
    counted.left -= 1;
    const remaining = Math.max(0, limit - counted.before);
    return { fresh: true, rate: { allowed: true, limit, remaining, resetAt, retryAfterSeconds } };
  });
  if (refused.length > 0) await forgetSignatures(store, refused);
  return admissions;
}

/**
 * Admissions of concurrent requests coalesced: requests arriving while a statement is in flight
 * share the next one (one round trip for the batch instead of one per request).
 */
export function admissionBatcher(
  store: Store,
  clock: () => number,
): Batcher<AdmissionRequest, Admission> {
  return new Batcher(async (requests) =>
    (await admitSignedRequests(store, requests, clock())).map((value) => ({ ok: true, value })),
  );
}
