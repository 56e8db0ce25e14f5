import { createRoute, z } from "@hono/zod-openapi";
import { errorSchema, createRouter, HMAC_SECURITY } from "../http/index.ts";
import type { ComplianceResult } from "./check.ts";
import type { ComplianceSource } from "./service.ts";

/**
 * The sanctions check in the spec's three forms, one answer:
 * `GET /compliance/check?address=`, `GET /v3/compliance?address=` (the spec's sample call) and
 * `POST /compliance` `{address}` (the spec's compliance client; `Authorization: Bearer <API_KEY>`
 * is accepted on these paths by the platform's authentication, as are the HMAC headers).
 */

const addressField = z.string().openapi({
  description: "0x-prefixed 20-byte address; mixed case must be a valid EIP-55 checksum",
  example: "0x8589427373D6D84E98730D7795D8f6f8731FDA16",
});

export const complianceQuerySchema = z.object({
  address: addressField,
  jurisdictions: z.string().optional().openapi({
    description:
      "Comma-separated region codes: only the lists they require (see /v1/compliance/specs)",
    example: "US,EU",
  }),
});

export const complianceRequestSchema = z
  .object({
    address: addressField,
    jurisdictions: z
      .array(z.string())
      .optional()
      .openapi({ example: ["US"] }),
  })
  .openapi("ComplianceCheckRequest");

export const complianceResultSchema = z
  .object({
    address: z.string(),
    sanctioned: z.boolean(),
    matches: z.array(z.object({ list: z.string(), entry: z.string() })),
    lists: z.array(
      z.object({
        name: z.string().openapi({ example: "ofac-sdn" }),
        source: z.string(),
        entries: z.number().int().nullable().openapi({ description: "null for an oracle" }),
        updated_at: z.string(),
      }),
    ),
    routed_around: z
      .array(z.object({ chain: z.string(), source: z.string(), reason: z.string() }))
      .openapi({
        description:
          "sanctions oracles that did not answer and were routed around: the sources in `lists` answered instead (spec 504: route around)",
      }),
    checked_at: z.string(),
  })
  .openapi("ComplianceResult");

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: errorSchema } },
});

const responses = {
  200: {
    description: "the answer",
    content: { "application/json": { schema: complianceResultSchema } },
  },
  400: error(
    "INVALID_ADDRESS, VALIDATION_FAILED or INVALID_COMPLIANCE_RULES (unknown jurisdiction)",
  ),
  401: error("authentication failed"),
  503: error("SANCTIONS_LIST_UNAVAILABLE: a list the jurisdictions require is not loaded"),
  504: error(
    "ORACLE_UNAVAILABLE: no sanctions oracle answered, and the oracle list is required or no list file is loaded",
  ),
};

function splitCodes(value: string | undefined): string[] | undefined {
  const codes = value
    ?.split(",")
    .map((c) => c.trim())
    .filter((c) => c !== "");
  return codes && codes.length > 0 ? codes : undefined;
}

const security = [...HMAC_SECURITY, { BearerApiKey: [] }];

export function complianceRoutes(services: { compliance: ComplianceSource }) {
  const app = createRouter();
  const check = async (address: string, jurisdictions?: string[]): Promise<ComplianceResult> =>
    (await services.compliance.get()).checkAddress(address, { jurisdictions });

  for (const path of ["/compliance/check", "/v3/compliance"]) {
    app.openapi(
      createRoute({
        method: "get",
        path,
        tags: ["compliance"],
        summary: "Sanctions check of an address against the configured lists and on-chain oracles",
        security,
        request: { query: complianceQuerySchema },
        responses,
      }),
      async (c) => {
        const query = c.req.valid("query");
        return c.json(await check(query.address, splitCodes(query.jurisdictions)), 200);
      },
    );
  }

  app.openapi(
    createRoute({
      method: "post",
      path: "/compliance",
      tags: ["compliance"],
      summary:
        "Sanctions check (the spec's compliance client form: `{address}` with a Bearer token)",
      security,
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: complianceRequestSchema,
              example: {
                address: "0x52908400098527886E0F7030069857D2E4169EE7",
                jurisdictions: ["US"],
              },
            },
          },
        },
      },
      responses,
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await check(body.address, body.jurisdictions), 200);
    },
  );

  return app;
}
