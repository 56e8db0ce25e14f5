import { randomBytes } from "node:crypto";
import canonicalize from "canonicalize";
import { keccak256, sha256, toUtf8Bytes } from "ethers";
import { buildPoseidon, type Poseidon } from "circomlibjs";

/** The BN254 scalar field: every circuit signal lives in it. */
export const FIELD_MODULUS =
  21888242871839275222246405745257275088548364400416034343698204186575808495617n;

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const LIMB_BITS = 128n;
const LIMB_MASK = (1n << LIMB_BITS) - 1n;

export function isBytes32(value: string): boolean {
  return BYTES32.test(value);
}

/** Splits 32 bytes into two 128-bit big-endian halves `[high, low]`, each below the field modulus. */
export function bytes32ToLimbs(value: string): [bigint, bigint] {
  if (!isBytes32(value)) throw new Error(`not a 32-byte hex value: ${value}`);
  const n = BigInt(value);
  return [n >> LIMB_BITS, n & LIMB_MASK];
}

export function limbsToBytes32([high, low]: readonly [bigint, bigint]): string {
  return "0x" + ((high << LIMB_BITS) | low).toString(16).padStart(64, "0");
}

/**
 * The bytes32 key an execution is attested under: ids that already are 32-byte hex stay as they
 * are, any other id (the relayer's `wf_...`) is keccak256 of its UTF-8 text.
 */
export function executionIdToBytes32(executionId: string): string {
  if (isBytes32(executionId)) return executionId.toLowerCase();
  if (executionId.length === 0) throw new Error("empty execution id");
  return keccak256(toUtf8Bytes(executionId));
}

/**
 * sha-256 of a value's RFC 8785 canonical JSON: how the workflow as submitted (and each of its
 * actions, with every field: assets, chains, protocol, amounts, percentages, recipients) enters
 * the workflow commitment.
 */
export function canonicalDigest(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error("value is not JSON-serialisable");
  return sha256(toUtf8Bytes(text));
}

/**
 * The execution circuit's public input for an execution id: keccak256 of its bytes32 form,
 * shifted right by 4 bits to fit the field. `ExecutionAttestor` computes the same from the id it
 * records a proof under, so a proof holds for that one id.
 */
export function executionIdSignal(executionId: string): bigint {
  return BigInt(keccak256(executionIdToBytes32(executionId))) >> 4n;
}

/** A uniformly random field element: the blinding salt of one execution's commitments. */
export function randomSalt(): bigint {
  // 64 random bytes reduced mod p: the bias is below 2^-256.
  return BigInt("0x" + randomBytes(64).toString("hex")) % FIELD_MODULUS;
}

let poseidonPromise: Promise<Poseidon> | null = null;

/** circomlibjs Poseidon (the same permutation and constants as circomlib's circuits), built once. */
export function loadPoseidon(): Promise<Poseidon> {
  poseidonPromise ??= buildPoseidon();
  return poseidonPromise;
}

export async function poseidonHash(inputs: readonly bigint[]): Promise<bigint> {
  const poseidon = await loadPoseidon();
  return poseidon.F.toObject(poseidon(inputs));
}
