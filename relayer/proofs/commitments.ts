import type { ExecutionVariant } from "./circuits.ts";
import {
  ACTION_TYPE_CODES,
  AMOUNT_BITS,
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
 * (the permutation circomlib's circuits use), packing inputs exactly as `execution.circom` does:
 *
 *   header[i]           = type + 8·bps + 2^17·part                       (< 2^20)
 *   headers             = Σ header[i]·2^(20·i)                           (< 2^160)
 *   column[i]           = the four amount columns (`amountColumns`)      (< 2^96 each)
 *   workflowCommitment  = wideHash(salt, workflowDigestHi, workflowDigestLo, headers,
 *                                  actionDigestHi[i], actionDigestLo[i] for each slot i)
 *   executionCommitment = wideHash(workflowCommitment, executionId, salt,
 *                                  column[i][0] + 2^96·column[i][1], column[i][2] + 2^96·column[i][3],
 *                                  tx0Hi[i], tx0Lo[i], tx1Hi[i], tx1Lo[i] for each slot i)
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
const HEADER_BITS = 20n;
/** circomlib's widest Poseidon (16 inputs). */
const POSEIDON_WIDTH = 16;

type Hash = (inputs: bigint[]) => bigint;

/**
 * `WideHash` of action.circom: Poseidon over all inputs while they fit one call, otherwise
 * Poseidon over the first 16, then Poseidon(previous, next up to 15) until none is left.
 */
function wideHash(hash: Hash, inputs: readonly bigint[]): bigint {
  if (inputs.length <= POSEIDON_WIDTH) return hash([...inputs]);
  let out = hash(inputs.slice(0, POSEIDON_WIDTH));
  for (let next = POSEIDON_WIDTH; next < inputs.length; next += POSEIDON_WIDTH - 1) {
    out = hash([out, ...inputs.slice(next, next + POSEIDON_WIDTH - 1)]);
  }
  return out;
}

function headersOf(slots: readonly WorkflowSlot[]): bigint {
  return slots.reduce(
    (packed, slot, i) =>
      packed +
      ((slot.actionType + slot.slippageBps * 8n + slot.part * (1n << 17n)) <<
        (HEADER_BITS * BigInt(i))),
    0n,
  );
}

/**
 * The four range-checked amount columns of action.circom: the type fixes which field each
 * holds (amountIn | amountOut | quoted or feeCap | - for swap, convert and bridge; the four
 * recipients for a multisend, whose amountIn is their sum).
 */
function amountColumns(slot: EncodedSlot): [bigint, bigint, bigint, bigint] {
  const multisend = slot.actionType === BigInt(ACTION_TYPE_CODES.multisend);
  const [r0, r1, r2, r3] = slot.recipients as [bigint, bigint, bigint, bigint];
  return [
    (multisend ? 0n : slot.amountIn) + r0,
    slot.amountOut + r1,
    slot.quoted + slot.feeCap + r2,
    r3,
  ];
}

function executionSlotInputs(slot: EncodedSlot): bigint[] {
  const [c0, c1, c2, c3] = amountColumns(slot);
  return [c0 + c1 * SHIFT, c2 + c3 * SHIFT, ...slot.txHashes[0], ...slot.txHashes[1]];
}

async function hasher(): Promise<Hash> {
  const poseidon = await loadPoseidon();
  return (inputs) => poseidon.F.toObject(poseidon(inputs));
}

/** The workflow commitment of an encoded workflow (public signal 0). */
export async function workflowCommitmentOfEncoded(encoded: EncodedWorkflow): Promise<bigint> {
  const hash = await hasher();
  return wideHash(hash, [
    encoded.salt,
    ...encoded.workflowDigest,
    headersOf(encoded.slots),
    ...encoded.slots.flatMap((slot) => slot.actionDigest),
  ]);
}

/** The three public signals of an already encoded execution. */
export async function commitmentsOfEncoded(
  encoded: EncodedExecution,
): Promise<ExecutionCommitments> {
  const hash = await hasher();
  const workflowCommitment = await workflowCommitmentOfEncoded(encoded);
  const executionCommitment = wideHash(hash, [
    workflowCommitment,
    encoded.executionId,
    encoded.salt,
    ...encoded.slots.flatMap(executionSlotInputs),
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
