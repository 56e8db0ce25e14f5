import type { OpenAPIHono } from "@hono/zod-openapi";
import { every } from "hono/combine";
import { requestId } from "hono/request-id";
import { accountRoutes } from "../accounts/routes.ts";
import { ANALYSIS_BODY_LIMITS, analysisRoutes } from "../analysis/routes.ts";
import { artifactRoutes } from "../artifacts/routes.ts";
import { auditPageRoutes } from "../audit/routes.ts";
import { authenticate } from "../auth/index.ts";
import { complianceRoutes } from "../compliance/routes.ts";
import {
  checkRequestUrl,
  docsRoutes,
  MAX_BODY_BYTES,
  type AppEnv,
  renderError,
  renderNotFound,
  completeDocument,
  createRouter,
  acceptsBearer,
  HMAC_SECURITY,
  isPublicPath,
  SECURITY_SCHEMES,
} from "../http/index.ts";
import { healthRoutes } from "./health.ts";
import { observe } from "./observe.ts";
import { integrationRoutes } from "../integrations/routes.ts";
import { monitorRoutes } from "../monitors/routes.ts";
import { admissionBatcher, rateLimit } from "../limits/index.ts";
import { simulationRoutes } from "../simulation/routes.ts";
import { webhookPolicy } from "../webhooks/index.ts";
import { webhookRoutes } from "../webhooks/routes.ts";
import { workflowRoutes } from "../workflows/routes.ts";
import type { Services } from "./services.ts";

/**
 * The relayer's HTTP application. Every request gets a request id, a child logger, metrics and
 * an access log line; every non-public request goes through the URL check (400), authentication of
 * its headers (401), the body's reading (415/413/400, for a known key only), the signature (401)
 * and the rate limit (429) before any route runs. Errors leave in one shape.
 */
export function createApp(services: Services): OpenAPIHono<AppEnv> {
  const app = createRouter();

  app.use("*", requestId());
  app.use("*", observe(services));
  const admissions = admissionBatcher(services.store, () => services.clock());
  const guard = every(
    checkRequestUrl(),
    authenticate({
      store: services.store,
      masterKey: services.masterKey,
      clock: () => services.clock(),
      allowBearer: acceptsBearer,
      bodyLimit: (method, path) => ANALYSIS_BODY_LIMITS.get(`${method} ${path}`) ?? MAX_BODY_BYTES,
      // Replay record and rate count in one statement shared by the requests arriving together;
      // rateLimit() then uses the decision.
      admit: async (c, credentials, signature, timestampMs) => {
        const admission = await admissions.submit({
          keyId: credentials.id,
          signature,
          timestampMs,
          limit: services.limits[credentials.tier].requestsPerMinute,
        });
        if (admission.fresh) c.set("rateDecision", admission.rate);
        return admission.fresh;
      },
    }),
    rateLimit({ store: services.store, limits: services.limits, clock: () => services.clock() }),
  );
  app.use("*", async (c, next) => (isPublicPath(c.req.path) ? next() : guard(c, next)));

  app.route("/", healthRoutes(services));
  app.route("/", docsRoutes());
  app.route("/", auditPageRoutes(services));
  app.get("/metrics", async (c) =>
    c.body(await services.metrics.registry.metrics(), 200, {
      "Content-Type": services.metrics.registry.contentType,
    }),
  );

  // Every area's routes, one line each. A route factory receives the services it uses and only
  // builds routes: background work starts in ./workers.ts.
  app.route("/", accountRoutes(services));
  app.route("/", simulationRoutes(services));
  app.route("/", complianceRoutes(services));
  app.route("/", artifactRoutes(services));
  app.route("/", workflowRoutes(services));
  app.route("/", integrationRoutes(services));
  app.route("/", monitorRoutes(services));
  app.route("/", analysisRoutes(services.analysis));
  app.route("/", webhookRoutes({ ...services, policy: webhookPolicy(services.config) }));

  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) {
    app.openAPIRegistry.registerComponent("securitySchemes", name, scheme);
  }
  const documentConfig = {
    openapi: "3.1.0",
    info: {
      title: "Veriflow relayer API",
      version: "1.0.0",
      description:
        "HMAC-signed REST API: submit multi-chain workflows, follow their execution, verify proofs. " +
        "Errors are `{error, detail, ...}` with an upper-case code.",
      license: { name: "MIT", identifier: "MIT" },
    },
    // Relative: the docs page and clients reach the relayer at whatever address served the document
    // (a configured PORT=0, a proxy or another host name would make an absolute URL wrong).
    servers: [{ url: "/", description: "this relayer" }],
    security: HMAC_SECURITY,
  };
  let document: object | undefined;
  app.get("/openapi.json", (c) => {
    document ??= completeDocument(app.getOpenAPI31Document(documentConfig), HMAC_SECURITY);
    return c.json(document);
  });

  app.notFound(renderNotFound);
  app.onError(renderError(services.logger));
  return app;
}
