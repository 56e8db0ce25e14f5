/**
 * Typed failures of an external REST call. Each carries an upper-case `code` (the execution's
 * error body when it stops one) and never a secret: no token, key or credential in any message.
 */
export type IntegrationErrorCode =
  | "INTEGRATION_SIGNING_FAILED"
  | "INTEGRATION_CREDENTIAL_UNAVAILABLE"
  | "INTEGRATION_UNAUTHORIZED"
  | "INTEGRATION_TOKEN_REFUSED"
  | "INTEGRATION_TLS_FAILED"
  | "INTEGRATION_REQUEST_REFUSED"
  | "INTEGRATION_REDIRECT_REFUSED"
  | "INTEGRATION_RESPONSE_TOO_LARGE"
  | "INTEGRATION_UNAVAILABLE"
  | "INTEGRATION_SCHEMA_MISMATCH"
  | "INTEGRATION_RESPONSE_SIGNATURE_INVALID"
  | "INTEGRATION_CIRCUIT_OPEN"
  | "INTEGRATION_RATE_LIMITED"
  | "INTEGRATION_DISABLED"
  | "INTEGRATION_ORDERS_INVALID";

/**
 * The most response body a call reads (1 MiB). A larger answer is refused unread: nothing is
 * stored, validated or published on chain (immediate anchoring puts the text in calldata).
 */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

export class IntegrationError extends Error {
  readonly code: IntegrationErrorCode;
  readonly integration: string;
  /** The HTTP status the system answered, when it answered. */
  readonly status: number | null;
  /** INTEGRATION_RATE_LIMITED: the wait the system asked for (its Retry-After), when it gave one. */
  readonly retryAfterMs: number | null;

  constructor(
    code: IntegrationErrorCode,
    integration: string,
    message: string,
    status: number | null = null,
    retryAfterMs: number | null = null,
  ) {
    super(`${code} (${integration}): ${message}`);
    this.name = "IntegrationError";
    this.code = code;
    this.integration = integration;
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

export function responseTooLarge(integration: string, what: string): IntegrationError {
  return new IntegrationError(
    "INTEGRATION_RESPONSE_TOO_LARGE",
    integration,
    `${what}: the answer exceeds ${MAX_RESPONSE_BYTES} bytes; it was not read, stored or anchored`,
  );
}

/**
 * A 3xx is not followed: the configured URL is the system, and a redirect could lead the signed
 * request (and its JWT) elsewhere.
 */
export function redirectRefused(
  integration: string,
  status: number,
  location: string | null,
): IntegrationError {
  return new IntegrationError(
    "INTEGRATION_REDIRECT_REFUSED",
    integration,
    `the system answered ${status}${location ? ` redirecting to ${location}` : ""}; redirects are not followed (configure the final URL)`,
    status,
  );
}
