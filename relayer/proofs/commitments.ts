import {
  AMOUNT_BITS,
  MULTISEND_RECIPIENTS,
  encodeClaim,
  type EncodedExecution,
  type EncodedSlot,
  type ExecutionClaim,
} from "./claim.ts";
import { loadPoseidon } from "./field.ts";

/**
 * The execution circuit's public signals, recomputed in TypeScript with circomlibjs Poseidon
 * (the permutation circomlib's circuits use), packing inputs exactly as `action.circom` does:
 *
 *   workflowLeaf        = Poseidon(type + 8·bps, amountIn + 2^96·feeCap, digestHi, digestLo,
 *                                  r0 + 2^96·r1, r2 + 2^96·r3)
 *   executionLeaf       = Poseidon(amountOut + 2^96·quoted, tx0Hi, tx0Lo, tx1Hi, tx1Lo)
 *   workflowCommitment  = Poseidon(salt, workflowLeaf[0..7])
 *   executionCommitment = Poseidon(workflowCommitment, executionIdHi, executionIdLo, salt,
 *                                  executionLeaf[0..7])
 */
export type ExecutionCommitments = {
  workflowCommitment: bigint;
  executionCommitment: bigint;
};

const SHIFT = 1n << BigInt(AMOUNT_BITS);

function workflowLeafInputs(slot: EncodedSlot): bigint[] {
  const inputs = [
    slot.actionType + slot.slippageBps * 8n,
    slot.amountIn + slot.feeCap * SHIFT,
    slot.paramsDigest[0],
    slot.paramsDigest[1],
  ];
  for (let r = 0; r < MULTISEND_RECIPIENTS; r += 2) {
    inputs.push(slot.recipients[r]! + (slot.recipients[r + 1] ?? 0n) * SHIFT);
  }
  return inputs;
}

function executionLeafInputs(slot: EncodedSlot): bigint[] {
  return [slot.amountOut + slot.quoted * SHIFT, ...slot.txHashes[0], ...slot.txHashes[1]];
}

/** Both commitments of an already encoded execution. */
export async function commitmentsOfEncoded(
  encoded: EncodedExecution,
): Promise<ExecutionCommitments> {
  const poseidon = await loadPoseidon();
  const hash = (inputs: bigint[]) => poseidon.F.toObject(poseidon(inputs));
  const workflowLeaves = encoded.slots.map((slot) => hash(workflowLeafInputs(slot)));
  const executionLeaves = encoded.slots.map((slot) => hash(executionLeafInputs(slot)));
  const workflowCommitment = hash([encoded.salt, ...workflowLeaves]);
  const executionCommitment = hash([
    workflowCommitment,
    encoded.executionId[0],
    encoded.executionId[1],
    encoded.salt,
    ...executionLeaves,
  ]);
  return { workflowCommitment, executionCommitment };
}

/** Both public commitments of a claim (what `attest` records on chain). */
export function computeCommitments(claim: ExecutionClaim): Promise<ExecutionCommitments> {
  return commitmentsOfEncoded(encodeClaim(claim));
}

/** Poseidon commitment to the workflow as submitted (type, amounts in, slippage, fee caps, recipients, parameter digests). */
export async function workflowCommitment(claim: ExecutionClaim): Promise<bigint> {
  return (await computeCommitments(claim)).workflowCommitment;
}

/** Poseidon commitment to the execution's results and transaction hashes, bound to the workflow commitment and execution id. */
export async function executionCommitment(claim: ExecutionClaim): Promise<bigint> {
  return (await computeCommitments(claim)).executionCommitment;
}
