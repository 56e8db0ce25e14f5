import type { Queue } from "../queue/index.ts";
import type { TextAnalysis } from "./service.ts";

/**
 * The audit chain's scheduled work, pg-boss cron (in whichever process runs the schedule; a job
 * runs in one process): every minute the head is anchored once the last anchor is
 * `audit.anchor_interval` old; every day records past `audit.data_retention` are pruned.
 */
export const ANALYSIS_ANCHOR_JOB = "analysis.audit-anchor";
export const ANALYSIS_PRUNE_JOB = "analysis.audit-prune";

export async function anchorIfDue(analysis: TextAnalysis, nowMs: number): Promise<number | null> {
  const last = await analysis.lastAnchorAt();
  if (last !== null && nowMs - last < analysis.config.audit.anchorIntervalMs) return null;
  return (await analysis.anchor())?.seq ?? null;
}

export async function startAnalysisJobs(
  queue: Queue,
  analysis: TextAnalysis,
  clock: () => number = Date.now,
): Promise<void> {
  await queue.work(ANALYSIS_ANCHOR_JOB, async () => ({
    anchored: await anchorIfDue(analysis, clock()),
  }));
  await queue.schedule(ANALYSIS_ANCHOR_JOB, "* * * * *", {});
  await queue.work(ANALYSIS_PRUNE_JOB, async () => ({ pruned: await analysis.prune() }));
  await queue.schedule(ANALYSIS_PRUNE_JOB, "17 3 * * *", {});
}
