import type { ArtifactSettings } from "../config/index.ts";
import { ApiError } from "../http/index.ts";
import type { Store } from "../store/index.ts";
import {
  dropExpiredOwner,
  dropOwner,
  expiredOwners,
  hasOwners,
  isPublished,
  lockCid,
  lockKey,
  readableCids,
  recordOwner,
  setPublished,
  usageOf,
  type ArtifactOwner,
  type ArtifactUsage,
  type QuotaLimits,
} from "./owners.ts";
import {
  encodeArtifact,
  parseCid,
  type ArtifactStore,
  type CarExport,
  type StoredArtifact,
} from "./store.ts";

/**
 * Artifacts with owners: every stored artifact belongs to the API keys that stored it (a final
 * report to its execution's key), and a key reads only its own and those an owner published;
 * anything else answers exactly as a CID nobody stores (404), so a key learns nothing about
 * another's artifacts. Uploads count against the key's tier quota (count and bytes) and, with
 * batch manifests, are pruned `retentionMs` after they were last stored; reports are kept.
 */

export const ARTIFACT_QUOTA_EXCEEDED = "ARTIFACT_QUOTA_EXCEEDED";
export const ARTIFACT_RETAINED = "ARTIFACT_RETAINED";
const PRUNE_BATCH = 500;

export type { ArtifactOwner, ArtifactUsage, QuotaLimits };

export interface ReadArtifact extends StoredArtifact {
  /** Whether an owner published it: a shared cache may keep it. */
  published: boolean;
}

const notFound = (cid: string) =>
  new ApiError(404, "ARTIFACT_NOT_FOUND", `no stored artifact ${cid}`, { cid });

export class Artifacts {
  readonly blocks: ArtifactStore;
  readonly settings: ArtifactSettings;
  readonly #store: Store;
  readonly #clock: () => number;

  constructor(deps: {
    blocks: ArtifactStore;
    store: Store;
    settings: ArtifactSettings;
    clock?: () => number;
  }) {
    this.blocks = deps.blocks;
    this.settings = deps.settings;
    this.#store = deps.store;
    this.#clock = deps.clock ?? Date.now;
  }

