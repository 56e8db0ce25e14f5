import { validationFailed } from "../http/index.ts";
import { DEPLOYMENT_NAME, insertDeployment } from "./deployments.ts";
import { claimIdempotencyKey, recordIdempotentResponse } from "./idempotency.ts";
import { parseBody } from "./body.ts";
import { normaliseWorkflow } from "./normalise.ts";
import {
  deleteDeploymentSchedules,
  insertSchedule,
  scheduleView,
  unregisterSchedule,
  type ScheduleRow,
} from "./schedules.ts";
import type { Caller, SubmittedRequest, WorkflowContext } from "./intake.ts";
import {
  assertComplianceListsLoaded,
  idempotentReplay,
  registerScheduleLogged,
  workflowCatalogue,
} from "./prepare.ts";

/**
 * `POST /workflows/deploy`: validates and stores the next version of the named configuration.
 * Its schedule (if any) replaces the schedule of the name's earlier versions and fires this
 * version; deploying a version without a schedule stops the name's schedule.
 */
export async function deployWorkflow(
  ctx: WorkflowContext,
  caller: Caller,
  request: SubmittedRequest,
) {
  const { hash, replay } = await idempotentReplay(ctx, caller, request);
  if (replay) return replay;
  const workflow = normaliseWorkflow(
    request.format,
    parseBody(request.format, request.text),
    workflowCatalogue(ctx),
  );
  await assertComplianceListsLoaded(ctx, workflow);
  if (!DEPLOYMENT_NAME.test(workflow.name)) {
    throw validationFailed([
      {
        path: "name",
        message:
          "a deployment name is 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit",
      },
    ]);
  }
  let created: ScheduleRow | null = null;
  let replaced: string[] = [];
  const response = await ctx.store.transaction(async (tx) => {
    if (request.idempotencyKey) {
      const earlier = await claimIdempotencyKey(tx, caller.id, request.idempotencyKey, hash);
      if (earlier) return earlier;
    }
    const deployment = await insertDeployment(tx, caller.id, workflow, {
      format: request.format,
      text: request.text,
    });
    replaced = await deleteDeploymentSchedules(tx, caller.id, workflow.name);
    if (workflow.schedule) {
      created = await insertSchedule(tx, caller.id, workflow.name, workflow.schedule, {
        deployment: { name: workflow.name, version: Number(deployment.version) },
      });
    }
    const stored = {
      status: 201,
      body: {
        id: deployment.id,
        name: deployment.name,
        version: Number(deployment.version),
        schedule: created ? scheduleView(created) : null,
        created_at: new Date(deployment.created_at).toISOString(),
      },
    };
    if (request.idempotencyKey)
      await recordIdempotentResponse(tx, caller.id, request.idempotencyKey, stored);
    return stored;
  });
  for (const id of replaced)
    await unregisterSchedule(ctx.queue, id).catch((err) =>
      ctx.logger.error({ err, schedule: id }, "could not remove a replaced schedule"),
    );
  if (created) await registerScheduleLogged(ctx, created);
  return response;
}
