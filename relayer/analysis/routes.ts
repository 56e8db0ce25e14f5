import { createRoute, z } from "@hono/zod-openapi";
import {
  HMAC_SECURITY,
  ApiError,
  checkIdempotencyKey,
  errorSchema,
  createRouter,
  mediaType,
  queryInteger,
  queryIntegerOr,
  requestHash,
} from "../http/index.ts";
import { listedRecord } from "./audit.ts";
import { codePoints } from "./unicode.ts";
import type { TextAnalysis } from "./service.ts";

/**
 * `POST /v1/analysis`, `GET /v1/analysis/audit`, `GET /v1/analysis/audit/links`,
 * `GET /v1/analysis/{id}` (docs/analysis.md). The
 * router only composes: the use cases are TextAnalysis's. Without a `text_analysis:` configuration
 * (or without chains for its circuit and anchors) every route answers 503 ANALYSIS_NOT_CONFIGURED.
 */
export const MAX_TEXT_BYTES = 256 * 1024;

/** The most characters (Unicode code points, as routing counts them) of the instructions. */
export const MAX_INSTRUCTIONS_CHARS = 8_192;

const ANALYSIS_PATH = "/v1/analysis";

/**
 * The most bytes a `POST /v1/analysis` body may have: a text at its limit whose every byte JSON
 * writes escaped (a control character, `\u0001`, is six bytes for one), instructions at theirs
 * (`\ud83d\ude00`, twelve bytes for one character), and the rest of the object. Under the relayer's
 * 1 MiB a valid text of control characters would be refused.
 */
export const MAX_ANALYSIS_BODY_BYTES = 6 * MAX_TEXT_BYTES + 12 * MAX_INSTRUCTIONS_CHARS + 4_096;

/** The analysis routes' body limits that differ from the relayer's, by `METHOD path`. */
export const ANALYSIS_BODY_LIMITS: ReadonlyMap<string, number> = new Map([
  [`POST ${ANALYSIS_PATH}`, MAX_ANALYSIS_BODY_BYTES],
]);

/**
 * Text to send on: well-formed Unicode (a lone surrogate has no UTF-8 form, so neither its SHA-256
 * nor its stored copy would be the text submitted) with something visible in it: white space,
 * control characters and invisible format characters (zero-width space, word joiner, BOM) alone
 * give the model nothing to read.
 */
const prose = (what: string) =>
  z
    .string()
    .refine((t) => !/\p{Cs}/u.test(t), {
      message: `must be well-formed Unicode (the ${what} holds a lone surrogate)`,
    })
    .refine((t) => /[^\s\p{Cc}\p{Cf}\p{Z}]/u.test(t), {
      message: "must not be empty or only white space, control or invisible characters",
    });

const analysisRequestSchema = z
  .object({
    text: prose("text").refine((t) => Buffer.byteLength(t, "utf8") <= MAX_TEXT_BYTES, {
      message: `must be at most ${MAX_TEXT_BYTES} bytes of UTF-8 (256 KiB)`,
    }),
    instructions: prose("instructions")
      .refine(
        (t) => t.length <= MAX_INSTRUCTIONS_CHARS || codePoints(t) <= MAX_INSTRUCTIONS_CHARS,
        {
          message: `must be at most ${MAX_INSTRUCTIONS_CHARS} characters (Unicode code points)`,
        },
      )
      .optional(),
    workflow_id: z
      .string()
      .regex(/^wf_[0-9A-HJKMNP-TV-Z]{26}$/, "must be an execution id (wf_…)")
      .optional(),
  })
  .strict()
  .openapi("AnalysisRequest");

const checksSchema = z.object({
  clm_violations: z.number().int(),
  uben_compliance: z.enum(["passed", "failed"]),
  pii_leakage: z.boolean(),
});

export const analysisSchema = z
  .object({
    analysis_id: z.string(),
    workflow_id: z.string().nullable(),
    model: z
      .string()
      .openapi({ description: "the model that answered (the fallback model when it did)" }),
    model_version: z.string(),
    route: z.enum(["nda", "short", "long", "fallback"]),
    fallback_reason: z.string().nullable(),
    output: z.string(),
    redactions: z.array(z.object({ type: z.string(), count: z.number().int() })),
    compliance_checks: checksSchema,
    alerts: z.array(z.object({ type: z.string(), detail: z.string() })),
    audit_id: z.string(),
    created_at: z.string(),
  })
  .openapi("Analysis");

const auditRecordSchema = z
  .object({
    audit_id: z.string(),
    analysis_id: z.string(),
    api_key_id: z
      .string()
      .openapi({ description: "the key's id, which the record's digest covers" }),
    timestamp: z.string(),
    model: z.string(),
    input_sha256: z.string(),
    output_token_count: z.number().int(),
    compliance_checks: checksSchema,
    cost_breakdown: z.object({ provider_tokens: z.number().int(), platform_units: z.number() }),
    seq: z.number().int(),
    prev_hash: z.string(),
    digest: z.string().nullable().openapi({
      description:
        "sha256 of the JCS of {seq, id, api_key_id, analysis_id, record}; null for a record written under the v1 formula",
    }),
    hash: z.string(),
  })
  .openapi("AnalysisAuditRecord");

