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
      "Lower-case hex HMAC-SHA256 with the key's signing secret. Version 1 (the spec's; no X-SVC-Signature-Version header): over X-SVC-Timestamp immediately followed by the raw request body. " +
      "Version 2 (header `X-SVC-Signature-Version: 2`, recommended; the SDK, CLI and /docs send it): over the lines `VERIFLOW-HMAC-SHA256-2`, the method in upper case, the path as sent, the query as sent without `?` (empty if none), X-SVC-Timestamp, and the lower-case hex SHA-256 of the raw body, joined with `\n`. " +
      "A DELETE, POST, PUT or PATCH without a body needs version 2 (401 AUTH_SIGNATURE_V2_REQUIRED) unless its key allows version 1 for them; a key can require version 2 for every request.",
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
