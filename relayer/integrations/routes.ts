import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../context.ts";
import { ApiError, errorSchema } from "../http/errors.ts";
import { createRouter } from "../http/router.ts";
import { HMAC_SECURITY } from "../http/security.ts";
import { executionIdParamSchema } from "../workflows/schemas.ts";
import { listInteractions } from "./index.ts";

/**
 * `GET /v1/workflows/{id}/interactions`: the external API interactions of an execution with their
 * current anchor: immediate ones with their requestId and transaction, batched ones with the batch
 * root and leaf proof once the batch is anchored (`pending` before). The final report lists the
 * same entries as they stood when it was signed.
 */
const hex32 = z.string().regex(/^0x[0-9a-f]{64}$/);

export const interactionSchema = z
  .object({
    id: z.number().int(),
    integration: z.string(),
    action_index: z.number().int().nullable(),
    method: z.string(),
    endpoint: z
      .string()
      .openapi({ description: "the endpoint text whose keccak256 is endpoint_hash" }),
    endpoint_hash: hex32,
    response_hash: hex32,
    http_status: z.number().int(),
    observed_at: z
      .number()
      .int()
      .openapi({ description: "Unix seconds (the batch leaf's timestamp)" }),
    chain_id: z.number().int(),
    registry: z.string(),
    mode: z.enum(["immediate", "batch"]),
    status: z.enum(["pending", "anchored"]),
    request_id: hex32.nullable(),
    signature: z.string().nullable(),
    batch: z
      .object({
        root: hex32,
        leaf_index: z.number().int(),
        proof: z.array(hex32),
        batch_id: z.number().int().nullable(),
      })
      .nullable(),
    tx_hash: z.string().nullable(),
    block_number: z.number().int().nullable(),
  })
  .openapi("ApiInteraction");

export const interactionListSchema = z
  .object({ execution_id: z.string(), interactions: z.array(interactionSchema) })
  .openapi("ApiInteractionList");

export function integrationRoutes(ctx: Pick<AppContext, "store">) {
  const router = createRouter();
  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/workflows/{id}/interactions",
      summary: "The external API interactions of an execution and their on-chain anchors",
      tags: ["workflows"],
      security: HMAC_SECURITY,
      request: { params: executionIdParamSchema },
      responses: {
        200: {
          description: "The interactions, oldest first",
          content: { "application/json": { schema: interactionListSchema } },
        },
        404: {
          description: "EXECUTION_NOT_FOUND",
          content: { "application/json": { schema: errorSchema } },
        },
      },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      const [row] = await ctx.store.query(
        "SELECT id FROM workflow_executions WHERE id = $1 AND api_key_id = $2",
        [id, c.get("apiKey").id],
      );
      if (!row)
        throw new ApiError(404, "EXECUTION_NOT_FOUND", `no execution ${id} for this API key`);
      return c.json(
        { execution_id: id, interactions: await listInteractions(ctx.store, { executionId: id }) },
        200,
      );
    },
  );
  return router;
}
