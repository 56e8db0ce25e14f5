import { assertConcurrencyAvailable } from "../limits/index.ts";
import { JOB_NAMES } from "../queue/index.ts";
import { lockActiveCounts, insertExecution } from "../executions/index.ts";
import {
  claimIdempotencyKey,
  recordIdempotentResponse,
  type StoredResponse,
} from "./idempotency.ts";
import { newExecutionId } from "../model/index.ts";
import { insertSchedule, scheduleView, type ScheduleRow } from "./schedules.ts";
import type { SubmissionResult } from "./schemas.ts";
import type { Caller, SubmittedRequest, WorkflowContext } from "./intake.ts";
import {
  assertComplianceListsLoaded,
  estimateWorkflowCost,
  idempotentReplay,
  resolveWorkflow,
  submissionReceipt,
  registerScheduleLogged,
} from "./prepare.ts";

/**
 * `POST /v1/workflows`: validate, estimate, then in one transaction check the concurrency limit,
 * store the execution (and its schedule when the workflow has one), record the idempotent
 * response and send `workflow.execute`. A workflow with a schedule runs now and on every firing.
 */
export async function submitWorkflow(
  ctx: WorkflowContext,
  caller: Caller,
  request: SubmittedRequest,
): Promise<StoredResponse & { body: SubmissionResult }> {
  const { hash, replay } = await idempotentReplay(ctx, caller, request);
  if (replay) return replay as StoredResponse & { body: SubmissionResult };

  const { workflow, deploymentId, byDeployment } = await resolveWorkflow(ctx, caller, request);
  await assertComplianceListsLoaded(ctx, workflow);
  const costEstimate = await estimateWorkflowCost(ctx, workflow);
  const executionId = newExecutionId();
  const receipt = await submissionReceipt(ctx, executionId, caller.id, workflow);
  let schedule: ScheduleRow | null = null;
  if (!request.idempotencyKey && !(workflow.schedule && !byDeployment)) {
    // The common case (no idempotency key, no schedule to create): written in one statement with
    // the submissions arriving meanwhile (submissionBatcher).
    return ctx.intake.submissions.submit({
      caller,
      execution: {
        id: executionId,
        apiKeyId: caller.id,
        workflow,
        trigger: "api",
        scheduleId: null,
        deploymentId,
        costEstimate,
        receipt,
      },
    });
  }

  const response = await ctx.store.transaction(async (tx) => {
    if (request.idempotencyKey) {
      const earlier = await claimIdempotencyKey(tx, caller.id, request.idempotencyKey, hash);
      if (earlier) return earlier;
    }
    const active = await lockActiveCounts(tx, [caller.id]);
    assertConcurrencyAvailable(ctx.limits[caller.tier], active.get(caller.id) ?? 0);
    if (workflow.schedule && !byDeployment) {
      schedule = await insertSchedule(tx, caller.id, workflow.name, workflow.schedule, {
        workflow,
      });
    }
    await insertExecution(tx, {
      id: executionId,
      apiKeyId: caller.id,
      workflow,
      trigger: "api",
      scheduleId: (schedule as ScheduleRow | null)?.id ?? null,
      deploymentId,
      costEstimate,
      receipt,
    });
    await ctx.queue.send(JOB_NAMES.workflowExecute, { executionId }, { tx });
    const body: SubmissionResult = {
      status: "queued",
      execution_id: executionId,
      cost_estimate: costEstimate,
      receipt,
    };
    if (schedule) body.schedule = scheduleView(schedule);
    const stored = { status: 202, body };
    if (request.idempotencyKey)
      await recordIdempotentResponse(tx, caller.id, request.idempotencyKey, stored);
    return stored;
  });
  if (schedule) await registerScheduleLogged(ctx, schedule);
  return response as StoredResponse & { body: SubmissionResult };
}
