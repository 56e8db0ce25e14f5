export { TextAnalysis, type AnalysisView, type TextAnalysisDeps } from "./service.ts";
export { analysisRoutes } from "./routes.ts";
export { startAnalysisJobs, ANALYSIS_ANCHOR_JOB, ANALYSIS_PRUNE_JOB } from "./worker.ts";
export { redact, findPii, restore, PII_TYPES, type PiiType } from "./redaction.ts";
export { routeText } from "./routing.ts";
export { verifyAuditChain } from "./audit.ts";

import type { AppContext } from "../context.ts";
import { TextAnalysis as Service } from "./service.ts";
import { startAnalysisJobs as startJobs } from "./worker.ts";

/**
 * The process's text analysis from `config.integrations.textAnalysis` (null when not configured
 * or without chains): its audit jobs started and its close registered on the context.
 */
export function openTextAnalysis(ctx: AppContext): Service | null {
  const config = ctx.config.integrations?.textAnalysis;
  if (!config || !ctx.chains) return null;
  const analysis = new Service(config, {
    store: ctx.store,
    masterKey: ctx.masterKey,
    logger: ctx.logger.child({ area: "analysis" }),
    registry: ctx.metrics.registry,
    chains: ctx.chains.list(),
    clock: () => ctx.clock(),
  });
  ctx.closers.push(() => analysis.close());
  startJobs(ctx.queue, analysis, () => ctx.clock()).catch((err: unknown) =>
    ctx.logger.error({ err }, "text-analysis audit jobs failed to start"),
  );
  return analysis;
}
