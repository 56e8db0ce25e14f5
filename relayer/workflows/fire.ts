import { ApiError } from "../http/index.ts";
import { assertConcurrencyAvailable } from "../limits/index.ts";
import { JOB_NAMES } from "../queue/index.ts";
import type { Store } from "../store/index.ts";
import { findDeployment } from "./deployments.ts";
import { lockActiveCounts, insertExecution } from "../executions/index.ts";
import { newExecutionId, type Workflow } from "../model/index.ts";
import { recordFiring, type ScheduleRow } from "./schedules.ts";
import type { SubmissionReceipt } from "../proofs/index.ts";
import type { Caller, WorkflowContext } from "./intake.ts";
import { assertComplianceListsLoaded, estimateWorkflowCost, submissionReceipt } from "./prepare.ts";

export interface FiringResult {
  outcome: "queued" | "refused" | "duplicate" | "schedule-gone" | "schedule-paused" | "key-revoked";
  executionId?: string;
}

/**
 * A `workflow.schedule` firing: creates a new execution of the schedule's workflow (or of its
 * deployment's version) and sends `workflow.execute`, in one transaction. A firing over the key's
 * concurrency limit, or whose jurisdictions require a sanctions list this relayer has not loaded,
 * is recorded as a failed execution (visible in GET /v1/workflows) instead of being dropped
 * silently or left to fail in the engine; a retried job creates nothing twice (one execution per
 * job id). A firing of a paused or deleted schedule does nothing.
 */
export async function fireSchedule(
  ctx: WorkflowContext,
  scheduleId: string,
  jobId: string,
): Promise<FiringResult> {
  const [row] = await ctx.store.query<ScheduleRow>(
    `SELECT * FROM workflow_schedules WHERE id = $1 AND deleted_at IS NULL`,
    [scheduleId],
  );
  if (!row) return { outcome: "schedule-gone" };
  if (row.paused_at !== null) return { outcome: "schedule-paused" };
  const [key] = await ctx.store.query<{ tier: string; revoked_at: Date | string | null }>(
    `SELECT tier, revoked_at FROM api_keys WHERE id = $1`,
    [row.api_key_id],
  );
  // A revoked key's schedules stop: nothing runs on behalf of a key its owner disabled.
  if (!key || key.revoked_at !== null) return { outcome: "key-revoked" };
  let workflow: Workflow;
  let deploymentId: string | null = null;
  if (row.deployment_name !== null) {
    const deployment = await findDeployment(
      ctx.store,
      row.api_key_id,
      row.deployment_name,
      row.deployment_version,
    );
    workflow = deployment.workflow;
    deploymentId = deployment.id;
  } else {
    workflow =
      typeof row.workflow === "string" ? (JSON.parse(row.workflow) as Workflow) : row.workflow!;
  }
  // The estimate is informative for a firing: a chain hiccup must not drop the run.
  const costEstimate = await estimateWorkflowCost(ctx, workflow).catch(() => null);
  const limits = ctx.limits[key.tier as Caller["tier"]] ?? ctx.limits.free;
  const executionId = newExecutionId();

  const refusal = (err: unknown) => {
    if (!(err instanceof ApiError)) throw err;
    return { error: err.code, detail: `schedule firing refused: ${err.detail}` };
  };
  const listsMissing = await assertComplianceListsLoaded(ctx, workflow).then(
    () => undefined,
    refusal,
  );
  let receipt: SubmissionReceipt | null = null;
  const unprovable = await submissionReceipt(ctx, executionId, row.api_key_id, workflow).then(
    (issued) => void (receipt = issued),
    refusal,
  );

  return ctx.store.transaction(async (tx: Store): Promise<FiringResult> => {
    const active = await lockActiveCounts(tx, [row.api_key_id]);
    let refused = listsMissing ?? unprovable;
    try {
      assertConcurrencyAvailable(limits, active.get(row.api_key_id) ?? 0);
    } catch (err) {
      refused ??= refusal(err);
    }
    const inserted = await insertExecution(tx, {
      id: executionId,
      apiKeyId: row.api_key_id,
      workflow,
      trigger: "schedule",
      scheduleId,
      scheduleJobId: jobId,
      deploymentId,
      costEstimate,
      receipt,
      failed: refused,
    });
    if (!inserted) return { outcome: "duplicate" };
    await recordFiring(tx, scheduleId);
    if (refused) return { outcome: "refused", executionId };
    await ctx.queue.send(JOB_NAMES.workflowExecute, { executionId }, { tx });
    return { outcome: "queued", executionId };
  });
}
