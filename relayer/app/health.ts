import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../context/index.ts";
import { JOB_NAMES } from "../queue/index.ts";
import { createRouter } from "../http/index.ts";

const healthSchema = z.object({ status: z.literal("ok") }).openapi("Health");

const checkSchema = z
  .object({
    ok: z.boolean(),
    detail: z.string().optional(),
    block: z.number().int().optional(),
  })
  .openapi("ReadinessCheck");

const readinessSchema = z
  .object({
    status: z.enum(["ready", "not_ready"]),
    checks: z.object({
      database: checkSchema,
      queue: checkSchema,
      chains: z.record(z.string(), checkSchema),
    }),
  })
  .openapi("Readiness");

const CHAIN_PROBE_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Why a check failed, as /readyz says it: a fixed phrase per check. The raw error stays out of the
 * response (unauthenticated) and out of the logs: an RPC or database error can carry its URL, and
 * a URL can carry an API key or a password. The log line names the error's class or code only.
 */
const NOT_READY = {
  database: "the database did not answer",
  queue: "the job queue is not available",
  chain: "the chain's RPC did not answer",
} as const;

function errorKind(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown };
  return typeof e?.code === "string" ? e.code : typeof e?.name === "string" ? e.name : "Error";
}

/** Liveness (process up) and readiness (database, queue and every chain answer). No auth. */
export function healthRoutes(ctx: AppContext) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: "get",
      path: "/healthz",
      tags: ["operations"],
      summary: "Liveness: the process is up",
      security: [],
      responses: {
        200: { description: "alive", content: { "application/json": { schema: healthSchema } } },
      },
    }),
    (c) => c.json({ status: "ok" as const }, 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/readyz",
      tags: ["operations"],
      summary: "Readiness: database, queue and chains reachable; 503 while draining",
      security: [],
      responses: {
        200: { description: "ready", content: { "application/json": { schema: readinessSchema } } },
        503: {
          description: "not ready",
          content: { "application/json": { schema: readinessSchema } },
        },
      },
    }),
    async (c) => {
      const failed = (check: keyof typeof NOT_READY, err: unknown, chain?: string) => {
        c.get("logger")?.warn({ check, chain, error: errorKind(err) }, "readiness check failed");
        return { ok: false, detail: NOT_READY[check] };
      };
      const database = await ctx.store
        .query("SELECT 1")
        .then(() => ({ ok: true }))
        .catch((err: unknown) => failed("database", err));
      const queue = ctx.draining
        ? { ok: false, detail: "shutting down" }
        : await ctx.queue.boss
            .getQueue(JOB_NAMES.workflowExecute)
            .then((q) => (q ? { ok: true } : { ok: false, detail: NOT_READY.queue }))
            .catch((err: unknown) => failed("queue", err));
      const chains: Record<string, z.infer<typeof checkSchema>> = {};
      if (!ctx.chains) {
        chains.all = { ok: false, detail: "the relayer runs without chains" };
      } else {
        await Promise.all(
          ctx.chains.list().map(async (chain) => {
            chains[chain.name] = await withTimeout(
              chain.provider.getBlockNumber(),
              CHAIN_PROBE_TIMEOUT_MS,
            )
              .then((block) => ({ ok: true, block }))
              .catch((err: unknown) => failed("chain", err, chain.name));
          }),
        );
      }
      const ready =
        !ctx.draining && database.ok && queue.ok && Object.values(chains).every((x) => x.ok);
      return c.json(
        {
          status: ready ? ("ready" as const) : ("not_ready" as const),
          checks: { database, queue, chains },
        },
        ready ? 200 : 503,
      );
    },
  );

  return app;
}
