import { createHash, randomBytes } from "node:crypto";
import type { Store } from "../store/index.ts";
import type { TierName } from "../config/index.ts";
import { decryptSecret, encryptSecret, masterKeyFingerprint } from "./secrets.ts";

/**
 * API keys: the public key a client sends in `X-SVC-Key`, its tier, and its signing secret,
 * stored encrypted (AES-256-GCM under the master key, bound to the key's id). A rotation keeps
 * the previous secret valid until `previous_expires_at` so clients can switch without downtime.
 * Secrets leave this module only in the results of `createApiKey` and `rotateApiKey`.
 */

export interface ApiKeyRecord {
  id: string;
  key: string;
  tier: TierName;
  label: string;
  source: string;
  createdAt: Date;
  rotatedAt: Date | null;
  revokedAt: Date | null;
  previousExpiresAt: Date | null;
  signaturePolicy: SignaturePolicy;
}

/**
 * Which request signatures a key accepts (relayer/auth/hmac.ts). By default version 1 (the spec's)
 * and version 2 are both accepted, except that a state-changing request without a body needs
 * version 2: version 1 would not say which method and path it was signed for.
 */
export interface SignaturePolicy {
  /** Version 1 refused for every request. */
  requireV2: boolean;
  /** A bodyless DELETE/POST/PUT/PATCH may be signed with version 1 (for clients that cannot sign 2). */
  allowV1Bodyless: boolean;
}

export const DEFAULT_SIGNATURE_POLICY: SignaturePolicy = Object.freeze({
  requireV2: false,
  allowV1Bodyless: false,
});

/**
 * How an API key appears in logs and start lines: `key_` + the first 12 hex characters of its
 * SHA-256. Enough to tell keys apart and to find one in `npm run keys -- list`, useless to call
 * the API with (the key alone authenticates Bearer requests).
 */
export function keyFingerprint(key: string): string {
  return `key_${createHash("sha256").update(key, "utf8").digest("hex").slice(0, 12)}`;
}

/** Default overlap of a rotation: long enough to roll a client's secret, short enough to bound a leak. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 3_600;

/** What authentication needs: the secrets that currently verify a signature for this key. */
export interface ApiKeyCredentials {
  id: string;
  key: string;
  tier: TierName;
  revoked: boolean;
  secrets: string[];
  signaturePolicy: SignaturePolicy;
}

interface ApiKeyRow {
  id: string;
  key: string;
  tier: TierName;
  label: string;
  source: string;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_expires_at: Date | string | null;
  created_at: Date | string;
  rotated_at: Date | string | null;
  revoked_at: Date | string | null;
  require_signature_v2: boolean;
  allow_v1_bodyless: boolean;
}

const toDate = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    key: row.key,
    tier: row.tier,
    label: row.label,
    source: row.source,
    createdAt: toDate(row.created_at)!,
    rotatedAt: toDate(row.rotated_at),
    revokedAt: toDate(row.revoked_at),
    previousExpiresAt: toDate(row.previous_expires_at),
    signaturePolicy: policyOf(row),
  };
}

const policyOf = (row: Pick<ApiKeyRow, "require_signature_v2" | "allow_v1_bodyless">) => ({
  requireV2: row.require_signature_v2,
  allowV1Bodyless: row.allow_v1_bodyless,
});

export const newApiKey = () => `vfk_${randomBytes(18).toString("base64url")}`;
export const newSigningSecret = () => `vfs_${randomBytes(32).toString("base64url")}`;
const newKeyId = () => `key_${randomBytes(12).toString("hex")}`;

export class ApiKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ApiKeyError";
  }
}

export interface CreateApiKeyInput {
  tier: TierName;
  label?: string;
  /** Defaults to a fresh random key; the bootstrap key comes from the environment. */
  key?: string;
  secret?: string;
  source?: "cli" | "bootstrap" | "dev";
}

