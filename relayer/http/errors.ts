import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The one error shape that leaves the server: `{error, detail, ...extra}` with an HTTP status.
 * Throw it from any module; `app.onError` turns it into the response. `error` is an upper-case
 * code (spec "Error body"), `detail` a sentence a client can act on. Never put secrets in either.
 */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly detail: string;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    code: string,
    detail: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(`${code}: ${detail}`);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.extra = extra;
    this.headers = headers;
  }

  toBody(): Record<string, unknown> {
    return { error: this.code, detail: this.detail, ...this.extra };
  }
}
