import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { issuesFromZod, validationFailed } from "./validation.ts";

/**
 * Every route file builds its router with this, so a request that fails a route's zod schema
 * gets the one error shape: 400 `{error: "VALIDATION_FAILED", detail, issues: [{path, message}]}`.
 * (A router made with plain `new OpenAPIHono()` would answer zod's own shape instead.)
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const prefix = result.target === "json" ? [] : [result.target];
        throw validationFailed(issuesFromZod(result.error, prefix));
      }
    },
  });
}