export async function createApiKey(
  store: Store,
  masterKey: Buffer,
  input: CreateApiKeyInput,
): Promise<{ record: ApiKeyRecord; secret: string }> {
  const id = newKeyId();
  const key = input.key ?? newApiKey();
  const secret = input.secret ?? newSigningSecret();
  const rows = await store.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, key, tier, label, secret_enc, source)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (key) DO NOTHING
     RETURNING *`,
    [
      id,
      key,
      input.tier,
      input.label ?? "",
      encryptSecret(masterKey, secret, id),
      input.source ?? "cli",
    ],
  );
  if (rows.length === 0) throw new ApiKeyError(`API key ${key} already exists`);
  // A lookup of this key may have been remembered as unknown: it works at once here.
  forgetEverywhere(key);
  return { record: toRecord(rows[0]!), secret };
}

export async function listApiKeys(store: Store): Promise<ApiKeyRecord[]> {
  const rows = await store.query<ApiKeyRow>("SELECT * FROM api_keys ORDER BY created_at, id");
  return rows.map(toRecord);
}

export async function countApiKeys(store: Store): Promise<number> {
  const [row] = await store.query<{ n: number }>("SELECT count(*)::int AS n FROM api_keys");
  return row?.n ?? 0;
}

/**
 * Issues a new secret; the current one keeps working for `graceSeconds` (0 ends it at once).
 * Rotating again during a grace period drops the oldest secret: at most two are ever valid.
 */
export async function rotateApiKey(
  store: Store,
  masterKey: Buffer,
  key: string,
  graceSeconds: number,
  now = Date.now(),
): Promise<{ record: ApiKeyRecord; secret: string }> {
  return store.transaction(async (tx) => {
    const [row] = await tx.query<ApiKeyRow>("SELECT * FROM api_keys WHERE key = $1 FOR UPDATE", [
      key,
    ]);
    if (!row) throw new ApiKeyError(`no API key ${key}`);
    if (row.revoked_at) throw new ApiKeyError(`API key ${key} is revoked`);
    const secret = newSigningSecret();
    const previousExpires = graceSeconds > 0 ? new Date(now + graceSeconds * 1000) : null;
    const [updated] = await tx.query<ApiKeyRow>(
      `UPDATE api_keys
         SET secret_enc = $2,
             previous_secret_enc = CASE WHEN $3::timestamptz IS NULL THEN NULL ELSE secret_enc END,
             previous_expires_at = $3::timestamptz,
             rotated_at = $4::timestamptz
       WHERE id = $1
       RETURNING *`,
      [row.id, encryptSecret(masterKey, secret, row.id), previousExpires, new Date(now)],
    );
    forgetEverywhere(key);
    return { record: toRecord(updated!), secret };
  });
}

/** Changes a key's signature policy (the fields given); takes effect at once in this process. */
export async function setSignaturePolicy(
  store: Store,
  key: string,
  policy: Partial<SignaturePolicy>,
): Promise<ApiKeyRecord> {
  const [row] = await store.query<ApiKeyRow>(
    `UPDATE api_keys
        SET require_signature_v2 = COALESCE($2, require_signature_v2),
            allow_v1_bodyless = COALESCE($3, allow_v1_bodyless)
      WHERE key = $1 RETURNING *`,
    [key, policy.requireV2 ?? null, policy.allowV1Bodyless ?? null],
  );
  if (!row) throw new ApiKeyError(`no API key ${key}`);
  forgetEverywhere(key);
  return toRecord(row);
}

/** Ends a rotation early: the previous secret stops working now. */
export async function finishRotation(store: Store, key: string): Promise<ApiKeyRecord> {
  const [row] = await store.query<ApiKeyRow>(
    `UPDATE api_keys SET previous_secret_enc = NULL, previous_expires_at = NULL
     WHERE key = $1 RETURNING *`,
    [key],
  );
  if (!row) throw new ApiKeyError(`no API key ${key}`);
  forgetEverywhere(key);
  return toRecord(row);
}

/** Stops a revoked key's executions inside the revocation's transaction (the executions repository). */
export type CancelExecutionsOfKey = (
  tx: Store,
  apiKeyId: string,
) => Promise<{ cancelled: number; stopping: number }>;

export async function revokeApiKey(
  store: Store,
  key: string,
  cancelExecutionsOfKey: CancelExecutionsOfKey,
  now = Date.now(),
): Promise<ApiKeyRecord & { executions: { cancelled: number; stopping: number } }> {
  // One transaction: once the revocation commits, no execution of the key is left to start, and
  // the running ones stop before their next action (its owner can no longer cancel them).
  const { row, executions } = await store.transaction(async (tx) => {
    const [revoked] = await tx.query<ApiKeyRow>(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2::timestamptz)
       WHERE key = $1 RETURNING *`,
      [key, new Date(now)],
    );
    if (!revoked) throw new ApiKeyError(`no API key ${key}`);
    return { row: revoked, executions: await cancelExecutionsOfKey(tx, revoked.id) };
  });
  forgetEverywhere(key);
  return { ...toRecord(row), executions };
}

