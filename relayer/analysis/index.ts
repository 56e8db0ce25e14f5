export {
  ANALYSIS_STAGES,
  TextAnalysis,
  type AnalysisView,
  type TextAnalysisDeps,
} from "./service.ts";
export { startAnalysisJobs } from "./worker.ts";
export { redact, findPii, restore, PII_TYPES, type PiiType } from "./redaction.ts";
export { routeText } from "./routing.ts";
export { verifyAuditChain } from "./audit.ts";
