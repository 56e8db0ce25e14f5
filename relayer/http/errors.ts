import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";
import { VeriflowError } from "../errors/index.ts";
import type { AppEnv } from "./env.ts";

/**
 * The one error shape that leaves the server: `{error, detail, ...extra}` with an HTTP status.
 * Throw it from any module; `app.onError` turns it into the response. `error` is an upper-case
 * code (spec "Error body"), `detail` a sentence a client can act on. Never put secrets in either.
 */
export class ApiError extends VeriflowError {
  readonly status: ContentfulStatusCode;
  readonly headers: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    code: string,
    detail: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(code, detail, extra);
    this.status = status;
    this.headers = headers;
  }
}

/**
 * The HTTP status of a domain error reaching the edge without one (an ApiError carries its own):
 * the spec's statuses for its codes, 422 for any other refusal of the request's content.
 */
const STATUS_BY_CODE: Record<string, ContentfulStatusCode> = {
  CHAIN_UNAVAILABLE: 503,
  CHAINS_UNAVAILABLE: 503,
  SANCTIONS_LIST_UNAVAILABLE: 503,
  SCREENING_UNAVAILABLE: 503,
  ORACLE_UNAVAILABLE: 504,
  INTEGRATION_UNAVAILABLE: 503,
  INTEGRATION_CIRCUIT_OPEN: 503,
};

export function httpStatusOf(err: VeriflowError): ContentfulStatusCode {
  return err instanceof ApiError ? err.status : (STATUS_BY_CODE[err.code] ?? 422);
}

/** `app.notFound`: an unknown route in the one shape. */
export function renderNotFound(c: Context): Response {
  return c.json({ error: "NOT_FOUND", detail: `no route for ${c.req.method} ${c.req.path}` }, 404);
}

/**
 * `app.onError`: the one place errors become responses. An ApiError with its status; Hono's own
 * refusals (e.g. malformed JSON in a validated body) in the one shape; anything else is logged
 * and answered 500 with the request id, never its message or stack.
 */
export function renderError(fallbackLogger: Logger) {
  return (err: Error, c: Context<AppEnv>): Response => {
    if (err instanceof VeriflowError) {
      return c.json(err.toBody(), httpStatusOf(err), err instanceof ApiError ? err.headers : {});
    }
    if (err instanceof HTTPException) {
      if (err.status === 415) {
        // A route's own media-type gate (its request body declares fewer types than the platform reads).
        const type = c.req.header("content-type")?.split(";")[0]?.trim();
        return c.json(
          {
            error: "UNSUPPORTED_MEDIA_TYPE",
            detail: `Content-Type ${type ? `"${type}"` : "(none)"} is not accepted by ${c.req.method} ${c.req.path}: send a media type its request body declares in /openapi.json`,
          },
          415,
        );
      }
      const code = err.status === 400 ? "MALFORMED_BODY" : `HTTP_${err.status}`;
      return c.json({ error: code, detail: err.message || "request refused" }, err.status);
    }
    const id = c.get("requestId");
    (c.get("logger") ?? fallbackLogger).error({ err }, "unhandled error");
    return c.json(
      { error: "INTERNAL_ERROR", detail: `an internal error occurred; quote request id ${id}` },
      500,
    );
  };
}

/** The error body in the OpenAPI document (every route's error responses). */
export const validationIssueSchema = z.object({
  path: z.string().openapi({ example: "actions.1.slippage" }),
  message: z.string(),
});

export const validationErrorSchema = z
  .object({
    error: z.string().openapi({ example: "VALIDATION_FAILED" }),
    detail: z.string(),
    issues: z.array(validationIssueSchema),
  })
  .openapi("ValidationError");

export const errorSchema = z
  .object({ error: z.string(), detail: z.string() })
  .passthrough()
  .openapi("Error");
