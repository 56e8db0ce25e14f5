import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { complianceSpecs, complianceSpecsSchema } from "../compliance/index.ts";
import {
  mediaType,
  type AppEnv,
  ApiError,
  errorSchema,
  validationErrorSchema,
  createRouter,
  validationFailed,
  HMAC_SECURITY,
} from "../http/index.ts";
import { getDeploymentVersions, listDeployments } from "./deployments.ts";
import { cancelExecution, getExecution, listExecutions } from "./executions.ts";
import { bodyFormat } from "./body.ts";
import { deleteSchedule, listSchedules, pauseSchedule, resumeSchedule } from "./schedules.ts";
import {
  cancelResultSchema,
  deployResultSchema,
  deploymentListSchema,
  deploymentNameParamSchema,
  deploymentVersionsSchema,
  deploymentRunSchema,
  executionIdParamSchema,
  executionListQuerySchema,
  executionListSchema,
  executionViewSchema,
  listQuerySchema,
  scheduleIdParamSchema,
  scheduleListSchema,
  scheduleViewSchema,
  submissionResultSchema,
  workflowSubmissionSchema,
  yamlWorkflowSchema,
} from "./schemas.ts";
import { deployWorkflow } from "./deploy.ts";
import type { SubmittedRequest, WorkflowContext } from "./intake.ts";
import { submitWorkflow } from "./submit.ts";
import { SPEC_JSON_EXAMPLE, SPEC_YAML_EXAMPLE } from "./examples.ts";

/**
 * Routes of the workflow area: submission (JSON or YAML), status, list, cancel, schedules,
 * deployments, and the compliance catalogue. The route file composes; the work is in the use
 * cases (submit.ts, deploy.ts), executions.ts and schedules.ts.
 */

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: errorSchema } },
});
const validationError = {
  description:
    "VALIDATION_FAILED with the issues, or INVALID_COMPLIANCE_RULES (see /v1/compliance/specs)",
  content: { "application/json": { schema: validationErrorSchema } },
};
const workflowBody = {
  required: true,
  content: {
    "application/json": {
      schema: z.union([workflowSubmissionSchema, deploymentRunSchema]),
      examples: {
        spec: { summary: "The spec's JSON example", value: SPEC_JSON_EXAMPLE },
        deployed: {
          summary: "Run a deployed configuration by name (latest version unless `version`)",
          value: { deployment: "treasury-rebalance", version: 1 },
        },
      },
    },
    "application/yaml": {
      schema: yamlWorkflowSchema,
      examples: { spec: { summary: "The spec's YAML example", value: SPEC_YAML_EXAMPLE } },
    },
  },
};
const idempotencyHeader = z.object({
  "idempotency-key": z.string().optional().openapi({
    description:
      "Replays the first response for the same key and body (24 h); another body with the same key is a 409.",
  }),
});

/** The submitted body as text with its format; 400 for an empty body or bytes that are not UTF-8. */
function submittedRequest(c: Context<AppEnv>): SubmittedRequest {
  const raw = c.get("rawBody") ?? new Uint8Array();
  if (raw.byteLength === 0)
    throw validationFailed([{ path: "", message: "a workflow body is required" }]);
  const contentType = c.req.header("content-type");
  const format = bodyFormat(contentType);
  if (!format) {
    throw new ApiError(415, "UNSUPPORTED_MEDIA_TYPE", "send application/json or application/yaml");
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    throw validationFailed([{ path: "", message: "the body is not UTF-8 text" }]);
  }
  return {
    format,
    text,
    mediaType: mediaType(contentType),
    path: c.req.path,
    idempotencyKey: c.req.header("idempotency-key"),
  };
}

const caller = (c: Context<AppEnv>) => {
  const key = c.get("apiKey");
  return { id: key.id, tier: key.tier };
};

