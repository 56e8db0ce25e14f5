import { IDEMPOTENCY_TTL_HOURS, idempotencyKeyReused } from "../http/index.ts";
import type { Store } from "../store/index.ts";

/**
 * `Idempotency-Key` on the creating workflow endpoints (POST /v1/workflows, POST /workflows/deploy;
 * the shared rules are relayer/http/idempotency.ts's): the first response to a (key, request)
 * pair is stored in the same transaction as what it created and replayed for 24 hours; the same
 * key with a different request (method, path, media type or body bytes) is a 409. Requests
 * refused before anything is created (validation, limits) store nothing, so a corrected retry may
 * reuse the key.
 */

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** The stored response for this key and request, a 409 for another request, or null when unused. */
export async function replayIdempotent(
  store: Store,
  apiKeyId: string,
  key: string,
  hash: string,
): Promise<StoredResponse | null> {
  const [row] = await store.query<{ request_hash: string; status: number; response: unknown }>(
    `SELECT request_hash, status, response FROM workflow_idempotency
      WHERE api_key_id = $1 AND key = $2
        AND created_at > now() - make_interval(hours => $3)`,
    [apiKeyId, key, IDEMPOTENCY_TTL_HOURS],
  );
  if (!row) return null;
  if (row.request_hash !== hash) throw idempotencyKeyReused(key);
  const body = typeof row.response === "string" ? JSON.parse(row.response) : row.response;
  return { status: Number(row.status), body };
}

/**
 * Inside the creating transaction: claims the key (a concurrent request with the same key waits
 * on the row lock until this transaction ends). Returns the earlier response when the key was
 * claimed by a committed request in the meantime; null when this request owns the key.
 */
export async function claimIdempotencyKey(
  tx: Store,
  apiKeyId: string,
  key: string,
  hash: string,
): Promise<StoredResponse | null> {
  const claimed = await tx.query(
    `INSERT INTO workflow_idempotency (api_key_id, key, request_hash, status, response)
     VALUES ($1, $2, $3, 0, 'null'::jsonb)
     ON CONFLICT (api_key_id, key) DO UPDATE
        SET request_hash = EXCLUDED.request_hash, status = 0, response = 'null'::jsonb, created_at = now()
      WHERE workflow_idempotency.created_at <= now() - make_interval(hours => $4)
     RETURNING key`,
    [apiKeyId, key, hash, IDEMPOTENCY_TTL_HOURS],
  );
  if (claimed.length === 1) return null;
  return replayIdempotent(tx, apiKeyId, key, hash);
}

export async function recordIdempotentResponse(
  tx: Store,
  apiKeyId: string,
  key: string,
  response: StoredResponse,
): Promise<void> {
  await tx.query(
    `UPDATE workflow_idempotency SET status = $3, response = $4::jsonb WHERE api_key_id = $1 AND key = $2`,
    [apiKeyId, key, response.status, JSON.stringify(response.body)],
  );
}

/**
 * Deletes the keys past their replay window (the platform's housekeeping): a later request with
 * such a key claims it anew, so the rows only take room.
 */
export async function purgeExpiredIdempotencyKeys(store: Store): Promise<number> {
  const rows = await store.query(
    `DELETE FROM workflow_idempotency
      WHERE created_at <= now() - make_interval(hours => $1) RETURNING 1`,
    [IDEMPOTENCY_TTL_HOURS],
  );
  return rows.length;
}
