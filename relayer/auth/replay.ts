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

export async function purgeExpiredSignatures(store: Store, now = Date.now()): Promise<number> {
  const rows = await store.query(
    "DELETE FROM auth_replay WHERE expires_at < to_timestamp($1::double precision / 1000) RETURNING 1",
    [now],
  );
  return rows.length;
}
