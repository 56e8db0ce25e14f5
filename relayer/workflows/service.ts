import type { Job } from "pg-boss";
import { howToConfigure, missingListFiles, type ComplianceSource } from "../compliance/index.ts";
import type { AppContext } from "../context/index.ts";
import { ApiError, issuesFromZod, validationFailed } from "../http/index.ts";
import { assertConcurrencyAvailable } from "../limits/index.ts";
import { JOB_NAMES, type JobPayloads } from "../queue/index.ts";
import { estimateCostSummary, InsufficientLiquidityError, NoRouteError } from "../routing/index.ts";
import type { RoutingChainSet } from "../routing/index.ts";
import { Batcher, GroupCommit, type Outcome, type Store } from "../store/index.ts";
import { buildCatalogue, type AssetCatalogue, type ChainDescription } from "./catalogue.ts";
import { DEPLOYMENT_NAME, findDeployment, insertDeployment } from "./deployments.ts";
import {
  lockActiveCounts,
  insertExecution,
  insertExecutions,
  insertSubmissionBatch,
  type NewExecution,
} from "../executions/index.ts";
import {
  checkIdempotencyKey,
  claimIdempotencyKey,
  recordIdempotentResponse,
  replayIdempotent,
  requestHash,
  type StoredResponse,
} from "./idempotency.ts";
import { newExecutionId, type Workflow } from "../model/index.ts";
import { normaliseWorkflow, parseBody, type BodyFormat } from "./normalise.ts";
import {
  deleteDeploymentSchedules,
  insertSchedule,
  reconcileSchedules,
  recordFiring,
  registerSchedule,
  scheduleView,
  unregisterSchedule,
  type ScheduleRow,
} from "./schedules.ts";
import { deploymentRunSchema, type SubmissionResult } from "./schemas.ts";
import { issueReceipt, receiptSignerOf, type SubmissionReceipt } from "../proofs/index.ts";

/**
 * The workflow use cases, callable without HTTP: submit (run now, by value or by deployment
 * name), deploy, fire a schedule. Each stores what it creates and sends the `workflow.execute`
 * job in ONE transaction, so no job exists without its execution row and no queued row lacks
 * its job.
 */

/** The platform services the intake uses. */
export type IntakePlatform = Pick<AppContext, "store" | "queue" | "chains" | "limits" | "logger">;

export type WorkflowContext = IntakePlatform & {
  compliance: ComplianceSource;
  intake: WorkflowIntake;
};

/**
 * What the intake keeps for the life of a process, built once by the composition root: the asset
 * catalogue of the open chains (null without chains) and the batcher that stores submissions
 * arriving together in one statement (see `submissionBatcher`).
 */
export interface WorkflowIntake {
  catalogue: AssetCatalogue | null;
  submissions: Batcher<PendingSubmission, Accepted>;
}

export function createWorkflowIntake(
  platform: IntakePlatform,
  options: { recipientSources?: Iterable<string> } = {},
): WorkflowIntake {
  return {
    catalogue: platform.chains
      ? {
          ...buildCatalogue(platform.chains.list() as unknown as ChainDescription[]),
          recipientSources: new Set(options.recipientSources ?? []),
        }
      : null,
    submissions: submissionBatcher(platform),
  };
}

export interface Caller {
  id: string;
  tier: keyof AppContext["limits"];
}

export interface SubmittedRequest {
  format: BodyFormat;
  /** The body exactly as received (hashed for Idempotency-Key, kept for deployments). */
  text: string;
  mediaType: string;
  path: string;
  idempotencyKey?: string | undefined;
}

/** Assets, chains, exchanges and bridge protocols from the open chains' deployments. */
export function workflowCatalogue(ctx: Pick<WorkflowContext, "intake">): AssetCatalogue {
  if (!ctx.intake.catalogue) {
    throw new ApiError(
      503,
      "CHAINS_UNAVAILABLE",
      "the relayer runs without chains; workflows cannot be accepted",
      {},
      { "Retry-After": "30" },
    );
  }
  return ctx.intake.catalogue;
}

/** The engine's estimate from the chains; routing failures become the spec's error bodies. */
export async function estimateWorkflowCost(ctx: WorkflowContext, workflow: Workflow) {
  try {
    return await estimateCostSummary(ctx.chains as unknown as RoutingChainSet, workflow);
  } catch (err) {
    // Refusals of the workflow's content: their own body, 422 at the edge.
    if (err instanceof InsufficientLiquidityError || err instanceof NoRouteError) throw err;
    ctx.logger.error({ err }, "cost estimate failed");
    throw new ApiError(
      503,
      "ESTIMATE_UNAVAILABLE",
      "the chains could not be read to estimate the cost; retry later or give fallback_chains",
      { retry_in: 30 },
      { "Retry-After": "30" },
    );
  }
}