/** The secrets valid at `now` for `key`, or null for an unknown key. */
export async function loadCredentials(
  store: Store,
  masterKey: Buffer,
  key: string,
  now = Date.now(),
): Promise<ApiKeyCredentials | null> {
  const stored = await loadStoredCredentials(store, masterKey, key);
  return stored && credentialsAt(stored, now);
}

/** A key's secrets with the rotation deadline, decrypted, before picking those valid at a time. */
interface StoredCredentials {
  id: string;
  key: string;
  tier: TierName;
  revoked: boolean;
  current: string;
  previous: { secret: string; expiresAt: number } | null;
  signaturePolicy: SignaturePolicy;
}

async function loadStoredCredentials(
  store: Store,
  masterKey: Buffer,
  key: string,
): Promise<StoredCredentials | null> {
  const [row] = await store.query<ApiKeyRow>(
    `SELECT id, key, tier, secret_enc, previous_secret_enc, previous_expires_at, revoked_at,
            require_signature_v2, allow_v1_bodyless
       FROM api_keys WHERE key = $1`,
    [key],
  );
  if (!row) return null;
  const previousExpires = toDate(row.previous_expires_at);
  return {
    id: row.id,
    key: row.key,
    tier: row.tier,
    revoked: row.revoked_at !== null,
    current: decryptSecret(masterKey, row.secret_enc, row.id),
    previous:
      row.previous_secret_enc && previousExpires
        ? {
            secret: decryptSecret(masterKey, row.previous_secret_enc, row.id),
            expiresAt: previousExpires.getTime(),
          }
        : null,
    signaturePolicy: policyOf(row),
  };
}

function credentialsAt(stored: StoredCredentials, now: number): ApiKeyCredentials {
  const secrets = [stored.current];
  if (stored.previous && stored.previous.expiresAt > now) secrets.push(stored.previous.secret);
  return {
    id: stored.id,
    key: stored.key,
    tier: stored.tier,
    revoked: stored.revoked,
    secrets,
    signaturePolicy: stored.signaturePolicy,
  };
}

/**
 * Credentials looked up by authentication, kept for `ttlMs` (default 1 s) to spare a database
 * round trip and a decryption per request; concurrent lookups of one key that miss share one load.
 * Consequence, documented: a revocation or rotation made by another process (the keys command)
 * takes effect within `ttlMs`; made in this process (the functions above), at once (a load in
 * flight then is not cached). An unknown key is remembered as unknown for `ttlMs` too, so random
 * keys cost one database query per key and second, not one per request; a key created in this
 * process works at once (creation forgets it everywhere), one created by another process (the keys
 * command) within `ttlMs`.
 */
export class CredentialsCache {
  readonly #entries = new Map<string, { stored: StoredCredentials; loadedAt: number }>();
  readonly #unknown = new Map<string, number>();
  readonly #loading = new Map<string, Promise<StoredCredentials | null>>();
  readonly #store: Store;
  readonly #masterKey: Buffer;
  readonly #ttlMs: number;

  constructor(store: Store, masterKey: Buffer, ttlMs = 1_000) {
    this.#store = store;
    this.#masterKey = masterKey;
    this.#ttlMs = ttlMs;
    LIVE_CACHES.add(new WeakRef(this));
  }

