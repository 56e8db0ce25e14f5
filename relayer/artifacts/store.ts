import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { CarWriter } from "@ipld/car";
import canonicalize from "canonicalize";
import { CID } from "multiformats/cid";
import * as json from "multiformats/codecs/json";
import { sha256 } from "multiformats/hashes/sha2";
import { ApiError } from "../http/index.ts";

/**
 * Content-addressed artifact store. An artifact is a JSON value; its block is the RFC 8785
 * canonical JSON bytes, its id a CIDv1 with the `json` codec (0x0200) and a sha2-256 multihash
 * of those bytes — so any IPFS node that imports the block (from the CAR export) serves it under
 * the same CID. Blocks live on disk at `<dataDir>/artifacts/blocks/<last 2 chars>/<cid>`, written
 * atomically (temp file + rename); every read re-hashes the block, so a corrupted file is an
 * error, never wrong content.
 */

export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface StoredArtifact {
  cid: string;
  value: JsonValue;
  bytes: Uint8Array;
}

export interface ArtifactStore {
  readonly root: string;
  putArtifact(value: unknown): Promise<string>;
  /** Undefined when the store has no block for this CID. */
  getArtifact(cid: string): Promise<StoredArtifact | undefined>;
  hasArtifact(cid: string): Promise<boolean>;
  /** CARv1 bytes with `cids` as roots and their blocks, in order. 404 if any is missing. */
  exportCar(cids: readonly string[]): Promise<Uint8Array>;
}

/** Parses a CID as a client sent it; a 400 naming it when it is not one. */
export function parseCid(input: unknown, field = "cid"): CID {
  if (typeof input !== "string" || input.length === 0 || input.length > 200) {
    throw new ApiError(400, "INVALID_CID", `${field} must be a CID string`);
  }
  try {
    return CID.parse(input);
  } catch {
    throw new ApiError(400, "INVALID_CID", `${field} "${input.slice(0, 120)}" is not a valid CID`);
  }
}

/** The block bytes and CID of a JSON value, without storing it. */
export async function encodeArtifact(value: unknown): Promise<{ cid: CID; bytes: Uint8Array }> {
  const text = canonicalJson(value);
  const bytes = new TextEncoder().encode(text);
  const digest = await sha256.digest(bytes);
  return { cid: CID.createV1(json.code, digest), bytes };
}

function canonicalJson(value: unknown): string {
  assertJson(value, "$");
  const text = canonicalize(value);
  if (text === undefined)
    throw new ApiError(400, "INVALID_ARTIFACT", "an artifact must be a JSON value");
  return text;
}

function assertJson(value: unknown, where: string): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new ApiError(400, "INVALID_ARTIFACT", `${where} is not a finite number`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => assertJson(v, `${where}[${i}]`));
    return;
  }
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) assertJson(v, `${where}.${k}`);
    return;
  }
  throw new ApiError(
    400,
    "INVALID_ARTIFACT",
    `${where} is a ${typeof value}, not JSON (encode big integers as decimal strings)`,
  );
}

export function openArtifactStore(dataDir: string): ArtifactStore {
  const root = path.join(dataDir, "artifacts", "blocks");
  const fileOf = (cid: CID): string => {
    const text = cid.toString();
    return path.join(root, text.slice(-2), text);
  };

  async function readBlock(cid: CID): Promise<Uint8Array | undefined> {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(fileOf(cid));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    const digest = await sha256.digest(bytes);
    if (cid.multihash.code !== sha256.code || !equalBytes(digest.digest, cid.multihash.digest)) {
      throw new Error(`artifact block ${cid} on disk does not hash to its CID (corrupted store)`);
    }
    return bytes;
  }

  return {
    root,
    async putArtifact(value) {
      const { cid, bytes } = await encodeArtifact(value);
      const file = fileOf(cid);
      if (await exists(file)) return cid.toString();
      await mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
      await writeFile(temp, bytes);
      await rename(temp, file);
      return cid.toString();
    },
    async getArtifact(text) {
      const cid = parseCid(text);
      if (cid.code !== json.code || cid.version !== 1) return undefined;
      const bytes = await readBlock(cid);
      if (!bytes) return undefined;
      return { cid: cid.toString(), value: json.decode(bytes) as JsonValue, bytes };
    },
    async hasArtifact(text) {
      const cid = parseCid(text);
      return cid.code === json.code && (await exists(fileOf(cid)));
    },
    async exportCar(texts) {
      const cids = [...new Set(texts)].map((t, i) => parseCid(t, `cids[${i}]`));
      const blocks: { cid: CID; bytes: Uint8Array }[] = [];
      for (const cid of cids) {
        const bytes = cid.code === json.code ? await readBlock(cid) : undefined;
        if (!bytes) throw new ApiError(404, "ARTIFACT_NOT_FOUND", `no stored artifact ${cid}`);
        blocks.push({ cid, bytes });
      }
      const { writer, out } = CarWriter.create(cids);
      const collected = (async () => {
        const chunks: Uint8Array[] = [];
        for await (const chunk of out) chunks.push(chunk);
        return Buffer.concat(chunks);
      })();
      for (const block of blocks) await writer.put(block);
      await writer.close();
      return new Uint8Array(await collected);
    },
  };
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