/**
 * Replays the first response to an Idempotency-Key (or 409s) before any work is done. The
 * request's hash (what the key is bound to) is only computed when the request carries a key.
 */
async function idempotentReplay(
  ctx: WorkflowContext,
  caller: Caller,
  request: SubmittedRequest,
): Promise<{ hash: string; replay: StoredResponse | null }> {
  if (!request.idempotencyKey) return { hash: "", replay: null };
  checkIdempotencyKey(request.idempotencyKey);
  const hash = requestHash("POST", request.path, request.mediaType, request.text);
  return {
    hash,
    replay: await replayIdempotent(ctx.store, caller.id, request.idempotencyKey, hash),
  };
}

/** Resolves the body to a workflow: by value (JSON or YAML form) or `{deployment, version?}`. */
async function resolveWorkflow(ctx: WorkflowContext, caller: Caller, request: SubmittedRequest) {
  const document = parseBody(request.format, request.text);
  if (document && typeof document === "object" && "deployment" in document) {
    // YAML scalars arrive as text (failsafe schema): `version: 2` is "2" there.
    const version = (document as { version?: unknown }).version;
    const run =
      request.format === "yaml" && typeof version === "string"
        ? { ...document, version: /^\d+$/.test(version) ? Number(version) : version }
        : document;
    const parsed = deploymentRunSchema.safeParse(run);
    if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error));
    const deployment = await findDeployment(
      ctx.store,
      caller.id,
      parsed.data.deployment,
      parsed.data.version,
    );
    return { workflow: deployment.workflow, deploymentId: deployment.id, byDeployment: true };
  }
  return {
    workflow: normaliseWorkflow(request.format, document, workflowCatalogue(ctx)),
    deploymentId: null,
    byDeployment: false,
  };
}

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
  ctx.queue.wake(JOB_NAMES.workflowExecute);
  if (schedule) await registerScheduleLogged(ctx, schedule);
  return response as StoredResponse & { body: SubmissionResult };
}

/**
 * The signed submission receipt of a new execution (relayer/proofs/receipt.ts): the commitment to
 * the workflow as stored for it, under a salt drawn now. Null when no chain has an attestor. A
 * workflow the execution circuit cannot hold is refused here (422 EXECUTION_CLAIM_INVALID).
 */
async function submissionReceipt(
  ctx: WorkflowContext,
  executionId: string,
  apiKeyId: string,
  workflow: Workflow,
): Promise<SubmissionReceipt | null> {
  const signer = ctx.chains ? receiptSignerOf(ctx.chains.list()) : null;
  if (!signer) return null;
  return issueReceipt({ executionId, apiKeyId, workflow }, signer);
}

/**
 * Fails closed on the workflow's jurisdictions: every sanctions list file they require
 * (`sanctionsListsFor`) must be loaded by this relayer, or the submission is refused with 503
 * SANCTIONS_LIST_UNAVAILABLE naming the list and how to configure it, before anything is stored
 * or queued. A workflow without jurisdictions is screened with whatever sources are available.
 */
export async function assertComplianceListsLoaded(
  ctx: WorkflowContext,
  workflow: Workflow,
): Promise<void> {
  if (!workflow.compliance?.jurisdictions?.length) return;
  const compliance = await ctx.compliance.get();
  const missing = missingListFiles(compliance.lists, workflow.compliance.sanctionsLists);
  if (missing.length === 0) return;
  throw new ApiError(
    503,
    "SANCTIONS_LIST_UNAVAILABLE",
    `compliance.jurisdictions ${workflow.compliance.jurisdictions.join(", ")} require sanctions list ${missing.join(", ")}, which this relayer has not loaded; nothing was stored. The operator configures it (${missing.map(howToConfigure).join("; ")}) and restarts or sends SIGHUP`,
    { lists: missing, jurisdictions: workflow.compliance.jurisdictions },
  );
}

interface PendingSubmission {
  caller: Caller;
  execution: NewExecution;
}
type Accepted = StoredResponse & { body: SubmissionResult };