  async get(key: string, now: number): Promise<ApiKeyCredentials | null> {
    const hit = this.#entries.get(key);
    if (hit && now - hit.loadedAt < this.#ttlMs && now >= hit.loadedAt) {
      return credentialsAt(hit.stored, now);
    }
    const missedAt = this.#unknown.get(key);
    if (missedAt !== undefined && now - missedAt < this.#ttlMs && now >= missedAt) return null;
    const stored = await (this.#loading.get(key) ?? this.#load(key, now));
    return stored ? credentialsAt(stored, now) : null;
  }

  #load(key: string, now: number): Promise<StoredCredentials | null> {
    const current = () => this.#loading.get(key) === loading;
    const loading = loadStoredCredentials(this.#store, this.#masterKey, key).then(
      (stored) => {
        if (current()) {
          this.#loading.delete(key);
          if (!stored) {
            this.#entries.delete(key);
            if (this.#unknown.size >= 10_000) this.#unknown.clear(); // bound memory under key churn
            this.#unknown.set(key, now);
          } else {
            this.#unknown.delete(key);
            if (this.#entries.size >= 10_000) this.#entries.clear(); // bound memory under key churn
            this.#entries.set(key, { stored, loadedAt: now });
          }
        }
        return stored;
      },
      (err: unknown) => {
        if (current()) this.#loading.delete(key);
        throw err;
      },
    );
    this.#loading.set(key, loading);
    return loading;
  }

  forget(key: string): void {
    this.#entries.delete(key);
    this.#unknown.delete(key);
    this.#loading.delete(key);
  }
}

const LIVE_CACHES = new Set<WeakRef<CredentialsCache>>();

/** Drops `key` from every cache of this process (after a revocation or rotation here). */
function forgetEverywhere(key: string): void {
  for (const ref of LIVE_CACHES) {
    const cache = ref.deref();
    if (cache) cache.forget(key);
    else LIVE_CACHES.delete(ref);
  }
}

/**
 * The bootstrap key from `VERIFLOW_API_KEY`/`VERIFLOW_SIGNING_SECRET`/`VERIFLOW_TIER`: created on
 * first start, its secret and tier follow the environment on later starts. A revoked bootstrap
 * key stays revoked; a CLI-created key of the same name is never overwritten.
 */
export async function ensureBootstrapKey(
  store: Store,
  masterKey: Buffer,
  bootstrap: { key: string; secret: string; tier: TierName },
): Promise<ApiKeyRecord> {
  return store.transaction(async (tx) => {
    // Processes starting together: one creates the key, the others then find it.
    await tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
      `veriflow:bootstrap:${bootstrap.key}`,
    ]);
    const [row] = await tx.query<ApiKeyRow>("SELECT * FROM api_keys WHERE key = $1 FOR UPDATE", [
      bootstrap.key,
    ]);
    if (!row) {
      const created = await createApiKey(tx, masterKey, { ...bootstrap, source: "bootstrap" });
      return created.record;
    }
    if (row.source !== "bootstrap") {
      throw new ApiKeyError(
        `VERIFLOW_API_KEY ${bootstrap.key} names a key created with the keys command; choose another name`,
      );
    }
    const current = decryptSecret(masterKey, row.secret_enc, row.id);
    if (current === bootstrap.secret && row.tier === bootstrap.tier) return toRecord(row);
    const [updated] = await tx.query<ApiKeyRow>(
      "UPDATE api_keys SET secret_enc = $2, tier = $3 WHERE id = $1 RETURNING *",
      [row.id, encryptSecret(masterKey, bootstrap.secret, row.id), bootstrap.tier],
    );
    return toRecord(updated!);
  });
}

/**
 * Records the master key's fingerprint on first use and refuses a different master key later:
 * a process started with the wrong key would otherwise fail every signature check.
 */
export async function checkMasterKey(store: Store, masterKey: Buffer): Promise<void> {
  const fingerprint = masterKeyFingerprint(masterKey);
  await store.query(
    `INSERT INTO platform_settings (name, value) VALUES ('master_key_fingerprint', $1)
     ON CONFLICT (name) DO NOTHING`,
    [fingerprint],
  );
  const [row] = await store.query<{ value: string }>(
    "SELECT value FROM platform_settings WHERE name = 'master_key_fingerprint'",
  );
  if (row?.value !== fingerprint) {
    throw new Error(
      "the master key differs from the one that encrypted the API keys in this database " +
        "(set VERIFLOW_MASTER_KEY to the original key, or use the same DATA_DIR)",
    );
  }
}
