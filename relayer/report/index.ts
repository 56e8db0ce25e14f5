/**
 * An execution's record: the step results the engine stores, the risk evaluation, the on-chain
 * evidence of its transactions and the signed report with its CID. The engine writes it, the
 * status view and the analysis read it, the auditor (in Node and in the browser) checks it.
 */
export {
  errorBodySchema,
  payoutOrdersSchema,
  stepResultSchema,
  type Attestation,
  type ErrorBody,
  type FinalStepResult,
  type PayoutOrders,
  type StepInput,
  type StepResult,
  type StepRow,
} from "./steps.ts";
export {
  RiskThresholdExceededError,
  evaluateRisk,
  riskEvaluationSchema,
  type RiskEvaluation,
} from "./risk.ts";
export {
  BlockchainArtifact,
  DeFiTransactionArtifact,
  canonicalJson,
  reportCid,
  type ArtifactFields,
  type ComplianceAlert,
  type ComplianceSection,
  type GasMetric,
  type Operation,
  type ReportAction,
  type ReportAnalysis,
  type ReportAttestation,
  type ReportBody,
  type ReportEvidence,
  type ReportOrders,
  type RiskScores,
  type SignedReport,
} from "./report.ts";
export {
  EVIDENCE_ABIS,
  EvidenceNotFoundError,
  collectEvidence,
  decodeEvidenceEvents,
  evidenceInterface,
  transactionEvidence,
  type EvidenceChain,
  type EvidenceEvent,
  type EvidenceEventName,
  type TxEvidence,
  type TxRef,
} from "./evidence.ts";
