import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import * as CarBuffer from "@ipld/car/buffer-writer";
import canonicalize from "canonicalize";
import { varint } from "multiformats";
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
 * error, never wrong content. This module knows blocks only: who owns them and may read them is
 * `./service.ts` over `./owners.ts`.
 */

export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface StoredArtifact {
  cid: string;
  value: JsonValue;
  bytes: Uint8Array;
}

/** A CARv1 export: its exact size, known before the first byte, and its bytes as a stream. */
export interface CarExport {
  bytes: number;
  stream: ReadableStream<Uint8Array>;
}

export interface ArtifactStore {
  readonly root: string;
  /** Writes the block of an encoded artifact unless present (callers hold the CID's lock). */
  putBlock(block: { cid: CID; bytes: Uint8Array }): Promise<void>;
  /** Removes a block (callers checked, under the CID's lock, that no owner is left). */
  deleteBlock(cid: string): Promise<void>;
  /** Undefined when the store has no block for this CID. */
  getArtifact(cid: string): Promise<StoredArtifact | undefined>;
  hasArtifact(cid: string): Promise<boolean>;
  /**
   * CARv1 with `cids` as roots and their blocks, in order, streamed one block at a time from disk
   * (memory stays at one block whatever the export's size). Sizes are read first: 404 naming a
   * missing CID, 400 CAR_TOO_LARGE beyond `maxBytes`, both before the first byte.
   */
  exportCar(cids: readonly string[], maxBytes: number): Promise<CarExport>;
}

export const CAR_TOO_LARGE = "CAR_TOO_LARGE";

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
    async putBlock({ cid, bytes }) {
      const file = fileOf(cid);
      if (await exists(file)) return;
      await mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
      await writeFile(temp, bytes);
      await rename(temp, file);
    },
    async deleteBlock(text) {
      await unlink(fileOf(parseCid(text))).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "ENOENT") throw err;
      });
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
    async exportCar(texts, maxBytes) {
      const cids = [...new Set(texts)].map((t, i) => parseCid(t, `cids[${i}]`));
      let total = CarBuffer.headerLength({ roots: cids });
      for (const cid of cids) {
        const size = cid.code === json.code ? await sizeOf(fileOf(cid)) : undefined;
        if (size === undefined)
          throw new ApiError(404, "ARTIFACT_NOT_FOUND", `no stored artifact ${cid}`, {
            cid: cid.toString(),
          });
        const frame = cid.bytes.byteLength + size;
        total += varint.encodingLength(frame) + frame;
      }
      if (total > maxBytes) {
        throw new ApiError(
          400,
          CAR_TOO_LARGE,
          `the CAR of these ${cids.length} artifacts would be ${total} bytes; one export carries at most ${maxBytes}: split the CIDs over several exports`,
          { size: total, limit: maxBytes },
        );
      }
      return { bytes: total, stream: ReadableStream.from(carFrames(cids, readBlock)) };
    },
  };
}

/** The CARv1 byte frames: the header, then per block varint(length) + CID + bytes. */
async function* carFrames(
  cids: readonly CID[],
  readBlock: (cid: CID) => Promise<Uint8Array | undefined>,
): AsyncGenerator<Uint8Array> {
  const header = CarBuffer.createWriter(
    new ArrayBuffer(CarBuffer.headerLength({ roots: [...cids] })),
    {
      roots: [...cids],
    },
  );
  yield CarBuffer.close(header);
  for (const cid of cids) {
    const bytes = await readBlock(cid);
    // Removed or corrupted since the sizes were read: the status is sent, so the only honest
    // answer left is to abort the response (the client sees a truncated body, never wrong bytes).
    if (!bytes) throw new Error(`artifact ${cid} disappeared during a CAR export`);
    const prefix = new Uint8Array(varint.encodingLength(cid.bytes.byteLength + bytes.byteLength));
    varint.encodeTo(cid.bytes.byteLength + bytes.byteLength, prefix);
    yield prefix;
    yield cid.bytes;
    yield bytes;
  }
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).size;
  } catch {
    return undefined;
  }
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
