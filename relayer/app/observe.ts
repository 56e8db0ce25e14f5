import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import type { Logger } from "pino";
import { keyFingerprint } from "../auth/index.ts";
import type { AppEnv, Metrics } from "../http/index.ts";

/** Request-scoped logger, Prometheus metrics and one access-log line per request. */
export function observe(deps: { logger: Logger; metrics: Metrics }) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    const logger = deps.logger.child({ req_id: c.get("requestId") });
    c.set("logger", logger);
    await next();
    const seconds = (performance.now() - started) / 1000;
    const status = String(c.res.status);
    const matched = routePath(c, -1);
    const route = matched === "/*" || matched === "*" ? "unmatched" : matched;
    deps.metrics.httpRequests.inc({ method: c.req.method, route, status });
    deps.metrics.httpDuration.observe({ method: c.req.method, route, status }, seconds);
    const apiKey = c.get("apiKey");
    logger.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(seconds * 10_000) / 10,
        key: apiKey ? keyFingerprint(apiKey.key) : undefined,
      },
      "request",
    );
  });
}
