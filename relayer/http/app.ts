import type { OpenAPIHono } from "@hono/zod-openapi";
import { every } from "hono/combine";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { routePath } from "hono/route";
import { accountRoutes } from "../accounts/routes.ts";
import { analysisRoutes, openTextAnalysis } from "../analysis/index.ts";
import { artifactRoutes } from "../artifacts/routes.ts";
import { authenticate } from "../auth/middleware.ts";
import { complianceRoutes } from "../compliance/routes.ts";
import type { AppContext } from "../context.ts";
import { admissionBatcher } from "../limits/admission.ts";
import { rateLimit } from "../limits/middleware.ts";
import { simulationRoutes } from "../simulation/routes.ts";
import { workflowRoutes } from "../workflows/routes.ts";
import { readBody } from "./body.ts";
import { docsRoutes } from "./docs.ts";
import type { AppEnv } from "./env.ts";
import { ApiError } from "./errors.ts";
import { healthRoutes } from "./health.ts";
import { integrationRoutes } from "../integrations/routes.ts";
import { createRouter } from "./router.ts";

/** Paths served without authentication (spec: "except health, metrics and docs"). */
export function isPublicPath(path: string): boolean {
  return (
    path === "/healthz" ||
    path === "/readyz" ||
    path === "/metrics" ||
    path === "/openapi.json" ||
    path === "/docs" ||
    path.startsWith("/docs/")
  );
}

/** Compliance endpoints also take `Authorization: Bearer <API_KEY>` (spec "Authentication" 4). */
export function acceptsBearer(path: string): boolean {
  return /^\/(v[0-9]+\/)?compliance(\/|$)/.test(path);
}

export const SECURITY_SCHEMES = {
  ApiKey: { type: "apiKey", in: "header", name: "X-SVC-Key" },
  Signature: {
    type: "apiKey",
    in: "header",
    name: "X-SVC-Signature",
    description:
      "Lower-case hex HMAC-SHA256 with the key's signing secret over X-SVC-Timestamp immediately followed by the raw request body.",
  },
  Timestamp: {
    type: "apiKey",
    in: "header",
    name: "X-SVC-Timestamp",
    description:
      "Milliseconds since the epoch, decimal; accepted within ±300 s of the server's clock.",
  },
  BearerApiKey: {
    type: "http",
    scheme: "bearer",
    description: "`Authorization: Bearer <API_KEY>`, accepted on the compliance endpoints only.",
  },
} as const;

/** The HMAC requirement (all three headers); route files may add `{ BearerApiKey: [] }`. */
export const HMAC_SECURITY = [{ ApiKey: [], Signature: [], Timestamp: [] }];

/**
 * The relayer's HTTP application. Every request gets a request id, a child logger, metrics and
 * an access log line; every non-public request goes through body reading (415/413), authentication
 * (401) and the rate limit (429) before any route runs. Errors leave in one shape.
 */
export function createApp(ctx: AppContext): OpenAPIHono<AppEnv> {
  const app = createRouter();

  app.use("*", requestId());
  app.use("*", observe(ctx));
  const admissions = admissionBatcher(ctx.store, () => ctx.clock());
  const guard = every(
    readBody(),
    authenticate({
      store: ctx.store,
      masterKey: ctx.masterKey,
      clock: () => ctx.clock(),
      allowBearer: acceptsBearer,
      // Replay record and rate count in one statement shared by the requests arriving together;
      // rateLimit() then uses the decision.
      admit: async (c, credentials, signature, timestampMs) => {
        const admission = await admissions.submit({
          keyId: credentials.id,
          signature,
          timestampMs,
          limit: ctx.limits[credentials.tier].requestsPerMinute,
        });
        if (admission.fresh) c.set("rateDecision", admission.rate);
        return admission.fresh;
      },
    }),
    rateLimit({ store: ctx.store, limits: ctx.limits, clock: () => ctx.clock() }),
  );
  app.use("*", async (c, next) => (isPublicPath(c.req.path) ? next() : guard(c, next)));

  app.route("/", healthRoutes(ctx));
  app.route("/", docsRoutes());
  app.get("/metrics", async (c) =>
    c.body(await ctx.metrics.registry.metrics(), 200, {
      "Content-Type": ctx.metrics.registry.contentType,
    }),
  );

  // Areas mount their routers here, one line each: app.route("/", <area>Routes(ctx));
  app.route("/", accountRoutes(ctx));
  app.route("/", simulationRoutes(ctx));
  app.route("/", complianceRoutes(ctx));
  app.route("/", artifactRoutes(ctx));
  app.route("/", workflowRoutes(ctx));
  app.route("/", integrationRoutes(ctx));
  app.route("/", analysisRoutes(openTextAnalysis(ctx)));

  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) {
    app.openAPIRegistry.registerComponent("securitySchemes", name, scheme);
  }
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Veriflow relayer API",
      version: "1.0.0",
      description:
        "HMAC-signed REST API: submit multi-chain workflows, follow their execution, verify proofs. " +
        "Errors are `{error, detail, ...}` with an upper-case code.",
    },
    servers: [{ url: `http://${ctx.config.host}:${ctx.config.port}` }],
    security: HMAC_SECURITY,
  });

  app.notFound((c) =>
    c.json({ error: "NOT_FOUND", detail: `no route for ${c.req.method} ${c.req.path}` }, 404),
  );
  app.onError((err, c) => {
    if (err instanceof ApiError) {
      return c.json(err.toBody(), err.status, err.headers);
    }
    if (err instanceof HTTPException) {
      // Hono's own refusals (e.g. malformed JSON in a validated body) in the one shape.
      const code = err.status === 400 ? "MALFORMED_BODY" : `HTTP_${err.status}`;
      return c.json({ error: code, detail: err.message || "request refused" }, err.status);
    }
    const id = c.get("requestId");
    (c.get("logger") ?? ctx.logger).error({ err }, "unhandled error");
    return c.json(
      { error: "INTERNAL_ERROR", detail: `an internal error occurred; quote request id ${id}` },
      500,
    );
  });

  return app;
}

/** Request-scoped logger, Prometheus metrics and one access-log line per request. */
function observe(ctx: AppContext) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    const logger = ctx.logger.child({ req_id: c.get("requestId") });
    c.set("logger", logger);
    await next();
    const seconds = (performance.now() - started) / 1000;
    const status = String(c.res.status);
    const matched = routePath(c, -1);
    const route = matched === "/*" || matched === "*" ? "unmatched" : matched;
    ctx.metrics.httpRequests.inc({ method: c.req.method, route, status });
    ctx.metrics.httpDuration.observe({ method: c.req.method, route, status }, seconds);
    const apiKey = c.get("apiKey");
    logger.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(seconds * 10_000) / 10,
        key: apiKey?.key,
      },
      "request",
    );
  });
}
