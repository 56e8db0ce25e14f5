import { createRoute, z } from "@hono/zod-openapi";
import type { SecretCipher } from "../accounts/index.ts";
import { ApiError, createRouter, HMAC_SECURITY, queryIntegerOr } from "../http/index.ts";
import type { Store } from "../store/index.ts";
import {
  createEndpoint,
  deleteEndpoint,
  findEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  WEBHOOK_EVENT_TYPES,
  type Delivery,
  type WebhookEndpoint,
} from "./endpoints.ts";
import { refuseUrl, type TargetPolicy } from "./targets.ts";

const MAX_ENDPOINTS_PER_KEY = 10;

const errorSchema = z
  .object({ error: z.string(), detail: z.string() })
  .openapi("WebhookError", { example: { error: "WEBHOOK_NOT_FOUND", detail: "no webhook whk_…" } });

const createSchema = z
  .object({
    url: z.string().max(2048).openapi({ example: "https://hooks.example.com/veriflow" }),
    events: z
      .array(z.enum(WEBHOOK_EVENT_TYPES))
      .max(WEBHOOK_EVENT_TYPES.length)
      .optional()
      .openapi({ description: "Event types to receive; empty or absent: all." }),
    description: z.string().max(200).optional(),
  })
  .strict()
  .openapi("WebhookCreate", {
    example: { url: "https://hooks.example.com/veriflow", events: ["execution.report"] },
  });

const endpointSchema = z
  .object({
    id: z.string().openapi({ example: "whk_01JD8X3V6N2Q5R7T9W0Y1Z2A3B" }),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    description: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("Webhook");

const createdSchema = endpointSchema
  .extend({
    secret: z.string().openapi({
      description:
        "Signing secret (Standard Webhooks `whsec_…`), shown only in this response; verify deliveries with it.",
    }),
  })
  .openapi("WebhookCreated");

const deliverySchema = z
  .object({
    id: z
      .string()
      .openapi({ description: "The webhook-id header of every attempt", example: "msg_42" }),
    type: z.string(),
    execution_id: z.string(),
    state: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    last_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
  })
  .openapi("WebhookDelivery");

const redeliverSchema = z
  .object({
    message_id: z.string().optional().openapi({
      description: "One delivery (its webhook-id); absent: every failed delivery of the endpoint",
      example: "msg_42",
    }),
  })
  .strict()
  .openapi("WebhookRedeliver", { example: { message_id: "msg_42" } });

const idParam = z.object({ id: z.string().max(64) });

const viewEndpoint = (e: WebhookEndpoint) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  description: e.description,
  created_at: e.createdAt.toISOString(),
});

const viewDelivery = (d: Delivery) => ({
  id: d.id,
  type: d.type,
  execution_id: d.executionId,
  state: d.state,
  attempts: d.attempts,
  last_status: d.lastStatus,
  last_error: d.lastError,
  created_at: d.createdAt.toISOString(),
  delivered_at: d.deliveredAt?.toISOString() ?? null,
  next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
});

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const notFound = (id: string) => new ApiError(404, "WEBHOOK_NOT_FOUND", `no webhook ${id}`);

/** `/v1/webhooks`: endpoints per API key, their delivery log and redelivery. */
export function webhookRoutes(deps: { store: Store; cipher: SecretCipher; policy: TargetPolicy }) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/webhooks",
      summary: "Register a webhook endpoint for this key's execution events",
      security: HMAC_SECURITY,
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: createSchema,
              example: {
                url: "https://hooks.example.com/veriflow",
                events: ["execution.state_changed", "execution.report"],
                description: "treasury operations",
              },
            },
          },
        },
      },
      responses: {
        201: json(createdSchema, "Registered; the secret is shown only here"),
        400: json(
          errorSchema,
          "VALIDATION_FAILED, or WEBHOOK_URL_REFUSED (not https in production, private address, credentials)",
        ),
        409: json(errorSchema, "WEBHOOK_LIMIT: at most 10 endpoints per key"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const refused = refuseUrl(body.url, deps.policy);
      if (refused) throw new ApiError(400, "WEBHOOK_URL_REFUSED", `url: ${refused}`);
      const apiKeyId = c.get("apiKey").id;
      if ((await listEndpoints(deps.store, apiKeyId)).length >= MAX_ENDPOINTS_PER_KEY) {
        throw new ApiError(
          409,
          "WEBHOOK_LIMIT",
          `at most ${MAX_ENDPOINTS_PER_KEY} webhook endpoints per key`,
        );
      }
      const { endpoint, secret } = await createEndpoint(deps.store, deps.cipher, {
        apiKeyId,
        url: body.url,
        events: [...new Set(body.events ?? [])],
        description: body.description,
      });
      return c.json({ ...viewEndpoint(endpoint), secret }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/webhooks",
      summary: "This key's webhook endpoints",
      security: HMAC_SECURITY,
      responses: {
        200: json(z.object({ items: z.array(endpointSchema) }).openapi("WebhookList"), "Endpoints"),
      },
    }),
    async (c) => {
      const items = await listEndpoints(deps.store, c.get("apiKey").id);
      return c.json({ items: items.map(viewEndpoint) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/webhooks/{id}",
      summary: "Delete an endpoint (its pending deliveries are dropped)",
      security: HMAC_SECURITY,
      request: { params: idParam },
      responses: {
        200: json(
          z.object({ id: z.string(), deleted: z.literal(true) }).openapi("WebhookDeleted"),
          "Deleted",
        ),
        404: json(errorSchema, "WEBHOOK_NOT_FOUND"),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      if (!(await deleteEndpoint(deps.store, c.get("apiKey").id, id))) throw notFound(id);
      return c.json({ id, deleted: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/webhooks/{id}/deliveries",
      summary: "The endpoint's delivery log, newest first",
      security: HMAC_SECURITY,
      request: {
        params: idParam,
        query: z.object({ limit: queryIntegerOr(100, 1, 500) }),
      },
      responses: {
        200: json(
          z.object({ items: z.array(deliverySchema) }).openapi("WebhookDeliveryList"),
          "Deliveries",
        ),
        404: json(errorSchema, "WEBHOOK_NOT_FOUND"),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      if (!(await findEndpoint(deps.store, c.get("apiKey").id, id))) throw notFound(id);
      const items = await listDeliveries(deps.store, id, c.req.valid("query").limit);
      return c.json({ items: items.map(viewDelivery) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/webhooks/{id}/redeliver",
      summary: "Send a delivery again with its original webhook-id (or every failed one)",
      security: HMAC_SECURITY,
      request: {
        params: idParam,
        body: {
          required: false,
          content: {
            "application/json": {
              schema: redeliverSchema,
              examples: {
                one: {
                  summary: "One delivery, by its webhook-id",
                  value: { message_id: "msg_42" },
                },
                failed: { summary: "Every failed delivery of the endpoint", value: {} },
              },
            },
          },
        },
      },
      responses: {
        202: json(
          z.object({ redelivered: z.number().int() }).openapi("WebhookRedelivered"),
          "Queued",
        ),
        404: json(errorSchema, "WEBHOOK_NOT_FOUND, or DELIVERY_NOT_FOUND"),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      if (!(await findEndpoint(deps.store, c.get("apiKey").id, id))) throw notFound(id);
      const body = (c.req.valid("json") ?? {}) as z.infer<typeof redeliverSchema>;
      const count = await redeliver(deps.store, id, body.message_id);
      if (count === null) {
        throw new ApiError(404, "DELIVERY_NOT_FOUND", `no delivery ${body.message_id} on ${id}`);
      }
      return c.json({ redelivered: count }, 202);
    },
  );

  return app;
}