  /**
   * Stores `value` for `owner` and answers its CID. `quota` applies to uploads: past it, 403
   * ARTIFACT_QUOTA_EXCEEDED and nothing is stored. Storing again what the key holds renews its
   * retention and is never refused.
   */
  async putArtifact(value: unknown, owner: ArtifactOwner, quota?: QuotaLimits): Promise<string> {
    const block = await encodeArtifact(value);
    const cid = block.cid.toString();
    const now = new Date(this.#clock());
    const recorded = await this.#store.transaction(async (tx) => {
      await lockKey(tx, owner.apiKeyId);
      await lockCid(tx, cid);
      const result = await recordOwner(tx, cid, block.bytes.byteLength, owner, quota ?? null, now);
      // Written under the CID's lock, before the owner row commits: pruning cannot remove it between.
      if (result.stored) await this.blocks.putBlock(block);
      return result;
    });
    if (!recorded.stored) {
      const { usage, limits } = recorded;
      throw new ApiError(
        403,
        ARTIFACT_QUOTA_EXCEEDED,
        `storing ${block.bytes.byteLength} more bytes would exceed this key's artifact quota ` +
          `(${usage.count}/${limits.artifactCount} artifacts, ${usage.bytes}/${limits.artifactBytes} bytes used); ` +
          `delete artifacts (DELETE /artifacts/{cid}) or wait for the ${this.retentionDays} day retention`,
        {
          usage,
          limits: { count: limits.artifactCount, bytes: limits.artifactBytes },
          artifact_bytes: block.bytes.byteLength,
          retention_days: this.retentionDays,
        },
      );
    }
    return cid;
  }

  get retentionDays(): number {
    return this.settings.retentionMs / 86_400_000;
  }

  /** The artifact if `apiKeyId` may read it (its own or published), else undefined. */
  async read(text: string, apiKeyId: string): Promise<ReadArtifact | undefined> {
    const cid = parseCid(text).toString();
    if (!(await readableCids(this.#store, [cid], apiKeyId)).has(cid)) return undefined;
    const stored = await this.blocks.getArtifact(cid);
    return stored && { ...stored, published: await isPublished(this.#store, cid) };
  }

  /**
   * The CIDs as given, normalised, if the key may read every one; else 404 naming the first it
   * may not (`field[i]`), exactly as for a CID nobody stores.
   */
  async requireReadable(
    texts: readonly string[],
    apiKeyId: string,
    field: string,
  ): Promise<string[]> {
    const cids = texts.map((t, i) => parseCid(t, `${field}[${i}]`).toString());
    const readable = await readableCids(this.#store, [...new Set(cids)], apiKeyId);
    const missing = cids.findIndex((cid) => !readable.has(cid));
    if (missing >= 0) {
      throw new ApiError(
        404,
        "ARTIFACT_NOT_FOUND",
        `${field}[${missing}]: no stored artifact ${cids[missing]}`,
        { cid: cids[missing] },
      );
    }
    return cids;
  }

  /** A CAR of artifacts the key may read, streamed, within the export cap. */
  async exportCar(texts: readonly string[], apiKeyId: string, field = "cids"): Promise<CarExport> {
    const cids = await this.requireReadable(texts, apiKeyId, field);
    return this.blocks.exportCar(cids, this.settings.carMaxBytes);
  }

  /** Publishes (or withdraws) the key's copy; 404 when the key does not own it. */
  async publish(text: string, apiKeyId: string, published: boolean): Promise<Date | null> {
    const cid = parseCid(text).toString();
    const result = await setPublished(
      this.#store,
      cid,
      apiKeyId,
      published,
      new Date(this.#clock()),
    );
    if (!result.owned) throw notFound(cid);
    return result.publishedAt;
  }

  /** Drops the key's copy (the block goes when no owner is left); reports are kept (409). */
  async remove(text: string, apiKeyId: string): Promise<void> {
    const cid = parseCid(text).toString();
    const outcome = await this.#store.transaction(async (tx) => {
      await lockKey(tx, apiKeyId);
      await lockCid(tx, cid);
      const dropped = await dropOwner(tx, cid, apiKeyId);
      if (dropped === "dropped" && !(await hasOwners(tx, cid))) await this.blocks.deleteBlock(cid);
      return dropped;
    });
    if (outcome === "none") throw notFound(cid);
    if (outcome === "report") {
      throw new ApiError(
        409,
        ARTIFACT_RETAINED,
        `${cid} is the final report of one of this key's executions and is kept with it`,
        { cid },
      );
    }
  }

  usage(apiKeyId: string): Promise<ArtifactUsage> {
    return usageOf(this.#store, apiKeyId);
  }

  /**
   * Drops uploads and manifests not stored again within the retention, and each block no owner
   * holds any more. Runs in batches until none is left; safe in several processes at once.
   */
  async prune(now = this.#clock()): Promise<{ owners: number; blocks: number }> {
    const before = new Date(now - this.settings.retentionMs);
    let owners = 0;
    let blocks = 0;
    for (;;) {
      const expired = await expiredOwners(this.#store, before, PRUNE_BATCH);
      for (const { cid, apiKeyId } of expired) {
        const removed = await this.#store.transaction(async (tx) => {
          await lockCid(tx, cid);
          if (!(await dropExpiredOwner(tx, cid, apiKeyId, before))) return { owner: 0, block: 0 };
          if (await hasOwners(tx, cid)) return { owner: 1, block: 0 };
          await this.blocks.deleteBlock(cid);
          return { owner: 1, block: 1 };
        });
        owners += removed.owner;
        blocks += removed.block;
      }
      if (expired.length < PRUNE_BATCH) return { owners, blocks };
    }
  }
}
