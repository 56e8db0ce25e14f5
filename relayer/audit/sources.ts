import { CarReader } from "@ipld/car";
import canonicalize from "canonicalize";
import { CID } from "multiformats/cid";
import * as json from "multiformats/codecs/json";
import { sha256 } from "multiformats/hashes/sha2";
import { AuditInputError } from "./input.ts";

/**
 * Where the auditor can read a report besides a JSON file: by CID from an artifact store
 * (`GET /artifacts/{cid}`) or from a CAR file (`GET /artifacts/{cid}/car`, `POST /artifacts/car`).
 * The CID to give is the signed report's (`signed_cid` of GET /v1/workflows/{id}): the relayer
 * stores the report body under `artifact_id` (the CID it signs) and the signed report, body plus
 * `artifact_id`, `signer` and `signature`, under `signed_cid`. Whoever serves the bytes is not
 * trusted: the block must hash to the CID asked for (the `source` check). No Node API: the
 * browser auditor uses this module too.
 */

/** Where the report came from, and whether its bytes are the CID's (the `source` check). */
export interface AuditSource {
  cid: string;
  ok: boolean;
  reason: string;
}

export interface SourcedInput {
  input: unknown;
  source: AuditSource;
}

function parseCid(text: string): CID {
  try {
    return CID.parse(text.trim());
  } catch {
    throw new AuditInputError(`"${text.slice(0, 100)}" is not a CID`);
  }
}

/** Whether `text` is a CID string (the audit command's input may be a CID or a file name). */
export function isCid(text: string): boolean {
  try {
    CID.parse(text.trim());
    return true;
  } catch {
    return false;
  }
}

/**
 * The signed report in a block read for `cid` (`where` names the source in messages). A block
 * that does not hash to `cid` is still audited, with a failing `source` check: it is a forgery
 * or a corruption, not a usage error.
 */
export async function reportFromBlock(
  cid: CID,
  bytes: Uint8Array,
  where: string,
): Promise<SourcedInput> {
  if (cid.version !== 1 || cid.code !== json.code || cid.multihash.code !== sha256.code)
    throw new AuditInputError(
      `${cid} is not a Veriflow artifact CID (CIDv1, json codec, sha2-256)`,
    );
  let input: unknown;
  try {
    input = json.decode(bytes);
  } catch {
    throw new AuditInputError(`the block ${where} for ${cid} is not JSON`);
  }
  if (isUnsignedBody(input))
    throw new AuditInputError(
      `${cid} is a report body (its artifact_id), which cannot contain its own signature: audit the signed report's CID (signed_cid of GET /v1/workflows/{id})`,
    );
  const digest = await sha256.digest(bytes);
  const actual = CID.createV1(json.code, digest);
  const ok = actual.equals(cid);
  return {
    input,
    source: {
      cid: cid.toString(),
      ok,
      reason: ok
        ? `read ${where}; its bytes hash to ${cid}`
        : `the block ${where} hashes to ${actual}, not to ${cid}: its bytes were changed`,
    },
  };
}

function isUnsignedBody(value: unknown): boolean {
  const v = value as Record<string, unknown> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    v.kind === "veriflow.execution-report" &&
    v.signature === undefined &&
    v.artifact_id === undefined
  );
}

/**
 * The signed report in a CAR file: the block of `cid`, or of the CAR's only root. The CAR
 * format does not check that a block's bytes hash to the CID it is stored under; this does.
 */
export async function reportFromCar(bytes: Uint8Array, cid?: string): Promise<SourcedInput> {
  let reader: CarReader;
  try {
    reader = await CarReader.fromBytes(bytes);
  } catch (err) {
    throw new AuditInputError(`not a CAR file: ${(err as Error).message}`);
  }
  const roots = await reader.getRoots();
  let wanted: CID;
  if (cid !== undefined) wanted = parseCid(cid);
  else if (roots.length === 1) wanted = roots[0]!;
  else
    throw new AuditInputError(
      `the CAR file has ${roots.length} roots (${roots.join(", ")}): choose one with --cid`,
    );
  const block = await reader.get(wanted);
  if (!block) throw new AuditInputError(`the CAR file holds no block ${wanted}`);
  return reportFromBlock(wanted, block.bytes, "from the CAR file");
}

export type Fetch = (url: string, init: { headers: Record<string, string> }) => Promise<Response>;

/**
 * The signed report stored under `cid` in a relayer's artifact store (`GET {base}/artifacts/{cid}`,
 * whose body is the block's canonical JSON). `headers` authenticates the read (the relayer scopes
 * artifacts to their owner): the owner's request signature.
 */
export async function reportFromArtifactStore(
  base: string,
  cidText: string,
  headers: Record<string, string>,
  fetcher: Fetch = fetch,
): Promise<SourcedInput> {
  const cid = parseCid(cidText);
  const url = `${base.replace(/\/+$/, "")}/artifacts/${cid}`;
  let response: Response;
  try {
    response = await fetcher(url, { headers });
  } catch (err) {
    throw new AuditInputError(`cannot fetch ${url}: ${(err as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok) {
    let detail = text.slice(0, 300);
    try {
      const body = JSON.parse(text) as { error?: string; detail?: string };
      if (body.error) detail = `${body.error}: ${body.detail ?? ""}`;
    } catch {
      // Not an error body: the text as it came.
    }
    throw new AuditInputError(`GET ${url} answered ${response.status}: ${detail}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AuditInputError(`GET ${url} did not answer JSON`);
  }
  // The block is the RFC 8785 canonical form of the value (relayer/artifacts/store.ts).
  const canonical = canonicalize(value);
  if (canonical === undefined) throw new AuditInputError(`GET ${url} did not answer JSON`);
  return reportFromBlock(cid, new TextEncoder().encode(canonical), `from ${url}`);
}
