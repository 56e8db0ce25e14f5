import { startAnalysisJobs } from "../analysis/index.ts";
import { purgeExpiredSignatures } from "../auth/index.ts";
import { startEngineWorker } from "../execution/index.ts";
import { startIntegrationJobs } from "../integrations/index.ts";
import { purgeRateLimitWindows, purgeZkQuotaDays } from "../limits/index.ts";
import { JOB_NAMES } from "../queue/index.ts";
import { startDispatcher, webhookPolicy } from "../webhooks/index.ts";
import { purgeExpiredIdempotencyKeys } from "../workflows/index.ts";
import { startWorkflowJobs } from "../workflows/worker.ts";
import type { Services } from "./services.ts";

/**
 * The background work a process runs. pg-boss hands each job to one of the processes working
 * its queue, so every process may start all of them; `npm run worker` starts only the platform's
 * housekeeping and the engine. To add a worker: a kind here and one branch in `startWorkers`.
 */
export type WorkerKind =
  "platform" | "workflows" | "integrations" | "analysis" | "engine" | "webhooks";

export const ALL_WORKERS: readonly WorkerKind[] = [
  "platform",
  "workflows",
  "integrations",
  "analysis",
  "engine",
  "webhooks",
];

export async function startWorkers(
  services: Services,
  kinds: readonly WorkerKind[] = ALL_WORKERS,
): Promise<void> {
  const { queue, store, logger } = services;
  if (kinds.includes("platform")) {
    await queue.work(JOB_NAMES.platformMaintenance, async () => {
      const now = services.clock();
      const signatures = await purgeExpiredSignatures(store, now);
      const windows = await purgeRateLimitWindows(store, now);
      const zkDays = await purgeZkQuotaDays(store, now);
      const idempotencyKeys = await purgeExpiredIdempotencyKeys(store);
      // Uploads and batch manifests past VERIFLOW_ARTIFACT_RETENTION_DAYS, and blocks left unowned.
      const artifacts = await services.artifacts.prune(now);
      return { signatures, windows, zkDays, idempotencyKeys, artifacts };
    });
    await queue.schedule(JOB_NAMES.platformMaintenance, "*/5 * * * *", {});
  }
  if (kinds.includes("workflows")) await startWorkflowJobs(services);
  if (kinds.includes("integrations") && services.integrations) {
    await startIntegrationJobs(queue, services.integrations);
    // Monitors poll on their own interval (below pg-boss's one-minute cron); each turn is claimed
    // in the database, so one process polls it.
    if (services.monitors && services.monitors.configured.length > 0)
      services.closers.push(services.monitors.start());
  }
  if (kinds.includes("analysis") && services.analysis) {
    await startAnalysisJobs(queue, services.analysis, () => services.clock());
  }
  if (kinds.includes("webhooks")) {
    // Woken by the database's notifications, with a slow poll; deliveries are claimed in it.
    services.closers.push(
      await startDispatcher({
        store,
        cipher: services.cipher,
        logger: logger.child({ area: "webhooks" }),
        policy: webhookPolicy(services.config),
      }),
    );
  }
  if (kinds.includes("engine") && services.engine && services.config.engine.worker) {
    // Woken by the database's notifications of new jobs, with a slow poll.
    const worker = await startEngineWorker(queue, services.engine, store, {
      concurrency: services.config.engine.concurrency,
      leaseSeconds: services.config.engine.leaseSeconds,
    });
    services.closers.push(() => worker.stop());
    logger.info("engine worker started (workflow.execute)");
  }
}
