import type { ExecutionVariant } from "./circuits.ts";
import {
  AMOUNT_BITS,
  MULTISEND_RECIPIENTS,
  encodeClaim,
  encodeWorkflow,
  type Amount,
  type EncodedExecution,
  type EncodedSlot,
  type EncodedWorkflow,
  type ExecutionClaim,
  type SubmittedWorkflow,
  type WorkflowSlot,
} from "./claim.ts";
import { loadPoseidon } from "./field.ts";

/**
 * The execution circuit's public signals, recomputed in TypeScript with circomlibjs Poseidon
 * (the permutation circomlib's circuits use), packing inputs exactly as `action.circom` does:
 *
 *   workflowLeaf        = Poseidon(type + 8·bps + 2^17·part, actionDigestHi, actionDigestLo)
 *   executionLeaf       = Poseidon(amountOut + 2^96·quoted, amountIn + 2^96·feeCap,
 *                                  r0 + 2^96·r1, r2 + 2^96·r3, tx0Hi, tx0Lo, tx1Hi, tx1Lo)
 *   workflowCommitment  = Poseidon(salt, workflowDigestHi, workflowDigestLo, workflowLeaf[0..S-1])
 *   executionCommitment = Poseidon(workflowCommitment, executionId, salt, executionLeaf[0..S-1])
 *   executionId         = keccak256(bytes32 id) >> 4                  (executionIdSignal)
 *
 * S is the variant's slot count (2, 4 or 8): the same workflow commits differently per variant,
 * so a commitment opens under one variant only.
 */
export type ExecutionCommitments = {
  workflowCommitment: bigint;
  executionCommitment: bigint;
  /** The public input the execution id becomes (`executionIdSignal`). */
  executionId: bigint;
};

const SHIFT = 1n << BigInt(AMOUNT_BITS);

function workflowLeafInputs(slot: WorkflowSlot): bigint[] {
  return [
    slot.actionType + slot.slippageBps * 8n + slot.part * (1n << 17n),
    slot.actionDigest[0],
    slot.actionDigest[1],
  ];
}

function executionLeafInputs(slot: EncodedSlot): bigint[] {
  const inputs = [slot.amountOut + slot.quoted * SHIFT, slot.amountIn + slot.feeCap * SHIFT];
  for (let r = 0; r < MULTISEND_RECIPIENTS; r += 2) {
    inputs.push(slot.recipients[r]! + (slot.recipients[r + 1] ?? 0n) * SHIFT);
  }
  return [...inputs, ...slot.txHashes[0], ...slot.txHashes[1]];
}

async function hasher(): Promise<(inputs: bigint[]) => bigint> {
  const poseidon = await loadPoseidon();
  return (inputs) => poseidon.F.toObject(poseidon(inputs));
}

/** The workflow commitment of an encoded workflow (public signal 0). */
export async function workflowCommitmentOfEncoded(encoded: EncodedWorkflow): Promise<bigint> {
  const hash = await hasher();
  return hash([
    encoded.salt,
    ...encoded.workflowDigest,
    ...encoded.slots.map((slot) => hash(workflowLeafInputs(slot))),
  ]);
}

/** The three public signals of an already encoded execution. */
export async function commitmentsOfEncoded(
  encoded: EncodedExecution,
): Promise<ExecutionCommitments> {
  const hash = await hasher();
  const workflowCommitment = await workflowCommitmentOfEncoded(encoded);
  const executionCommitment = hash([
    workflowCommitment,
    encoded.executionId,
    encoded.salt,
    ...encoded.slots.map((slot) => hash(executionLeafInputs(slot))),
  ]);
  return { workflowCommitment, executionCommitment, executionId: encoded.executionId };
}

/**
 * The public signals of a claim, in `PUBLIC_SIGNALS` order's fields (what `attest` records),
 * under `variant` (by default the smallest the workflow fits, the one the relayer proves with).
 */
export function computeCommitments(
  claim: ExecutionClaim,
  variant?: ExecutionVariant,
): Promise<ExecutionCommitments> {
  return commitmentsOfEncoded(encodeClaim(claim, variant));
}

/**
 * The commitment to the workflow exactly as submitted, under the salt drawn at submission: what
 * the submission receipt carries and the proof must reproduce. Needs nothing from the execution.
 */
export function workflowCommitment(workflow: SubmittedWorkflow, salt: Amount): Promise<bigint> {
  return workflowCommitmentOfEncoded(encodeWorkflow(workflow, salt));
}

/** The public signals as snarkjs orders them (`PUBLIC_SIGNALS`), decimal strings. */
export function publicSignalsOf(commitments: ExecutionCommitments): [string, string, string] {
  return [
    commitments.workflowCommitment.toString(),
    commitments.executionCommitment.toString(),
    commitments.executionId.toString(),
  ];
}