export function workflowRoutes(ctx: WorkflowContext) {
  const router = createRouter();

  router.openAPIRegistry.registerPath({
    method: "post",
    path: "/v1/workflows",
    summary: "Submit a workflow (JSON or YAML), or run a deployed one by name",
    tags: ["workflows"],
    security: HMAC_SECURITY,
    request: { body: workflowBody, headers: idempotencyHeader },
    responses: {
      202: {
        description: "Queued",
        content: { "application/json": { schema: submissionResultSchema } },
      },
      400: validationError,
      404: error("DEPLOYMENT_NOT_FOUND"),
      409: error("IDEMPOTENCY_KEY_REUSED"),
      422: error("INSUFFICIENT_LIQUIDITY (with retry_in) or NO_ROUTE"),
      429: error("RATE_LIMITED or CONCURRENCY_LIMIT_EXCEEDED"),
      503: error(
        "SANCTIONS_LIST_UNAVAILABLE: a sanctions list the workflow's jurisdictions require is not loaded",
      ),
    },
  });
  router.post("/v1/workflows", async (c) => {
    const result = await submitWorkflow(ctx, caller(c), submittedRequest(c));
    return c.json(result.body, result.status as 202);
  });

  router.openAPIRegistry.registerPath({
    method: "post",
    path: "/workflows/deploy",
    summary: "Store a named, versioned workflow configuration",
    tags: ["workflows"],
    security: HMAC_SECURITY,
    request: {
      body: {
        ...workflowBody,
        content: {
          "application/json": { schema: workflowSubmissionSchema, example: SPEC_JSON_EXAMPLE },
          "application/yaml": { schema: yamlWorkflowSchema, example: SPEC_YAML_EXAMPLE },
        },
      },
      headers: idempotencyHeader,
    },
    responses: {
      201: {
        description: "Deployed",
        content: { "application/json": { schema: deployResultSchema } },
      },
      400: validationError,
      409: error("IDEMPOTENCY_KEY_REUSED"),
      503: error(
        "SANCTIONS_LIST_UNAVAILABLE: a sanctions list the workflow's jurisdictions require is not loaded",
      ),
    },
  });
  router.post("/workflows/deploy", async (c) => {
    const result = await deployWorkflow(ctx, caller(c), submittedRequest(c));
    return c.json(result.body as object, result.status as 201);
  });

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/workflows",
      summary: "List this key's executions, newest first",
      tags: ["workflows"],
      security: HMAC_SECURITY,
      request: { query: executionListQuerySchema },
      responses: {
        200: {
          description: "A page of executions",
          content: { "application/json": { schema: executionListSchema } },
        },
        400: validationError,
      },
    }),
    async (c) => c.json(await listExecutions(ctx.store, caller(c).id, c.req.valid("query")), 200),
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/workflows/{id}",
      summary: "An execution: state, stage, steps with transaction hashes, errors, final report",
      tags: ["workflows"],
      security: HMAC_SECURITY,
      request: { params: executionIdParamSchema },
      responses: {
        200: {
          description: "The execution",
          content: { "application/json": { schema: executionViewSchema } },
        },
        404: error("EXECUTION_NOT_FOUND"),
      },
    }),
    async (c) => c.json(await getExecution(ctx.store, caller(c).id, c.req.valid("param").id), 200),
  );

  router.openapi(
    createRoute({
      method: "post",
      path: "/v1/workflows/{id}/cancel",
      summary: "Cancel a queued execution, or stop a running one before its next action",
      tags: ["workflows"],
      security: HMAC_SECURITY,
      request: { params: executionIdParamSchema },
      responses: {
        200: {
          description: "Cancelled or cancelling",
          content: { "application/json": { schema: cancelResultSchema } },
        },
        404: error("EXECUTION_NOT_FOUND"),
        409: error("EXECUTION_FINISHED"),
      },
    }),
    async (c) =>
      c.json(await cancelExecution(ctx.store, caller(c).id, c.req.valid("param").id), 200),
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/schedules",
      summary: "List this key's live schedules",
      tags: ["schedules"],
      security: HMAC_SECURITY,
      request: { query: listQuerySchema },
      responses: {
        200: {
          description: "A page of schedules",
          content: { "application/json": { schema: scheduleListSchema } },
        },
        400: validationError,
      },
    }),
    async (c) => c.json(await listSchedules(ctx.store, caller(c).id, c.req.valid("query")), 200),
  );

  router.openapi(
    createRoute({
      method: "delete",
      path: "/v1/schedules/{id}",
      summary: "Delete a schedule: no further firings",
      tags: ["schedules"],
      security: HMAC_SECURITY,
      request: { params: scheduleIdParamSchema },
      responses: {
        200: {
          description: "Deleted",
          content: {
            "application/json": {
              schema: z.object({
                id: z.string(),
                deleted: z.literal(true),
                deleted_at: z.string(),
              }),
            },
          },
        },
        404: error("SCHEDULE_NOT_FOUND"),
      },
    }),
    async (c) =>
      c.json(
        await deleteSchedule(ctx.store, ctx.queue, caller(c).id, c.req.valid("param").id),
        200,
      ),
  );

  for (const [action, change, summary] of [
    [
      "pause",
      pauseSchedule,
      "Pause a schedule: no firings until it is resumed (pausing a paused schedule changes nothing)",
    ],
    [
      "resume",
      resumeSchedule,
      "Resume a paused schedule from its next occurrence (missed occurrences are not made up)",
    ],
  ] as const) {
    router.openapi(
      createRoute({
        method: "post",
        path: `/v1/schedules/{id}/${action}`,
        summary,
        tags: ["schedules"],
        security: HMAC_SECURITY,
        request: { params: scheduleIdParamSchema },
        responses: {
          200: {
            description: "The schedule as it is now",
            content: { "application/json": { schema: scheduleViewSchema } },
          },
          404: error("SCHEDULE_NOT_FOUND"),
        },
      }),
      async (c) =>
        c.json(await change(ctx.store, ctx.queue, caller(c).id, c.req.valid("param").id), 200),
    );
  }

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/deployments",
      summary: "List this key's deployed workflow names with their latest version",
      tags: ["workflows"],
      security: HMAC_SECURITY,
      request: { query: listQuerySchema },
      responses: {
        200: {
          description: "A page of deployments, by name",
          content: { "application/json": { schema: deploymentListSchema } },
        },
        400: validationError,
      },
    }),
    async (c) => c.json(await listDeployments(ctx.store, caller(c).id, c.req.valid("query")), 200),
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/deployments/{name}",
      summary: "Every version of a deployed workflow, newest first",
      tags: ["workflows"],
      security: HMAC_SECURITY,
      request: { params: deploymentNameParamSchema },
      responses: {
        200: {
          description: "The versions",
          content: { "application/json": { schema: deploymentVersionsSchema } },
        },
        404: error("DEPLOYMENT_NOT_FOUND"),
      },
    }),
    async (c) =>
      c.json(await getDeploymentVersions(ctx.store, caller(c).id, c.req.valid("param").name), 200),
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/compliance/specs",
      summary: "Supported jurisdictions with their sanctions lists, and supported tax forms",
      tags: ["compliance"],
      security: [...HMAC_SECURITY, { BearerApiKey: [] }],
      responses: {
        200: {
          description: "The compliance catalogue",
          content: { "application/json": { schema: complianceSpecsSchema } },
        },
      },
    }),
    (c) => c.json(complianceSpecs(), 200),
  );

  return router;
}
