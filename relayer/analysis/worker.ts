import { JOB_NAMES, type Queue } from "../queue/index.ts";
import type { TextAnalysis } from "./service.ts";

/**
 * The audit chain's scheduled work, pg-boss cron (in whichever process runs the schedule; a job
 * runs in one process): every minute the head is anchored once the last anchor is
 * `audit.anchor_interval` old; every day records past `audit.data_retention` are pruned.
 */

export async function anchorIfDue(analysis: TextAnalysis, nowMs: number): Promise<number | null> {
  const last = await analysis.lastAnchorAt();
  if (last !== null && nowMs - last < analysis.config.audit.anchorIntervalMs) return null;
  return (await analysis.anchor())?.seq ?? null;
}

/**
 * The idle poll of the two cron queues (seconds): their jobs come once a minute and once a day,
 * and each poll is a query (on PGlite, on the event loop every request also runs on).
 */
const CRON_POLLING_SECONDS = 10;

export async function startAnalysisJobs(
  queue: Queue,
  analysis: TextAnalysis,
  clock: () => number = Date.now,
): Promise<void> {
  await queue.work(
    JOB_NAMES.analysisAuditAnchor,
    async () => ({ anchored: await anchorIfDue(analysis, clock()) }),
    { pollingIntervalSeconds: CRON_POLLING_SECONDS },
  );
  await queue.schedule(JOB_NAMES.analysisAuditAnchor, "* * * * *", {});
  await queue.work(JOB_NAMES.analysisAuditPrune, async () => ({ pruned: await analysis.prune() }), {
    pollingIntervalSeconds: CRON_POLLING_SECONDS,
  });
  await queue.schedule(JOB_NAMES.analysisAuditPrune, "17 3 * * *", {});
}
