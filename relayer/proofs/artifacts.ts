import { CID } from "multiformats/cid";
import { sha256 as sha256Hasher } from "multiformats/hashes/sha2";
import * as snarkjs from "snarkjs";
import { ArtifactInputError } from "./errors.ts";
import { toSolidityProof, type SolidityProof } from "./execution.ts";
import { loadPoseidon } from "./field.ts";
import { loadCircuit, loadVerificationKey, withProverThreads } from "./keys.ts";

/** Dimensions of `circuits/src/artifacts.circom` (`Artifacts(5)`). */
export const ARTIFACT_TREE_DEPTH = 5;
export const MAX_ARTIFACTS = 2 ** ARTIFACT_TREE_DEPTH;

/** Where one artifact sits in the tree: enough to recompute the root from its CID alone. */
export type ArtifactInclusion = {
  cid: string;
  index: number;
  /** Poseidon(digestHigh, digestLow), decimal. */
  leaf: string;
  /** Sibling hashes from the leaf level up, decimal. */
  siblings: string[];
};

export type ArtifactsProof = {
  /** Poseidon Merkle root over the artifacts' digests, decimal (public signal 0). */
  root: string;
  /** Number of artifacts (public signal 1). */
  count: number;
  proof: snarkjs.Groth16Proof;
  /** [root, count] as decimal strings. */
  publicSignals: [string, string];
  /** Arguments of `ArtifactsGroth16Verifier.verifyProof(a, b, c, publicSignals)`. */
  solidityProof: SolidityProof;
  inclusions: ArtifactInclusion[];
};

/**
 * A CID's sha2-256 digest as two 128-bit big-endian halves. Any CID version and codec is
 * accepted; the hash must be sha2-256 (what `putArtifact` produces).
 */
export function cidDigestLimbs(cid: string): [bigint, bigint] {
  let parsed: CID;
  try {
    parsed = CID.parse(cid);
  } catch (err) {
    throw new ArtifactInputError(`not a CID: ${JSON.stringify(cid)} (${(err as Error).message})`, {
      cid,
    });
  }
  if (parsed.multihash.code !== sha256Hasher.code || parsed.multihash.digest.length !== 32) {
    throw new ArtifactInputError(
      `CID ${cid} is not sha2-256; only sha2-256 artifacts can be proved`,
      {
        cid,
      },
    );
  }
  const hex = Buffer.from(parsed.multihash.digest).toString("hex");
  return [BigInt("0x" + hex.slice(0, 32)), BigInt("0x" + hex.slice(32))];
}

function checkCids(cids: readonly string[]): void {
  if (!Array.isArray(cids) || cids.length === 0) {
    throw new ArtifactInputError("at least one artifact CID is required");
  }
  if (cids.length > MAX_ARTIFACTS) {
    throw new ArtifactInputError(
      `${cids.length} artifacts; one proof covers at most ${MAX_ARTIFACTS} (split the list)`,
    );
  }
  const seen = new Set<string>();
  for (const cid of cids) {
    const key = cidDigestLimbs(cid).join(":");
    if (seen.has(key)) throw new ArtifactInputError(`artifact ${cid} is listed twice`, { cid });
    seen.add(key);
  }
}

/** Every level of the tree, leaves first; unused leaves are 0 as in the circuit. */
async function buildTree(cids: readonly string[]): Promise<bigint[][]> {
  const poseidon = await loadPoseidon();
  const hash = (inputs: bigint[]) => poseidon.F.toObject(poseidon(inputs));
  const leaves = Array.from({ length: MAX_ARTIFACTS }, (_, i) =>
    i < cids.length ? hash(cidDigestLimbs(cids[i]!)) : 0n,
  );
  const levels = [leaves];
  while (levels[levels.length - 1]!.length > 1) {
    const below = levels[levels.length - 1]!;
    const above: bigint[] = [];
    for (let i = 0; i < below.length; i += 2) above.push(hash([below[i]!, below[i + 1]!]));
    levels.push(above);
  }
  return levels;
}

/** The Poseidon Merkle root the artifact circuit computes for these CIDs, in this order. */
export async function artifactsRoot(cids: readonly string[]): Promise<bigint> {
  checkCids(cids);
  const levels = await buildTree(cids);
  return levels[levels.length - 1]![0]!;
}

/** Recomputes the root from one artifact's CID and inclusion path. */
export async function verifyArtifactInclusion(
  root: string | bigint,
  inclusion: ArtifactInclusion,
): Promise<boolean> {
  const poseidon = await loadPoseidon();
  const hash = (inputs: bigint[]) => poseidon.F.toObject(poseidon(inputs));
  if (inclusion.siblings.length !== ARTIFACT_TREE_DEPTH) return false;
  if (
    !Number.isInteger(inclusion.index) ||
    inclusion.index < 0 ||
    inclusion.index >= MAX_ARTIFACTS
  ) {
    return false;
  }
  let node = hash(cidDigestLimbs(inclusion.cid));
  let index = inclusion.index;
  for (const sibling of inclusion.siblings) {
    node = index % 2 === 0 ? hash([node, BigInt(sibling)]) : hash([BigInt(sibling), node]);
    index = Math.floor(index / 2);
  }
  return node === BigInt(root);
}

/**
 * Proves that a Poseidon Merkle root commits to exactly these artifacts (in this order) and
 * their count; returns the proof and an inclusion path per CID. Throws `ArtifactInputError`
 * (400) for an empty list, more than 32 CIDs, a duplicate, or a CID that is not sha2-256.
 */
export async function proveArtifacts(cids: readonly string[]): Promise<ArtifactsProof> {
  checkCids(cids);
  const [levels, circuit] = await Promise.all([buildTree(cids), loadCircuit("artifacts")]);
  const digests = Array.from({ length: MAX_ARTIFACTS }, (_, i) =>
    i < cids.length ? cidDigestLimbs(cids[i]!).map(String) : ["0", "0"],
  );
  const witness = await circuit.calculateWitness({ count: String(cids.length), digests });
  const { proof, publicSignals } = await withProverThreads(() =>
    snarkjs.groth16.prove(circuit.zkey, witness),
  );
  const root = levels[levels.length - 1]![0]!.toString();
  if (publicSignals[0] !== root || publicSignals[1] !== String(cids.length)) {
    throw new Error("artifact circuit and relayer/proofs/artifacts.ts disagree on the root");
  }
  const inclusions = cids.map((cid, index) => ({
    cid,
    index,
    leaf: levels[0]![index]!.toString(),
    siblings: levels.slice(0, -1).map((level, depth) => level[(index >> depth) ^ 1]!.toString()),
  }));
  return {
    root,
    count: cids.length,
    proof,
    publicSignals: [root, String(cids.length)],
    solidityProof: toSolidityProof(proof),
    inclusions,
  };
}

/** Verifies an artifacts proof off chain against the committed verification key. */
export async function verifyArtifactsProof(
  proof: snarkjs.Groth16Proof,
  publicSignals: readonly string[],
): Promise<boolean> {
  if (publicSignals.length !== 2) return false;
  try {
    const vkey = await loadVerificationKey("artifacts");
    return await withProverThreads(() =>
      snarkjs.groth16.verify(vkey, publicSignals, proof, silent),
    );
  } catch {
    return false;
  }
}

const silent = { info() {}, debug() {}, warn() {}, error() {} };
