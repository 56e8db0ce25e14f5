/**
 * What every operation of the document shares, added in one place instead of in each route:
 * an `operationId` (method and path, so generated clients get stable names) and, on every
 * authenticated operation, the refusals the platform gives before any route runs — 401 (the
 * signature checks, `AUTH_*`) and 429 (`RATE_LIMITED` with `Retry-After`).
 */
type Operation = {
  operationId?: string;
  security?: unknown[];
  responses?: Record<string, unknown>;
};

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

const PLATFORM_ERRORS = {
  "401": {
    description:
      "AUTH_MISSING_KEY, AUTH_MISSING_SIGNATURE, AUTH_MISSING_TIMESTAMP, AUTH_MALFORMED_KEY, " +
      "AUTH_MALFORMED_SIGNATURE, AUTH_MALFORMED_TIMESTAMP, AUTH_UNKNOWN_KEY, AUTH_KEY_REVOKED, " +
      "AUTH_BAD_SIGNATURE, AUTH_TIMESTAMP_EXPIRED, AUTH_TIMESTAMP_IN_FUTURE, AUTH_REPLAYED_SIGNATURE",
    content: { "application/json": { schema: { $ref: "#/components/schemas/PlatformError" } } },
  },
  "429": {
    description: "RATE_LIMITED: over the key's requests per minute; wait Retry-After seconds",
    headers: { "Retry-After": { schema: { type: "integer" }, description: "seconds" } },
    content: { "application/json": { schema: { $ref: "#/components/schemas/PlatformError" } } },
  },
} as const;

export function operationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .map((part) => part.replace(/^\{(.+)\}$/, "by_$1").replace(/[^A-Za-z0-9]+/g, "_"));
  return [method, ...words].join("_");
}

export function completeDocument<T extends { paths?: object; components?: object }>(
  document: T,
  globalSecurity: readonly unknown[],
): T {
  const doc = structuredClone(document) as T & {
    paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
    components: { schemas?: Record<string, unknown> };
  };
  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.schemas.PlatformError = {
    type: "object",
    properties: { error: { type: "string" }, detail: { type: "string" } },
    required: ["error", "detail"],
  };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      op.operationId ??= operationId(method, path);
      const security = op.security ?? globalSecurity;
      if (security.length === 0) continue;
      op.responses ??= {};
      for (const [status, response] of Object.entries(PLATFORM_ERRORS)) {
        op.responses[status] ??= response;
      }
    }
  }
  return doc;
}