/** The most links one page lists. */
export const MAX_LINKS = 1000;

const linksQuerySchema = z
  .object({
    from_seq: queryInteger(1).optional().openapi({
      description: "the first seq listed (default: the one after the checkpoint)",
    }),
    to_seq: queryInteger(1)
      .optional()
      .openapi({
        description: `the last seq listed (default: from_seq + ${MAX_LINKS - 1})`,
      }),
  })
  .refine((q) => q.to_seq === undefined || q.from_seq !== undefined, {
    message: "to_seq needs from_seq",
    path: ["to_seq"],
  })
  .refine((q) => q.from_seq === undefined || q.to_seq === undefined || q.to_seq >= q.from_seq, {
    message: "to_seq must not be below from_seq",
    path: ["to_seq"],
  })
  .refine(
    (q) => q.from_seq === undefined || q.to_seq === undefined || q.to_seq - q.from_seq < MAX_LINKS,
    { message: `at most ${MAX_LINKS} links per page`, path: ["to_seq"] },
  );

const headSchema = z.object({ seq: z.number().int(), hash: z.string() });
const linksSchema = z
  .object({
    checkpoint: headSchema.openapi({
      description:
        "the chain's start after pruning: the first remaining link follows this seq and hash (0 and 64 zeros before any pruning)",
    }),
    head: headSchema.openapi({ description: "the chain's last link when listed" }),
    links: z.array(
      z.object({
        seq: z.number().int(),
        digest: z.string().nullable(),
        hash: z.string(),
      }),
    ),
    next_from_seq: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "the from_seq of the next page, null after the head" }),
  })
  .openapi("AnalysisAuditLinks");

/**
 * An instant as RFC 3339 writes it (a date-time with `Z` or an offset, or a date: midnight UTC),
 * in the years 0001-9999 UTC that PostgreSQL's timestamptz reads back: `Date.parse` alone takes
 * `1` and `March 7`, rolls `2026-02-30` over into March, and reaches years the database refuses.
 */
const INSTANT_FORMATS = [z.iso.datetime({ offset: true }), z.iso.date()];
const FIRST_INSTANT = Date.parse("0001-01-01T00:00:00Z");
const LAST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");
const iso = z
  .string()
  .refine((v) => INSTANT_FORMATS.some((f) => f.safeParse(v).success), {
    message: "must be an ISO 8601 date-time with Z or an offset (2026-01-31T12:00:00Z), or a date",
    abort: true,
  })
  .refine(
    (v) => {
      const at = Date.parse(v);
      return at >= FIRST_INSTANT && at <= LAST_INSTANT;
    },
    { message: "must be within the years 0001 to 9999 (UTC)" },
  )
  .optional();
const auditQuerySchema = z
  .object({
    from: iso,
    to: iso,
    cursor: z
      .string()
      .regex(/^aud_[1-9]\d{0,14}$/, "must be a cursor returned by this endpoint")
      .optional(),
    limit: queryIntegerOr(100, 1, 500),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), {
    message: "from must not be after to",
    path: ["from"],
  });

const analysisResponse = {
  description: "The analysis",
  content: { "application/json": { schema: analysisSchema } },
};

const errors = (codes: Record<number, string>) =>
  Object.fromEntries(
    Object.entries(codes).map(([status, description]) => [
      status,
      { description, content: { "application/json": { schema: errorSchema } } },
    ]),
  );

