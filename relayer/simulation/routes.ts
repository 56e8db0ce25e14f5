import { createRoute } from "@hono/zod-openapi";
import type { ChainHandle } from "../chains/index.ts";
import type { AppContext } from "../context/index.ts";
import { errorSchema, createRouter } from "../http/index.ts";
import { simulateRequestSchema, simulateResponseSchema } from "./schema.ts";
import { requireChain, simulateTransaction, simulationChain } from "./simulate.ts";

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: errorSchema } },
});

/** `POST /tx/simulate`: a dry run with decoded results and an MEV estimate; never broadcasts. */
export function simulationRoutes(ctx: AppContext) {
  const app = createRouter();
  app.openapi(
    createRoute({
      method: "post",
      path: "/tx/simulate",
      tags: ["simulation"],
      summary:
        "Dry-run a transaction: success or revert reason, gas, balance changes, sandwich (MEV) risk",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: simulateRequestSchema,
              example: {
                chain_id: 31337,
                tx_data: {
                  from: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
                  to: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
                  value: "1000000000000000",
                  data: "0x",
                },
                block_count: 12,
              },
            },
          },
        },
      },
      responses: {
        200: {
          description: "the simulation",
          content: { "application/json": { schema: simulateResponseSchema } },
        },
        400: error(
          "VALIDATION_FAILED (malformed address, calldata, quantity, block_count) or UNKNOWN_CHAIN",
        ),
        401: error("authentication failed"),
      },
    }),
    async (c) => {
      const request = c.req.valid("json");
      const chains = (ctx.chains?.list() ?? []) as unknown as ChainHandle[];
      const chain = simulationChain(requireChain(chains, request.chain_id));
      return c.json(await simulateTransaction(chain, request), 200);
    },
  );
  return app;
}
