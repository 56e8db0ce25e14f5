import { Interface } from "ethers";
import * as snarkjs from "snarkjs";
import { executionCircuit, type ExecutionVariant } from "./circuits.ts";
import { ExecutionClaimError } from "./errors.ts";
import {
  assertClaimHonoured,
  encodeClaim,
  executionCircuitInput,
  type ExecutionClaim,
} from "./claim.ts";
import { commitmentsOfEncoded, publicSignalsOf, type ExecutionCommitments } from "./commitments.ts";
import { executionIdToBytes32 } from "./field.ts";
import { loadVerificationKey, withProverThreads } from "./keys.ts";
import { inProcessProver, type Groth16Prover } from "./pool.ts";

/** A Groth16 proof in the layout the generated Solidity verifiers take (G2 coordinates swapped). */
export type SolidityProof = {
  a: [bigint, bigint];
  b: [[bigint, bigint], [bigint, bigint]];
  c: [bigint, bigint];
};

/**
 * Arguments of `ExecutionAttestor.attest(executionId, slots, proof, commitments)`, in order:
 * `attestor.attest(...calldata.args)`; `calldata.data` is the same call ABI-encoded. The third
 * public signal (the execution id's) is not sent: the attestor derives it from `executionId`.
 * `slots` names the circuit variant, whose verifier the attestor checks the proof with.
 */
export type AttestCalldata = {
  args: [
    executionId: string,
    slots: ExecutionVariant,
    proof: SolidityProof,
    commitments: [bigint, bigint],
  ];
  data: string;
};

export type ExecutionProof = {
  /** snarkjs' proof object (what `verifyExecutionProof` and auditors' snarkjs take). */
  proof: snarkjs.Groth16Proof;
  /** [workflowCommitment, executionCommitment, executionId] as decimal strings (`PUBLIC_SIGNALS`). */
  publicSignals: [string, string, string];
  commitments: ExecutionCommitments;
  /** The bytes32 the execution is attested under. */
  executionId: string;
  /** The circuit variant proved with (its slot count): the smallest the workflow fits. */
  variant: ExecutionVariant;
  calldata: AttestCalldata;
};

/**
 * The attest signature; a test compares it with the compiled ExecutionAttestor ABI so the two
 * cannot drift.
 */
export const ATTEST_FUNCTION =
  "function attest(bytes32 executionId, uint8 slots, (uint256[2] a, uint256[2][2] b, uint256[2] c) proof, uint256[2] commitments)";
const attestInterface = new Interface([ATTEST_FUNCTION]);

/** snarkjs proof → the verifier's (a, b, c); b's coordinates are (imaginary, real) on chain. */
export function toSolidityProof(proof: snarkjs.Groth16Proof): SolidityProof {
  const n = (v: string | undefined) => BigInt(v!);
  return {
    a: [n(proof.pi_a[0]), n(proof.pi_a[1])],
    b: [
      [n(proof.pi_b[0]![1]), n(proof.pi_b[0]![0])],
      [n(proof.pi_b[1]![1]), n(proof.pi_b[1]![0])],
    ],
    c: [n(proof.pi_c[0]), n(proof.pi_c[1])],
  };
}

export function encodeAttestCalldata(
  executionId: string,
  variant: ExecutionVariant,
  proof: snarkjs.Groth16Proof,
  publicSignals: readonly string[],
): AttestCalldata {
  const args: AttestCalldata["args"] = [
    executionIdToBytes32(executionId),
    variant,
    toSolidityProof(proof),
    [BigInt(publicSignals[0]!), BigInt(publicSignals[1]!)],
  ];
  return { args, data: attestInterface.encodeFunctionData("attest", args) };
}

/**
 * Proves that an execution honoured its workflow, with the smallest circuit variant the workflow
 * fits. Checks every constraint family in TypeScript first (an `ExecutionClaimError` names the
 * family and the action), then computes the witness and the Groth16 proof with the variant's
 * keys (loaded once per process), and checks that the proof's public signals equal the
 * TypeScript commitments. With `expectedWorkflowCommitment` (the submission receipt's), refuses a
 * claim whose workflow or salt is not the one submitted. `prover` computes the witness and the
 * proof: on this thread by default, on a `ProverPool`'s threads in the relayer.
 */
export async function proveExecution(
  claim: ExecutionClaim,
  expectedWorkflowCommitment?: bigint | string,
  prover: Groth16Prover = inProcessProver,
): Promise<ExecutionProof> {
  const encoded = encodeClaim(claim);
  assertClaimHonoured(encoded);
  const commitments = await commitmentsOfEncoded(encoded);
  if (
    expectedWorkflowCommitment !== undefined &&
    BigInt(expectedWorkflowCommitment) !== commitments.workflowCommitment
  ) {
    throw new ExecutionClaimError(
      "workflow",
      null,
      "the workflow or salt differs from the submission receipt's commitment",
    );
  }
  const { proof, publicSignals } = await prover.prove(
    executionCircuit(encoded.variant),
    executionCircuitInput(encoded),
  );
  const expected = publicSignalsOf(commitments);
  if (
    publicSignals.length !== expected.length ||
    expected.some((signal, i) => publicSignals[i] !== signal)
  ) {
    // Only possible if circuits/src and relayer/proofs disagree: a bug, never user input.
    throw new Error(
      "execution circuit and relayer/proofs/commitments.ts disagree on the commitments",
    );
  }
  return {
    proof,
    publicSignals: expected,
    commitments,
    executionId: executionIdToBytes32(claim.executionId),
    variant: encoded.variant,
    calldata: encodeAttestCalldata(claim.executionId, encoded.variant, proof, expected),
  };
}

/** Verifies an execution proof off chain against the variant's committed verification key. */
export async function verifyExecutionProof(
  proof: snarkjs.Groth16Proof,
  publicSignals: readonly string[],
  variant: ExecutionVariant,
): Promise<boolean> {
  if (publicSignals.length !== 3) return false;
  try {
    const vkey = await loadVerificationKey(executionCircuit(variant));
    return await withProverThreads(() =>
      snarkjs.groth16.verify(vkey, publicSignals, proof, silent),
    );
  } catch {
    // A malformed proof (not on the curve, wrong shape) is simply not a valid proof.
    return false;
  }
}

const silent = { info() {}, debug() {}, warn() {}, error() {} };
