// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IExecutionGroth16Verifier} from "./IExecutionGroth16Verifier.sol";
import {ISemver} from "./ISemver.sol";

/// @title IExecutionAttestor
/// @notice On-chain record that a workflow execution honoured the workflow it was submitted as.
/// Each attestation carries a Groth16 proof of one variant of the execution circuit
/// (`circuits/src/execution<slots>.circom`, one per action-slot count, each with its own
/// verifier) with three public signals: a Poseidon commitment to the
/// workflow as submitted (the one in the relayer's signed submission receipt), a Poseidon
/// commitment to the execution's results and transaction hashes, and the execution id
/// (`executionIdSignal`), which the attestor derives from the id it records the proof under.
/// Amounts stay private; whoever holds the final report (workflow, claim, salt) recomputes both
/// commitments and compares them with the attestation.
interface IExecutionAttestor is ISemver {
    /// @notice A Groth16 proof in the generated verifier's layout.
    /// @param a Point A.
    /// @param b Point B, each coordinate pair in (imaginary, real) order.
    /// @param c Point C.
    struct Groth16Proof {
        uint256[2] a;
        uint256[2][2] b;
        uint256[2] c;
    }

    /// @notice What is recorded for one execution.
    /// @param workflowCommitment Public signal 0: Poseidon commitment to the workflow as submitted.
    /// @param executionCommitment Public signal 1: Poseidon commitment to the execution's results.
    /// @param attester The account that submitted the proof.
    /// @param timestamp Block time of the attestation.
    /// @param slots The circuit variant the proof is of (its action-slot count; `verifier(slots)`).
    struct Attestation {
        uint256 workflowCommitment;
        uint256 executionCommitment;
        address attester;
        uint64 timestamp;
        uint8 slots;
    }

    /// @notice The proof does not verify for these public signals.
    /// @param executionId The execution the proof was submitted for.
    error ExecutionAttestorInvalidProof(bytes32 executionId);

    /// @notice The execution already has an attestation; attestations are final.
    /// @param executionId The execution id.
    error ExecutionAttestorAlreadyAttested(bytes32 executionId);

    /// @notice The execution commitment is already attested under another execution id.
    /// @param executionCommitment The commitment.
    /// @param attestedAs The execution id it was attested under.
    error ExecutionAttestorCommitmentReused(uint256 executionCommitment, bytes32 attestedAs);

    /// @notice The zero execution id cannot be attested (it marks "not attested").
    error ExecutionAttestorInvalidExecutionId();

    /// @notice No attestation exists for the execution.
    /// @param executionId The execution id.
    error ExecutionAttestorNotAttested(bytes32 executionId);

    /// @notice The verifier address given is not a contract.
    /// @param verifier The address given.
    error ExecutionAttestorInvalidVerifier(address verifier);

    /// @notice No verifier is set for this circuit variant (or the variant is 0).
    /// @param slots The variant's slot count.
    error ExecutionAttestorUnknownVariant(uint8 slots);

    /// @notice The variant already has its verifier; verifiers are never replaced.
    /// @param slots The variant's slot count.
    error ExecutionAttestorVariantSet(uint8 slots);

    /// @notice The constructor's slot counts and verifiers differ in length.
    error ExecutionAttestorVariantsMismatch();

    /// @notice Emitted when a variant's verifier is set (once per variant).
    /// @param slots The variant's slot count.
    /// @param verifier The variant's verifier.
    event VerifierSet(uint8 indexed slots, address verifier);

    /// @notice Emitted when an execution is attested.
    /// @param executionId The execution (keccak256 of the relayer's `wf_...` id).
    /// @param workflowCommitment Commitment to the workflow as submitted.
    /// @param executionCommitment Commitment to the execution's results.
    /// @param attester The account that submitted the proof.
    /// @param slots The circuit variant the proof is of.
    event ExecutionAttested(
        bytes32 indexed executionId,
        uint256 indexed workflowCommitment,
        uint256 executionCommitment,
        address indexed attester,
        uint8 slots
    );

    /// @notice Verifies the proof for `executionId` and records the attestation.
    /// @dev The proof's execution-id signal is `executionIdSignal(executionId)`, so a proof holds
    /// for one id only. Only accounts with ATTESTER_ROLE (the relayer's operators) attest: nobody
    /// else can record, block or pre-empt an execution's attestation.
    /// @param executionId The execution id (keccak256 of the relayer's `wf_...` id).
    /// @param slots The circuit variant the proof is of (reverts ExecutionAttestorUnknownVariant
    /// when it has no verifier).
    /// @param proof The Groth16 proof.
    /// @param commitments [workflowCommitment, executionCommitment] (public signals 0 and 1).
    function attest(
        bytes32 executionId,
        uint8 slots,
        Groth16Proof calldata proof,
        uint256[2] calldata commitments
    ) external;

    /// @notice Checks a proof for an execution id without recording anything.
    /// @param executionId The execution id the proof is checked for.
    /// @param slots The circuit variant the proof is of.
    /// @param proof The Groth16 proof.
    /// @param commitments [workflowCommitment, executionCommitment].
    /// @return True when the proof is valid for these commitments and this id (false for a
    /// variant without a verifier).
    function verifyExecution(
        bytes32 executionId,
        uint8 slots,
        Groth16Proof calldata proof,
        uint256[2] calldata commitments
    ) external view returns (bool);

    /// @notice The execution circuit's public input for an execution id.
    /// @param executionId The execution id.
    /// @return uint256(keccak256(abi.encode(executionId))) >> 4, a BN254 field element.
    function executionIdSignal(bytes32 executionId) external pure returns (uint256);

    /// @notice The attestation of an execution; reverts with ExecutionAttestorNotAttested if none.
    /// @param executionId The execution id.
    /// @return The recorded attestation.
    function getAttestation(bytes32 executionId) external view returns (Attestation memory);

    /// @notice Whether an execution has been attested.
    /// @param executionId The execution id.
    /// @return True once attested.
    function isAttested(bytes32 executionId) external view returns (bool);

    /// @notice The execution id an execution commitment was attested under (zero if none).
    /// @param executionCommitment The commitment.
    /// @return The execution id, or zero.
    function executionIdOf(uint256 executionCommitment) external view returns (bytes32);

    /// @notice Sets the verifier of a variant that has none (DEFAULT_ADMIN_ROLE only; set once).
    /// @param slots The variant's slot count (non-zero).
    /// @param verifier_ The generated verifier of that variant's circuit.
    function setVerifier(uint8 slots, IExecutionGroth16Verifier verifier_) external;

    /// @notice The Groth16 verifier of one variant of the execution circuit.
    /// @param slots The variant's slot count.
    /// @return The verifier's address (zero when the variant has none).
    function verifier(uint8 slots) external view returns (address);

    /// @notice The role allowed to attest.
    /// @return The role id, keccak256("ATTESTER_ROLE").
    function ATTESTER_ROLE() external view returns (bytes32);
}
