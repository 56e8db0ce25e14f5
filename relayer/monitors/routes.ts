import { createRoute, z } from "@hono/zod-openapi";
import {
  ApiError,
  errorSchema,
  createRouter,
  HMAC_SECURITY,
  queryInteger,
  queryIntegerOr,
} from "../http/index.ts";
import { interactionSchema } from "../integrations/index.ts";
import type { Monitors } from "./monitor.ts";

/**
 * `GET /v1/monitors` and `GET /v1/monitors/{id}/changes`: the configured monitors with their
 * state, and what changed at each poll with the interaction (and its anchor) that shows it.
 */
const item = z.record(z.string(), z.unknown());

export const monitorSchema = z
  .object({
    id: z.string(),
    integration: z.string(),
    path: z.string(),
    interval_seconds: z.number(),
    state: z.enum(["pending", "ok", "unavailable", "schema_mismatch"]).openapi({
      description:
        "pending: not polled yet; unavailable: the last poll got no usable answer; schema_mismatch: the last answer was off the integration's pinned schema (an alert is raised when the state turns bad)",
    }),
    last_error: z.string().nullable(),
    last_polled_at: z.string().nullable(),
    last_changed_at: z.string().nullable(),
    polls: z.number().int(),
  })
  .openapi("Monitor");

export const monitorChangeSchema = z
  .object({
    id: z.number().int(),
    observed_at: z.string(),
    baseline: z.boolean().openapi({ description: "the first poll: every item listed as added" }),
    changes: z.array(
      z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("added"), key: z.string(), item }),
        z.object({ kind: z.literal("removed"), key: z.string(), item }),
        z.object({
          kind: z.literal("changed"),
          key: z.string(),
          field: z.string(),
          from: z.unknown(),
          to: z.unknown(),
        }),
      ]),
    ),
    interaction: interactionSchema,
  })
  .openapi("MonitorChange");

const idParam = z.object({
  id: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{0,63}$/)
    .openapi({ param: { name: "id", in: "path" }, example: "inventory" }),
});

const pageQuery = z.object({
  limit: queryIntegerOr(50, 1, 500),
  before: queryInteger(1).optional().openapi({
    description: "a change id: the page of changes older than it",
  }),
});

export function monitorRoutes({ monitors }: { monitors: Monitors | null }) {
  const router = createRouter();
  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/monitors",
      summary: "The monitored integration paths and their state",
      tags: ["integrations"],
      security: HMAC_SECURITY,
      responses: {
        200: {
          description: "The configured monitors",
          content: {
            "application/json": { schema: z.object({ monitors: z.array(monitorSchema) }) },
          },
        },
      },
    }),
    async (c) => c.json({ monitors: monitors ? await monitors.list() : [] }, 200),
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/monitors/{id}/changes",
      summary:
        "What changed at each poll of a monitor, newest first, with its anchored interaction",
      tags: ["integrations"],
      security: HMAC_SECURITY,
      request: { params: idParam, query: pageQuery },
      responses: {
        200: {
          description: "The changes",
          content: {
            "application/json": {
              schema: z.object({ monitor: z.string(), changes: z.array(monitorChangeSchema) }),
            },
          },
        },
        404: {
          description: "MONITOR_NOT_FOUND",
          content: { "application/json": { schema: errorSchema } },
        },
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const changes = monitors ? await monitors.changes(id, c.req.valid("query")) : null;
      if (!changes) throw new ApiError(404, "MONITOR_NOT_FOUND", `no monitor ${id} is configured`);
      return c.json({ monitor: id, changes }, 200);
    },
  );
  return router;
}
