export { TextAnalysis, type AnalysisView, type TextAnalysisDeps } from "./service.ts";
export { analysisRoutes } from "./routes.ts";
export { startAnalysisJobs, ANALYSIS_ANCHOR_JOB, ANALYSIS_PRUNE_JOB } from "./worker.ts";
export { redact, findPii, restore, PII_TYPES, type PiiType } from "./redaction.ts";
export { routeText } from "./routing.ts";
export { verifyAuditChain } from "./audit.ts";
