import { howToConfigure, missingListFiles } from "../compliance/index.ts";
import {
  ApiError,
  checkIdempotencyKey,
  issuesFromZod,
  requestHash,
  validationFailed,
} from "../http/index.ts";
import { estimateCostSummary, InsufficientLiquidityError, NoRouteError } from "../routing/index.ts";
import type { RoutingChainSet } from "../routing/index.ts";
import type { AssetCatalogue } from "./catalogue.ts";
import { findDeployment } from "./deployments.ts";
import { replayIdempotent, type StoredResponse } from "./idempotency.ts";
import type { Workflow } from "../model/index.ts";
import { parseBody } from "./body.ts";
import { normaliseWorkflow } from "./normalise.ts";
import { registerSchedule, type ScheduleRow } from "./schedules.ts";
import { deploymentRunSchema } from "./schemas.ts";
import { issueReceipt, type SubmissionReceipt } from "../proofs/index.ts";
import type { Caller, SubmittedRequest, WorkflowContext } from "./intake.ts";

/**
 * The steps the use cases share before they store anything: the catalogue, an Idempotency-Key's
 * replay, the body resolved to a workflow, the cost estimate (routing refusals keep their own
 * bodies), the jurisdictions' sanctions lists, the submission receipt and the schedule's cron entry.
 */
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
export async function idempotentReplay(
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
export async function resolveWorkflow(
  ctx: WorkflowContext,
  caller: Caller,
  request: SubmittedRequest,
) {
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
 * The signed submission receipt of a new execution (relayer/proofs/receipt.ts): the commitment to
 * the workflow as stored for it, under a salt drawn now. Null when no chain has an attestor. A
 * workflow the execution circuit cannot hold is refused here (422 EXECUTION_CLAIM_INVALID).
 */
export async function submissionReceipt(
  ctx: WorkflowContext,
  executionId: string,
  apiKeyId: string,
  workflow: Workflow,
): Promise<SubmissionReceipt | null> {
  const signer = ctx.intake.receiptSigner;
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

export async function registerScheduleLogged(
  ctx: WorkflowContext,
  row: ScheduleRow,
): Promise<void> {
  try {
    await registerSchedule(ctx.queue, row);
  } catch (err) {
    // The row is stored; reconcileSchedules at the next start registers it.
    ctx.logger.error({ err, schedule: row.id }, "could not register the schedule with pg-boss");
  }
}
