import type { Job } from "pg-boss";
import { JOB_NAMES, type JobPayloads } from "../queue/index.ts";
import { reconcileSchedules } from "./schedules.ts";
import type { WorkflowContext } from "./intake.ts";
import { fireSchedule } from "./fire.ts";

/**
 * This process's share of the workflow jobs, started by the composition root: the
 * `workflow.schedule` worker, and the reconciliation of pg-boss cron entries with the stored
 * schedules.
 */
export async function startWorkflowJobs(ctx: WorkflowContext): Promise<void> {
  await ctx.queue.work<JobPayloads["workflow.schedule"]>(
    JOB_NAMES.workflowSchedule,
    async (data, job: Job<JobPayloads["workflow.schedule"]>) => {
      const result = await fireSchedule(ctx, data.scheduleId, job.id);
      ctx.logger.info({ schedule: data.scheduleId, ...result }, "schedule fired");
      return result;
    },
  );
  const reconciled = await reconcileSchedules(ctx.store, ctx.queue);
  if (reconciled.removed) ctx.logger.info(reconciled, "schedules reconciled with pg-boss");
}