/**
 * Submissions without an idempotency key or a schedule, written together in ONE statement (one
 * round trip, one durable commit): it locks each key's active count (sorted, so processes cannot
 * deadlock), admits submissions in arrival order up to the tier's limit (the others get their 429
 * alone), inserts the admitted executions and their `workflow.execute` jobs (pg-boss's own insert,
 * see Queue.insertStatement) and fails as a whole unless every admitted execution got its job.
 * Exactly what the single-submission transaction guarantees, for many at the cost of one round
 * trip. Where pg-boss's insert cannot be embedded, the same in a transaction (storeSubmissions).
 */
function submissionBatcher(ctx: IntakePlatform): Batcher<PendingSubmission, Accepted> {
  const inTransaction = new GroupCommit<PendingSubmission, Accepted>(ctx.store, (tx, items) =>
    storeSubmissions(ctx, tx, items),
  );
  return new Batcher(async (items) => {
    const insertJobs = await ctx.queue.insertStatement(JOB_NAMES.workflowExecute);
    const outcomes = insertJobs
      ? await storeSubmissionsAtOnce(ctx, insertJobs, items)
      : await Promise.all(items.map((i) => settle(inTransaction.submit(i))));
    // Committed: this process's engine worker (if any) starts them now, not at its next poll.
    if (outcomes.some((o) => o.ok)) ctx.queue.wake(JOB_NAMES.workflowExecute);
    return outcomes;
  });
}

const settle = <R>(p: Promise<R>): Promise<Outcome<R>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

const accepted = (execution: NewExecution): Accepted => ({
  status: 202,
  body: {
    status: "queued",
    execution_id: execution.id,
    cost_estimate: execution.costEstimate as SubmissionResult["cost_estimate"],
    receipt: execution.receipt ?? null,
  },
});

async function storeSubmissionsAtOnce(
  ctx: IntakePlatform,
  insertJobs: string,
  items: PendingSubmission[],
): Promise<Outcome<Accepted>[]> {
  const rows = await insertSubmissionBatch(
    ctx.store,
    insertJobs,
    items.map((item) => ({
      id: item.execution.id,
      apiKeyId: item.caller.id,
      workflow: item.execution.workflow,
      deploymentId: item.execution.deploymentId ?? null,
      costEstimate: item.execution.costEstimate ?? null,
      receipt: item.execution.receipt ?? null,
      limit: ctx.limits[item.caller.tier].concurrentWorkflows,
    })),
  );
  return items.map((item, i): Outcome<Accepted> => {
    const row = rows[i];
    if (!row || row.ord !== i) {
      return { ok: false, error: new Error("submission batch: no outcome for an item") };
    }
    if (row.admitted) return { ok: true, value: accepted(item.execution) };
    const limits = ctx.limits[item.caller.tier];
    try {
      // Its turn came with the key at its limit: the active count then, as the 429 reports it.
      assertConcurrencyAvailable(limits, Math.max(Number(row.active), limits.concurrentWorkflows));
      return { ok: false, error: new Error("submission batch: refused below the limit") };
    } catch (error) {
      return { ok: false, error };
    }
  });
}

async function storeSubmissions(
  ctx: IntakePlatform,
  tx: Store,
  items: PendingSubmission[],
): Promise<Outcome<Accepted>[]> {
  const active = await lockActiveCounts(
    tx,
    items.map((i) => i.caller.id),
  );
  const admitted: NewExecution[] = [];
  const outcomes = items.map((item): Outcome<Accepted> => {
    const count = active.get(item.caller.id) ?? 0;
    try {
      assertConcurrencyAvailable(ctx.limits[item.caller.tier], count);
    } catch (error) {
      return { ok: false, error };
    }
    active.set(item.caller.id, count + 1);
    admitted.push(item.execution);
    return { ok: true, value: accepted(item.execution) };
  });
  await insertExecutions(tx, admitted);
  await ctx.queue.sendMany(
    JOB_NAMES.workflowExecute,
    admitted.map((e) => ({ executionId: e.id })),
    { tx },
  );
  return outcomes;
}

async function registerScheduleLogged(ctx: WorkflowContext, row: ScheduleRow): Promise<void> {
  try {
    await registerSchedule(ctx.queue, row);
  } catch (err) {
    // The row is stored; reconcileSchedules at the next start registers it.
    ctx.logger.error({ err, schedule: row.id }, "could not register the schedule with pg-boss");
  }
}

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

  const fired = await ctx.store.transaction(async (tx: Store): Promise<FiringResult> => {
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
  if (fired.outcome === "queued") ctx.queue.wake(JOB_NAMES.workflowExecute);
  return fired;
}

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
