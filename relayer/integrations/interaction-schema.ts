import { z } from "@hono/zod-openapi";

/** An external API interaction with its current on-chain anchor, as the API and reports show it. */
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
