import { Contract, toBeHex, type EventLog, type Log } from "ethers";
import type { EngineStore } from "../accounts/index.ts";
import { TxJournal } from "../execution/transactions.ts";
import { ApiError } from "../http/index.ts";
import {
  MAX_ARTIFACTS,
  proveArtifacts,
  verifyArtifactsProof,
  type ArtifactInclusion,
  type SolidityProof,
} from "../proofs/index.ts";
import type { RoutingChain } from "../routing/index.ts";
import type { Artifacts } from "./service.ts";
import { CONTRACT_NAMES } from "../deployments/index.ts";

/**
 * `/zk/generate`: a Groth16 proof that a Poseidon Merkle root commits to a list of stored
 * artifacts, verified off chain (and on chain when the chain has the artifacts verifier), with the
 * root anchored in the ProofRegistry (`anchorBatch(root, count, "")`). The batch's manifest (the
 * CIDs in order, the tree's construction) is stored as an artifact of the caller's key, and the
 * anchor carries no pointer to it: the URI is empty, so the chain shows a root and a count that
 * only whoever holds the CIDs can connect to them. Anchoring is idempotent per root: a root
 * already anchored is answered with its existing anchor. Each call is charged to the key's
 * proving quota after its input is validated and before anything is proved.
 */

export const PROOF_REGISTRY = CONTRACT_NAMES.proofRegistry;
export const ARTIFACTS_VERIFIER = "ArtifactsGroth16Verifier";
export const MANIFEST_TYPE = "veriflow.artifact-batch/v1";

export interface AnchorRecord {
  chain_id: number;
  chain: string;
  registry: string;
  hash: string;
  block_number: number;
  batch_id: number;
  uri: string;
}

export interface ArtifactBatchResult {
  /** The Poseidon root as the bytes32 anchored on chain. */
  root: string;
  count: number;
  proof: unknown;
  /** [root, count], decimal (the circuit's public signals). */
  public_signals: string[];
  /** Whether the chain's `ArtifactsGroth16Verifier` accepted the proof (null: none deployed). */
  verified_on_chain: boolean | null;
  anchor_tx: AnchorRecord;
  /** Per CID: its leaf index, leaf hash and the sibling hashes up to the root (decimal). */
  inclusion: Record<string, Omit<ArtifactInclusion, "cid">>;
  /** CID of the batch manifest, an artifact of the caller's key (not published on chain). */
  manifest: string;
}

/**
 * Validates the requested CIDs: each a CID (400 naming it), none repeated, of an artifact the key
 * may read (404 naming it, as for one nobody stores).
 */
export async function checkRequestedArtifacts(
  artifacts: Artifacts,
  apiKeyId: string,
  cids: readonly string[],
  field: string,
): Promise<string[]> {
  if (cids.length === 0)
    throw new ApiError(400, "INVALID_ARTIFACTS", `${field} must list at least one CID`);
  if (cids.length > MAX_ARTIFACTS) {
    throw new ApiError(
      400,
      "INVALID_ARTIFACTS",
      `${field} lists ${cids.length} CIDs; one proof covers at most ${MAX_ARTIFACTS}`,
    );
  }
  const normalised = await artifacts.requireReadable(cids, apiKeyId, field);
  const seen = new Map<string, number>();
  normalised.forEach((cid, i) => {
    const first = seen.get(cid);
    if (first !== undefined) {
      throw new ApiError(
        400,
        "INVALID_ARTIFACTS",
        `${field}[${i}] repeats ${field}[${first}] (${cid})`,
      );
    }
    seen.set(cid, i);
  });
  return normalised;
}

/** The chain whose ProofRegistry anchors batches: `chainId` if given, else the first that has one. */
export function registryChain<T extends RoutingChain>(chains: readonly T[], chainId?: number): T {
  const candidates = chains.filter((c) => c.deployment.contracts[PROOF_REGISTRY] !== undefined);
  const chosen =
    chainId === undefined ? candidates[0] : candidates.find((c) => c.chainId === chainId);
  if (!chosen) {
    throw new ApiError(
      chainId === undefined ? 503 : 400,
      chainId === undefined ? "REGISTRY_UNAVAILABLE" : "UNKNOWN_CHAIN",
      chainId === undefined
        ? "no configured chain has a ProofRegistry to anchor the root"
        : `chain_id ${chainId} has no ProofRegistry (chains with one: ${candidates.map((c) => c.chainId).join(", ") || "none"})`,
    );
  }
  return chosen;
}

export interface ArtifactBatchDeps {
  artifacts: Artifacts;
  engineStore: EngineStore;
  chain: RoutingChain;
  /** The caller: the CIDs must be readable by it, the manifest is its artifact. */
  apiKeyId: string;
  /** Charges one proof to the caller's quota (throws when spent); called once the input is valid. */
  chargeProof: () => Promise<void>;
}

