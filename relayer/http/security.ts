/**
 * The API's authentication surface, shared by the authentication middleware, the OpenAPI document
 * and the route files: which paths are public, which take a Bearer key, and the security schemes.
 */

/**
 * Paths served without authentication (spec: "except health, metrics and docs"), and the
 * browser auditor page, which reads the chains, never the API.
 */
export function isPublicPath(path: string): boolean {
  return (
    path === "/healthz" ||
    path === "/readyz" ||
    path === "/metrics" ||
    path === "/openapi.json" ||
    path === "/docs" ||
    path === "/audit" ||
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
