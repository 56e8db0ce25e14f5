import { isExecutionVariant } from "./circuits.ts";
import type { ExecutionClaim } from "./claim.ts";
import { computeCommitments, type ExecutionCommitments } from "./commitments.ts";
import { executionIdToBytes32 } from "./field.ts";

/** The read side of ExecutionAttestor this check needs (an ethers Contract from the ABI fits). */
export type AttestorReader = {
  isAttested(executionId: string): Promise<boolean>;
  getAttestation(executionId: string): Promise<{
    workflowCommitment: bigint;
    executionCommitment: bigint;
    attester: string;
    timestamp: bigint;
    slots: bigint;
  }>;
};

export type AttestationCheck = {
  /** The bytes32 the execution is attested under. */
  executionId: string;
  /** What the claim commits to (recomputed here). */
  expected: ExecutionCommitments;
  attested: boolean;
  /** What the chain recorded; absent when not attested. */
  recorded?: Omit<ExecutionCommitments, "executionId"> & {
    attester: string;
    timestamp: number;
    /** The circuit variant the proof is of. */
    slots: number;
  };
  /** True when attested and both recorded commitments equal the recomputed ones. */
  matches: boolean;
};

/**
 * Recomputes both commitments from a claim (rebuilt from a report with `claimFromReport`) and
 * compares them with what ExecutionAttestor recorded under the claim's execution id, under the
 * recorded circuit variant. The proof itself was verified on chain, for that id, by that
 * variant's verifier, when it was attested.
 */
export async function checkAttestation(
  attestor: AttestorReader,
  claim: ExecutionClaim,
): Promise<AttestationCheck> {
  const executionId = executionIdToBytes32(claim.executionId);
  const expected = await computeCommitments(claim);
  if (!(await attestor.isAttested(executionId))) {
    return { executionId, expected, attested: false, matches: false };
  }
  const onChain = await attestor.getAttestation(executionId);
  const slots = Number(onChain.slots);
  const recorded = {
    workflowCommitment: BigInt(onChain.workflowCommitment),
    executionCommitment: BigInt(onChain.executionCommitment),
    attester: onChain.attester,
    timestamp: Number(onChain.timestamp),
    slots,
  };
  const opened: ExecutionCommitments | null = isExecutionVariant(slots)
    ? await computeCommitments(claim, slots).catch(() => null)
    : null;
  return {
    executionId,
    expected,
    attested: true,
    recorded,
    matches:
      opened !== null &&
      recorded.workflowCommitment === opened.workflowCommitment &&
      recorded.executionCommitment === opened.executionCommitment,
  };
}