export async function generateArtifactBatch(
  deps: ArtifactBatchDeps,
  requested: readonly string[],
  field = "artifacts",
): Promise<ArtifactBatchResult> {
  const cids = await checkRequestedArtifacts(deps.artifacts, deps.apiKeyId, requested, field);
  await deps.chargeProof();
  const proved = await proveArtifacts(cids);
  if (!(await verifyArtifactsProof(proved.proof, proved.publicSignals))) {
    throw new ApiError(
      500,
      "PROOF_INVALID",
      "the artifact proof failed its own off-chain verification",
    );
  }
  const rootBytes = toBeHex(BigInt(proved.root), 32);
  const verifiedOnChain = await verifyOnChain(
    deps.chain,
    proved.solidityProof,
    proved.publicSignals,
  );
  if (verifiedOnChain === false) {
    throw new ApiError(
      500,
      "PROOF_INVALID",
      "the chain's ArtifactsGroth16Verifier rejected the proof",
    );
  }
  const manifest = await deps.artifacts.putArtifact(
    {
      type: MANIFEST_TYPE,
      tree: {
        hash: "poseidon",
        depth: Math.log2(MAX_ARTIFACTS),
        leaf: "Poseidon(sha256 digest of the CID's multihash: high 128 bits, low 128 bits); unused leaves 0",
        node: "Poseidon(left, right)",
      },
      root: proved.root,
      count: proved.count,
      artifacts: cids,
    },
    { apiKeyId: deps.apiKeyId, kind: "manifest" },
  );
  const anchor = await anchorRoot(deps, rootBytes, proved.count, "");
  return {
    root: rootBytes,
    count: proved.count,
    proof: proved.proof,
    public_signals: [...proved.publicSignals],
    verified_on_chain: verifiedOnChain,
    anchor_tx: anchor,
    inclusion: Object.fromEntries(proved.inclusions.map(({ cid, ...path }) => [cid, path])),
    manifest,
  };
}

async function verifyOnChain(
  chain: RoutingChain,
  proof: SolidityProof,
  publicSignals: readonly string[],
): Promise<boolean | null> {
  if (!chain.deployment.contracts[ARTIFACTS_VERIFIER]) return null;
  const verifier = chain.contract(ARTIFACTS_VERIFIER);
  return (await verifier
    .getFunction("verifyProof")
    .staticCall(proof.a, proof.b, proof.c, publicSignals)) as boolean;
}

async function anchorRoot(
  deps: { engineStore: EngineStore; chain: RoutingChain },
  root: string,
  count: number,
  uri: string,
): Promise<AnchorRecord> {
  const { chain } = deps;
  const registry = chain.contract(PROOF_REGISTRY);
  const registryAddress = chain.deployment.contracts[PROOF_REGISTRY]!.address;
  const existing = (await registry.getFunction("batchOf")(root)) as { batchId: bigint };
  if (existing.batchId !== 0n)
    return findAnchor(chain, registry, registryAddress, existing.batchId);

  if (!chain.operator)
    throw new ApiError(503, "REGISTRY_UNAVAILABLE", `no operator key on ${chain.name}`);
  const operator = chain.operator;
  const data = registry.interface.encodeFunctionData("anchorBatch", [root, count, uri]);
  // Through the engine's journal: one nonce sequence for the operator, and a retried request for
  // the same root resumes the stored transaction instead of signing a second one.
  const sent = await new TxJournal(deps.engineStore).sendCall(
    chain,
    operator,
    { executionId: `zk_${root}`, actionIndex: 0, slot: "anchor" },
    "attest",
    { to: registryAddress, data },
    // units 0 keeps the anchor's gas apart from the engine's attestation baseline (units 1).
    { units: 0 },
  );
  if (sent.status !== "confirmed") {
    throw new ApiError(
      502,
      "ANCHOR_FAILED",
      `anchorBatch reverted on ${chain.name} (tx ${sent.hash})`,
    );
  }
  const event = sent.receipt.logs
    .map((log) => parseAnchored(registry, log))
    .find((e) => e !== undefined);
  return {
    chain_id: chain.chainId,
    chain: chain.name,
    registry: registryAddress,
    hash: sent.hash,
    block_number: sent.receipt.blockNumber,
    batch_id: Number(event?.batchId ?? 0n),
    uri,
  };
}

function parseAnchored(registry: Contract, log: Log): { batchId: bigint; uri: string } | undefined {
  try {
    const parsed = registry.interface.parseLog(log);
    if (parsed?.name !== "BatchAnchored") return undefined;
    return {
      batchId: parsed.args.getValue("batchId") as bigint,
      uri: parsed.args.getValue("uri") as string,
    };
  } catch {
    return undefined;
  }
}

async function findAnchor(
  chain: RoutingChain,
  registry: Contract,
  address: string,
  batchId: bigint,
): Promise<AnchorRecord> {
  const fromBlock = chain.deployment.contracts[PROOF_REGISTRY]!.blockNumber;
  const logs = (await registry.queryFilter(
    registry.filters.BatchAnchored!(batchId),
    fromBlock,
  )) as EventLog[];
  const log = logs[0];
  if (!log)
    throw new ApiError(
      500,
      "ANCHOR_NOT_FOUND",
      `batch ${batchId} is anchored but its event was not found`,
    );
  return {
    chain_id: chain.chainId,
    chain: chain.name,
    registry: address,
    hash: log.transactionHash,
    block_number: log.blockNumber,
    batch_id: Number(batchId),
    uri: log.args.getValue("uri") as string,
  };
}