export function analysisRoutes(analysis: TextAnalysis | null) {
  const router = createRouter();
  const service = (): TextAnalysis => {
    if (!analysis)
      throw new ApiError(
        503,
        "ANALYSIS_NOT_CONFIGURED",
        "text analysis is not configured on this relayer (text_analysis: in the VERIFLOW_INTEGRATIONS file, and chains for its circuit breaker and audit anchors)",
      );
    return analysis;
  };

  router.openapi(
    createRoute({
      method: "post",
      path: ANALYSIS_PATH,
      summary:
        "Analyse a text (redacted, bias-checked, routed to a model, checked, encrypted, audited)",
      tags: ["analysis"],
      security: HMAC_SECURITY,
      request: {
        body: {
          content: {
            "application/json": {
              schema: analysisRequestSchema,
              example: {
                text: "The supplier shall deliver the goods by 1 March; payment is due within 30 days of delivery.",
                instructions: "List each party's obligations and their deadlines.",
              },
            },
          },
          required: true,
        },
        headers: z.object({
          "idempotency-key": z.string().optional().openapi({
            description:
              "1-255 visible ASCII characters, scoped to the API key. The first request with a key runs; a repeat with the same body within 24 h answers that analysis again (nothing is sent to the provider, no rate-limit token is taken); the same key with another body is a 409 IDEMPOTENCY_KEY_REUSED, and while the first still runs a 409 IDEMPOTENCY_KEY_IN_USE with Retry-After. A refused or failed request frees its key.",
          }),
        }),
      },
      responses: {
        200: analysisResponse,
        ...errors({
          400: "VALIDATION_FAILED",
          404: "WORKFLOW_NOT_FOUND",
          409: "IDEMPOTENCY_KEY_REUSED (the key was used with another body), IDEMPOTENCY_KEY_IN_USE (the request with this key still runs; Retry-After)",
          422: "BIAS_REJECTED (the input's bias score is above the threshold; nothing was sent for analysis), REDACTION_FAILED",
          429: "RATE_LIMITED (600 rpm, burst 50 across the relayer) or ANALYSIS_PROVIDER_RATE_LIMITED; Retry-After",
          502: "ANALYSIS_PROVIDER_UNAUTHORIZED (rotate the credential), ANALYSIS_PROVIDER_FORBIDDEN (source address not whitelisted, or key to rotate), ANALYSIS_PROVIDER_BAD_RESPONSE",
          503: "ANALYSIS_PROVIDER_UNAVAILABLE after retries and the fallback model (retry_in seconds), ANALYSIS_NOT_CONFIGURED, ANALYSIS_RULES_TIMEOUT (a legal-rule pattern ran past text_analysis.rules_timeout; nothing stored), ANALYSIS_RULES_FAILED",
        }),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const key = c.req.valid("header")["idempotency-key"];
      const idempotency =
        key === undefined
          ? undefined
          : {
              key: checkIdempotencyKey(key),
              requestHash: requestHash(
                "POST",
                ANALYSIS_PATH,
                mediaType(c.req.header("content-type")),
                c.get("rawBody") ?? new Uint8Array(),
              ),
            };
      const view = await service().analyze({
        apiKeyId: c.get("apiKey").id,
        text: body.text,
        ...(body.instructions !== undefined ? { instructions: body.instructions } : {}),
        ...(body.workflow_id !== undefined ? { workflowId: body.workflow_id } : {}),
        ...(idempotency ? { idempotency } : {}),
      });
      return c.json(view, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/analysis/audit",
      summary: "The key's text-analysis audit records (hash-chained), oldest first",
      tags: ["analysis"],
      security: HMAC_SECURITY,
      request: { query: auditQuerySchema },
      responses: {
        200: {
          description: "A page of audit records; `next_cursor` when more follow",
          content: {
            "application/json": {
              schema: z.object({
                records: z.array(auditRecordSchema),
                next_cursor: z.string().nullable(),
              }),
            },
          },
        },
        ...errors({ 400: "VALIDATION_FAILED" }),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const entries = await service().audit({
        apiKeyId: c.get("apiKey").id,
        ...(q.from ? { from: new Date(q.from).toISOString() } : {}),
        ...(q.to ? { to: new Date(q.to).toISOString() } : {}),
        afterSeq: q.cursor ? Number(q.cursor.slice(4)) : 0,
        limit: q.limit + 1,
      });
      const page = entries.slice(0, q.limit);
      return c.json(
        {
          records: page.map(listedRecord),
          next_cursor: entries.length > q.limit ? page.at(-1)!.id : null,
        },
        200,
      );
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/analysis/audit/links",
      summary:
        "The audit chain's links {seq, digest, hash} (every key's, with no key, analysis or content), from the checkpoint",
      description:
        "What a key's auditor chains its own records through to the heads anchored in ProofRegistry (docs/analysis.md \"Audit records\"). It reveals how many analyses were audited and, with the anchors, roughly when: what the gaps in a key's own seq values already show.",
      tags: ["analysis"],
      security: HMAC_SECURITY,
      request: { query: linksQuerySchema },
      responses: {
        200: {
          description: `At most ${MAX_LINKS} links, oldest first`,
          content: { "application/json": { schema: linksSchema } },
        },
        ...errors({ 400: "VALIDATION_FAILED (a bad range)" }),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const page = await service().links({
        ...(q.from_seq !== undefined ? { fromSeq: q.from_seq } : {}),
        ...(q.to_seq !== undefined ? { toSeq: q.to_seq } : {}),
        max: MAX_LINKS,
      });
      return c.json(
        {
          checkpoint: page.checkpoint,
          head: { seq: page.head.seq, hash: page.head.hash },
          links: page.links,
          next_from_seq: page.toSeq < page.head.seq ? page.toSeq + 1 : null,
        },
        200,
      );
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/analysis/{id}",
      summary: "An analysis again, decrypted for its owner",
      tags: ["analysis"],
      security: HMAC_SECURITY,
      request: {
        params: z.object({
          id: z.string().regex(/^an_[0-9A-HJKMNP-TV-Z]{26}$/, "must be an analysis id (an_…)"),
        }),
      },
      responses: {
        200: analysisResponse,
        ...errors({
          400: "VALIDATION_FAILED",
          404: "ANALYSIS_NOT_FOUND (also for another key's analysis)",
        }),
      },
    }),
    async (c) => c.json(await service().get(c.req.valid("param").id, c.get("apiKey").id), 200),
  );
  return router;
}
