/**
 * The relayer answers every refusal as `{error, detail, ...}` (an upper-case code). The SDK
 * throws it as a `VeriflowApiError` carrying the code, so callers branch on `err.code` (narrowed
 * by `isApiError(err, "RATE_LIMITED")`) instead of parsing bodies.
 */

/** Codes a client is expected to act on (the relayer may answer others; `code` is then a plain string). */
export const ERROR_CODES = [
  "VALIDATION_FAILED",
  "MALFORMED_BODY",
  "INVALID_COMPLIANCE_RULES",
  "AUTH_BAD_SIGNATURE",
  "AUTH_UNKNOWN_KEY",
  "AUTH_KEY_REVOKED",
  "AUTH_TIMESTAMP_EXPIRED",
  "AUTH_TIMESTAMP_IN_FUTURE",
  "AUTH_REPLAYED_SIGNATURE",
  "UNSUPPORTED_MEDIA_TYPE",
  "NOT_FOUND",
  "EXECUTION_NOT_FOUND",
  "DEPLOYMENT_NOT_FOUND",
  "SCHEDULE_NOT_FOUND",
  "EXECUTION_FINISHED",
  "IDEMPOTENCY_KEY_REUSED",
  "IDEMPOTENCY_KEY_IN_USE",
  "INSUFFICIENT_LIQUIDITY",
  "NO_ROUTE",
  "RATE_LIMITED",
  "CONCURRENCY_LIMIT_EXCEEDED",
  "SANCTIONS_LIST_UNAVAILABLE",
  "ESTIMATE_UNAVAILABLE",
  "CHAINS_UNAVAILABLE",
  "ANALYSIS_NOT_FOUND",
  "ANALYSIS_NOT_CONFIGURED",
  "BIAS_REJECTED",
  "REDACTION_FAILED",
  "ANALYSIS_PROVIDER_UNAUTHORIZED",
  "ANALYSIS_PROVIDER_FORBIDDEN",
  "ANALYSIS_PROVIDER_RATE_LIMITED",
  "ANALYSIS_PROVIDER_UNAVAILABLE",
  "INTERNAL_ERROR",
] as const;

export type KnownErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorBody {
  error: string;
  detail: string;
  /** Seconds (INSUFFICIENT_LIQUIDITY, ESTIMATE_UNAVAILABLE). */
  retry_in?: number;
  issues?: Array<{ path: string; message: string }>;
  [extra: string]: unknown;
}

export class VeriflowApiError<C extends string = string> extends Error {
  readonly status: number;
  readonly code: C;
  readonly detail: string;
  readonly body: ErrorBody;
  /** From `Retry-After` (seconds), when the relayer sent one. */
  readonly retryAfterSeconds: number | null;

  constructor(status: number, body: ErrorBody, retryAfterSeconds: number | null = null) {
    super(`${status} ${body.error}: ${body.detail}`);
    this.name = "VeriflowApiError";
    this.status = status;
    this.code = body.error as C;
    this.detail = body.detail;
    this.body = body;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function isApiError<C extends KnownErrorCode>(
  err: unknown,
  code?: C,
): err is VeriflowApiError<C> {
  return err instanceof VeriflowApiError && (code === undefined || err.code === code);
}

/** An execution that ended failed or cancelled while a caller waited for its report. */
export class ExecutionFailedError extends Error {
  readonly executionId: string;
  readonly state: "failed" | "cancelled";
  readonly code: string;
  readonly detail: string;

  constructor(
    executionId: string,
    state: "failed" | "cancelled",
    error: { error?: string; detail?: string } | null,
  ) {
    const code = error?.error ?? (state === "cancelled" ? "CANCELLED" : "EXECUTION_FAILED");
    const detail = error?.detail ?? `execution ${state}`;
    super(`${executionId} ${state}: ${code}: ${detail}`);
    this.name = "ExecutionFailedError";
    this.executionId = executionId;
    this.state = state;
    this.code = code;
    this.detail = detail;
  }
}

/** Parses `Retry-After` (delta seconds or an HTTP date) into seconds, or null. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * The error a non-2xx response stands for, from its parsed body (openapi-fetch has read it: JSON
 * when it parses, else the text). A body that is not the relayer's shape is kept as the detail.
 */
export function apiErrorOf(response: Response, parsed: unknown): VeriflowApiError {
  const shaped =
    typeof parsed === "object" && parsed !== null && typeof (parsed as ErrorBody).error === "string"
      ? (parsed as ErrorBody)
      : null;
  const body: ErrorBody = shaped
    ? { ...shaped, detail: String(shaped.detail ?? "") }
    : {
        error: `HTTP_${response.status}`,
        detail: (typeof parsed === "string" ? parsed : JSON.stringify(parsed ?? "")).slice(0, 500),
      };
  return new VeriflowApiError(
    response.status,
    body,
    retryAfterSeconds(response.headers.get("Retry-After")),
  );
}
