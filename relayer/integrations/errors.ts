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
  | "INTEGRATION_UNAVAILABLE"
  | "INTEGRATION_SCHEMA_MISMATCH"
  | "INTEGRATION_RESPONSE_SIGNATURE_INVALID"
  | "INTEGRATION_CIRCUIT_OPEN"
  | "INTEGRATION_RATE_LIMITED"
  | "INTEGRATION_DISABLED";

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
