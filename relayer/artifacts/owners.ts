import type { Store } from "../store/index.ts";

/**
 * The `artifact_owners` table (migration 620): which API keys stored which artifact, whether they
 * published it, and the quota and retention bookkeeping. Blocks on disk are shared by content;
 * every statement that writes the table is here.
 */

/** What an artifact is to its owner: `upload` counts against the quota; `report` is kept. */
export type ArtifactKind = "upload" | "manifest" | "report";

export interface ArtifactOwner {
  apiKeyId: string;
  kind: ArtifactKind;
}

/** What a key holds against its artifact quota (uploads only). */
export interface ArtifactUsage {
  count: number;
  bytes: number;
}

export interface QuotaLimits {
  artifactCount: number;
  artifactBytes: number;
}

/** The outcome of recording an owner: stored, or refused by the quota with the usage that refused it. */
export type OwnerRecorded =
  { stored: true } | { stored: false; usage: ArtifactUsage; limits: QuotaLimits };

/** Serialises a key's quota checks and a CID's block writes against pruning, per database. */
export const lockKey = (tx: Store, apiKeyId: string) =>
  tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
    `veriflow:artifacts:${apiKeyId}`,
  ]);
export const lockCid = (tx: Store, cid: string) =>
  tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`veriflow:artifact:${cid}`]);

export async function usageOf(store: Store, apiKeyId: string): Promise<ArtifactUsage> {
  const [row] = await store.query<{ count: number; bytes: string | number }>(
    `SELECT count(*)::int AS count, COALESCE(sum(bytes), 0)::bigint AS bytes
       FROM artifact_owners WHERE api_key_id = $1 AND kind = 'upload'`,
    [apiKeyId],
  );
  return { count: row?.count ?? 0, bytes: Number(row?.bytes ?? 0) };
}

/**
 * Records `owner` for `cid` (inside the caller's transaction, under {@link lockKey}). Storing
 * again what the key already holds renews its retention and is never refused; a new upload is
 * refused when it would take the key past either limit. A stronger kind is kept: an upload of a
 * report's bytes stays a report.
 */
export async function recordOwner(
  tx: Store,
  cid: string,
  bytes: number,
  owner: ArtifactOwner,
  limits: QuotaLimits | null,
  now: Date,
): Promise<OwnerRecorded> {
  const [held] = await tx.query<{ kind: ArtifactKind }>(
    "SELECT kind FROM artifact_owners WHERE cid = $1 AND api_key_id = $2",
    [cid, owner.apiKeyId],
  );
  if (held) {
    await tx.query(
      `UPDATE artifact_owners SET stored_at = $3,
              kind = CASE WHEN kind = 'report' OR $4 = 'report' THEN 'report'
                          WHEN kind = 'upload' OR $4 = 'upload' THEN 'upload' ELSE kind END
        WHERE cid = $1 AND api_key_id = $2`,
      [cid, owner.apiKeyId, now, owner.kind],
    );
    return { stored: true };
  }
  if (owner.kind === "upload" && limits) {
    const usage = await usageOf(tx, owner.apiKeyId);
    if (usage.count + 1 > limits.artifactCount || usage.bytes + bytes > limits.artifactBytes) {
      return { stored: false, usage, limits };
    }
  }
  await tx.query(
    `INSERT INTO artifact_owners (cid, api_key_id, kind, bytes, stored_at) VALUES ($1, $2, $3, $4, $5)`,
    [cid, owner.apiKeyId, owner.kind, bytes, now],
  );
  return { stored: true };
}

/** The subset of `cids` the key may read: its own, and those any owner published. */
export async function readableCids(
  store: Store,
  cids: readonly string[],
  apiKeyId: string,
): Promise<Set<string>> {
  if (cids.length === 0) return new Set();
  const rows = await store.query<{ cid: string }>(
    `SELECT DISTINCT cid FROM artifact_owners
      WHERE cid = ANY($1::text[]) AND (api_key_id = $2 OR published_at IS NOT NULL)`,
    [cids, apiKeyId],
  );
  return new Set(rows.map((r) => r.cid));
}

/** Whether anyone published `cid` (a shared cache may then keep it). */
export async function isPublished(store: Store, cid: string): Promise<boolean> {
  const rows = await store.query(
    "SELECT 1 FROM artifact_owners WHERE cid = $1 AND published_at IS NOT NULL LIMIT 1",
    [cid],
  );
  return rows.length > 0;
}

/** Publishes or withdraws the key's own copy; false when the key does not own `cid`. */
export async function setPublished(
  store: Store,
  cid: string,
  apiKeyId: string,
  published: boolean,
  now: Date,
): Promise<{ owned: boolean; publishedAt: Date | null }> {
  const [row] = await store.query<{ published_at: Date | string | null }>(
    `UPDATE artifact_owners
        SET published_at = CASE WHEN $3 THEN COALESCE(published_at, $4::timestamptz) ELSE NULL END
      WHERE cid = $1 AND api_key_id = $2 RETURNING published_at`,
    [cid, apiKeyId, published, now],
  );
  if (!row) return { owned: false, publishedAt: null };
  return {
    owned: true,
    publishedAt: row.published_at === null ? null : new Date(row.published_at),
  };
}

/** Removes the key's ownership of an upload or manifest (reports are kept); false when it held none. */
export async function dropOwner(
  tx: Store,
  cid: string,
  apiKeyId: string,
): Promise<"dropped" | "none" | "report"> {
  const [row] = await tx.query<{ kind: ArtifactKind }>(
    "SELECT kind FROM artifact_owners WHERE cid = $1 AND api_key_id = $2",
    [cid, apiKeyId],
  );
  if (!row) return "none";
  if (row.kind === "report") return "report";
  await tx.query("DELETE FROM artifact_owners WHERE cid = $1 AND api_key_id = $2", [cid, apiKeyId]);
  return "dropped";
}

/** Owner rows past the retention (uploads and manifests), at most `limit`, oldest first. */
export async function expiredOwners(
  store: Store,
  before: Date,
  limit: number,
): Promise<{ cid: string; apiKeyId: string }[]> {
  const rows = await store.query<{ cid: string; api_key_id: string }>(
    `SELECT cid, api_key_id FROM artifact_owners
      WHERE kind <> 'report' AND stored_at < $1 ORDER BY stored_at LIMIT $2`,
    [before, limit],
  );
  return rows.map((r) => ({ cid: r.cid, apiKeyId: r.api_key_id }));
}

/** Deletes one expired owner row (still expired under the lock); true when it did. */
export async function dropExpiredOwner(
  tx: Store,
  cid: string,
  apiKeyId: string,
  before: Date,
): Promise<boolean> {
  const rows = await tx.query(
    `DELETE FROM artifact_owners
      WHERE cid = $1 AND api_key_id = $2 AND kind <> 'report' AND stored_at < $3 RETURNING 1`,
    [cid, apiKeyId, before],
  );
  return rows.length === 1;
}

export async function hasOwners(tx: Store, cid: string): Promise<boolean> {
  const rows = await tx.query("SELECT 1 FROM artifact_owners WHERE cid = $1 LIMIT 1", [cid]);
  return rows.length > 0;
}
