/**
 * The prover library: Groth16 proofs that an execution honoured its workflow (execution circuit)
 * and that a Merkle root commits to a list of stored artifacts (artifact circuit). Usable without
 * HTTP; see docs/zk.md.
 */
export {
  ACTION_TYPE_CODES,
  AMOUNT_BITS,
  EXECUTION_SLOTS,
  MAX_AMOUNT,
  MAX_SLIPPAGE_BPS,
  MAX_TX_HASHES,
  MULTISEND_RECIPIENTS,
  PUBLIC_SIGNALS,
  committedTxHashes,
  minimumOut,
  slotsOfActions,
  variantFor,
  type ActionType,
  type Amount,
  type ExecutedAction,
  type ExecutionClaim,
  type SubmittedAction,
  type SubmittedWorkflow,
} from "./claim.ts";
export {
  computeCommitments,
  publicSignalsOf,
  workflowCommitment,
  type ExecutionCommitments,
} from "./commitments.ts";
export {
  ATTESTOR_CONTRACT,
  RECEIPT_DOMAIN_NAME,
  RECEIPT_DOMAIN_VERSION,
  RECEIPT_TYPES,
  checkReceipt,
  issueReceipt,
  receiptDigest,
  receiptDomainSeparator,
  receiptMessage,
  receiptSigner,
  receiptSignerFor,
  receiptSignerOf,
  type AttestorChain,
  type ReceiptCheck,
  type ReceiptDomain,
  type ReceiptSigner,
  type SubmissionReceipt,
} from "./receipt.ts";
export {
  claimFromReport,
  toReportedClaim,
  type ClaimSource,
  type ReportedAction,
  type ReportedClaim,
} from "./reported.ts";
export {
  ATTEST_FUNCTION,
  encodeAttestCalldata,
  proveExecution,
  toSolidityProof,
  verifyExecutionProof,
  type AttestCalldata,
  type ExecutionProof,
  type SolidityProof,
} from "./execution.ts";
export {
  ARTIFACT_TREE_DEPTH,
  MAX_ARTIFACTS,
  artifactsRoot,
  cidDigestLimbs,
  proveArtifacts,
  verifyArtifactInclusion,
  verifyArtifactsProof,
  type ArtifactInclusion,
  type ArtifactsProof,
} from "./artifacts.ts";
export {
  bytes32ToLimbs,
  canonicalDigest,
  executionIdSignal,
  executionIdToBytes32,
  FIELD_MODULUS,
  randomSalt,
} from "./field.ts";
export {
  ArtifactInputError,
  ExecutionClaimError,
  ProverUnavailableError,
  type ConstraintFamily,
} from "./errors.ts";
export { closeProver, loadCircuit } from "./keys.ts";
export {
  PROVER_NICENESS,
  ProverPool,
  inProcessProver,
  type Groth16Prover,
  type ProverPoolOptions,
} from "./pool.ts";
export {
  EXECUTION_VARIANTS,
  circuitFiles,
  executionCircuit,
  isExecutionVariant,
  type CircuitName,
  type ExecutionVariant,
} from "./circuits.ts";
export { checkAttestation, type AttestationCheck, type AttestorReader } from "./audit.ts";
export {
  DevelopmentKeysError,
  assertProvingKeysFit,
  provingKeySetup,
  type CeremonyRecord,
  type ProvingKeySetup,
} from "./setup.ts";

export { assertClaimHonoured, encodeClaim } from "./claim.ts";
