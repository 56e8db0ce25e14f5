import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../context/index.ts";
import { ApiError, errorSchema, createRouter, HMAC_SECURITY } from "../http/index.ts";
import { executionIdParamSchema } from "../workflows/index.ts";
import { listInteractions } from "./index.ts";
import { interactionSchema } from "./interaction-schema.ts";

/**
 * `GET /v1/workflows/{id}/interactions`: the external API interactions of an execution with their
 * current anchor: immediate ones with their requestId and transaction, batched ones with the batch
 * root and leaf proof once the batch is anchored (`pending` before). The final report lists the
 * same entries as they stood when it was signed.
 */
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
