/**
 * The auditor library: checks a signed final report from the chains alone (relayer/audit/audit.ts),
 * reading the on-chain evidence as the engine lists it in its reports (relayer/report/evidence.ts).
 * `node.ts` opens the environment in Node (`npm run audit`); see README "Auditing an execution".
 * The text analysis's audit chain as a key's auditor checks it, and the report's analyses against
 * it: analysis-chain.ts, analyses.ts (docs/analysis.md "A key's auditor").
 */
export {
  auditReport,
  type AuditCheck,
  type AuditEnvironment,
  type AuditOptions,
  type AuditVerdict,
  type CheckFamily,
  type CheckStatus,
  type VerdictOutcome,
} from "./audit.ts";
export {
  AuditInputError,
  parseAuditInput,
  parseClientReceipt,
  type AuditedReceipt,
  type AuditedReport,
} from "./input.ts";
export {
  isCid,
  reportFromArtifactStore,
  reportFromBlock,
  reportFromCar,
  type AuditSource,
  type SourcedInput,
} from "./sources.ts";
export {
  ANALYSIS_ANCHOR_URI,
  auditId,
  legacyEntryHash,
  linkHash,
  readAnchoredHeads,
  recordDigest,
  seqOfAuditId,
  verifyKeyAudit,
  type AnchoredHead,
  type AuditedContent,
  type AuditLink,
  type KeptAudit,
  type KeyAuditCheck,
  type KeyAuditInput,
  type KeyAuditResult,
  type KeyAuditStatus,
  type ListedAuditRecord,
} from "./analysis-chain.ts";
export { anchoredHeadsOn, type AnalysisAuditEvidence } from "./analyses.ts";
