import { recoverAddress, type Contract, type EventLog } from "ethers";
import { interactionDigest, interactionDomain } from "./anchor.ts";

/**
 * The auditor's check of an interaction from the chain alone (no relayer database): given the
 * registry address and what the report lists.
 *
 * - immediate: `records(requestId)` must hold the endpoint and response hashes; the APILogged event
 *   of that requestId carries the signature, whose EIP-712 signer (the registry's domain: its chain
 *   id and address) must hold SIGNER_ROLE;
 * - batched: `verifyInteraction(root, proof, endpointHash, responseHash, timestamp)` must be true
 *   (the root anchored by anchorBatch, the leaf proof from the report or the interactions endpoint).
 */

export interface InteractionClaim {
  registry: string;
  endpoint_hash: string;
  response_hash: string;
  observed_at: number;
  mode: "immediate" | "batch";
  request_id: string | null;
  batch: { root: string; proof: string[] } | null;
}

export interface ChainVerification {
  valid: boolean;
  reason?: string;
  /** immediate: the recovered signer (holding SIGNER_ROLE when valid); block time of the record. */
  signer?: string;
  timestamp?: number;
}

/** `registry`: the ProofRegistry at `claim.registry` (its deployment ABI, any provider). */
export async function verifyInteractionOnChain(
  registry: Contract,
  claim: InteractionClaim,
): Promise<ChainVerification> {
  if ((await registry.getAddress()).toLowerCase() !== claim.registry.toLowerCase())
    return { valid: false, reason: `the claim names registry ${claim.registry}` };
  if (claim.mode === "batch") {
    if (!claim.batch) return { valid: false, reason: "not anchored yet (no batch root)" };
    const ok = (await registry.getFunction("verifyInteraction")(
      claim.batch.root,
      claim.batch.proof,
      claim.endpoint_hash,
      claim.response_hash,
      claim.observed_at,
    )) as boolean;
    return ok ? { valid: true } : { valid: false, reason: "verifyInteraction returned false" };
  }
  if (!claim.request_id) return { valid: false, reason: "not anchored yet (no requestId)" };
  const record = (await registry.getFunction("records")(claim.request_id)) as [
    string,
    string,
    bigint,
  ];
  if (record[0] !== claim.endpoint_hash || record[1] !== claim.response_hash)
    return { valid: false, reason: "records(requestId) does not hold these hashes" };
  const [event] = (await registry.queryFilter(
    registry.filters.APILogged!(claim.request_id),
  )) as EventLog[];
  if (!event) return { valid: false, reason: "no APILogged event for the requestId" };
  const { chainId } = await registry.runner!.provider!.getNetwork();
  const signer = recoverAddress(
    interactionDigest(
      interactionDomain(chainId, claim.registry),
      claim.endpoint_hash,
      claim.response_hash,
    ),
    event.args.getValue("sig") as string,
  );
  const role = (await registry.getFunction("SIGNER_ROLE")()) as string;
  if (!((await registry.getFunction("hasRole")(role, signer)) as boolean))
    return { valid: false, reason: `signer ${signer} lacks SIGNER_ROLE`, signer };
  return { valid: true, signer, timestamp: Number(record[2]) };
}
