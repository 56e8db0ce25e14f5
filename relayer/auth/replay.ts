import type { Store } from "../store/index.ts";
import { TIMESTAMP_TOLERANCE_MS } from "./hmac.ts";

/**
 * Replay protection shared by every process on the database: a signature is recorded when first
 * accepted and kept until its timestamp leaves the acceptance window (after which the timestamp
 * check rejects it anyway). Returns false when the signature was already used.
 */
export async function recordSignature(
  store: Store,
  keyId: string,
  signature: string,
  timestampMs: number,
): Promise<boolean> {
  const rows = await store.queryAsyncCommit(
    `INSERT INTO auth_replay (key_id, signature, expires_at)
     VALUES ($1, $2, to_timestamp($3::double precision / 1000))
     ON CONFLICT DO NOTHING RETURNING 1`,
    [keyId, signature, timestampMs + TIMESTAMP_TOLERANCE_MS],
  );
  return rows.length === 1;
}

/**
 * `recordSignature` for many at once, as a statement to embed (a CTE of a larger one): records the
 * signatures given as parallel arrays in the parameters `keys`, `signatures` and `expiresMs` (the
 * last acceptable timestamp plus the tolerance, ms) and returns `key_id, signature` of the fresh ones.
 */
export function recordSignaturesStatement(
  keys: string,
  signatures: string,
  expiresMs: string,
): string {
  return `INSERT INTO auth_replay (key_id, signature, expires_at)
       SELECT key_id, signature, to_timestamp(expires_ms / 1000)
         FROM unnest(${keys}::text[], ${signatures}::text[], ${expiresMs}::float8[])
           AS i(key_id, signature, expires_ms)
       ON CONFLICT DO NOTHING
       RETURNING key_id, signature`;
}

/** Forgets recorded signatures (requests refused after recording), so they may be resent. */
export async function forgetSignatures(
  store: Store,
  signatures: ReadonlyArray<{ keyId: string; signature: string }>,
): Promise<void> {
  await store.queryAsyncCommit(
    `DELETE FROM auth_replay WHERE (key_id, signature) IN
       (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [signatures.map((s) => s.keyId), signatures.map((s) => s.signature)],
  );
}

export async function purgeExpiredSignatures(store: Store, now = Date.now()): Promise<number> {
  const rows = await store.query(
    "DELETE FROM auth_replay WHERE expires_at < to_timestamp($1::double precision / 1000) RETURNING 1",
    [now],
  );
  return rows.length;
}
