/**
 * `npm run lint:openapi` (in `npm run lint`): the relayer's OpenAPI document linted with Redocly's
 * `recommended` rules (@redocly/openapi-core as a library: no CLI, nothing downloaded, no
 * telemetry), and every request body's media types carry an example valid against the schema.
 * Fails on any error or warning, naming the rule and the location.
 */
import { createConfig, lintFromString, type RawUniversalConfig } from "@redocly/openapi-core";
import { openApiDocument } from "./sdk-types.ts";

/** Rules changed from `recommended`, each with why. */
const RULES: RawUniversalConfig["rules"] = {
  // Every request body carries an example (checked below); each must be valid against its
  // schema, with no property the schema does not declare.
  "no-invalid-media-type-examples": { severity: "error", allowAdditionalProperties: false },
  // /healthz and /readyz take no input and answer 200 or 503 only; every authenticated operation
  // documents 401 and 429 (relayer/http/openapi.ts), so the rule would only flag the probes.
  "operation-4xx-response": "off",
};

export interface OpenApiProblem {
  severity: string;
  ruleId: string;
  pointer: string;
  message: string;
}

type MediaType = { example?: unknown; examples?: Record<string, unknown> };
type Operation = { requestBody?: { content?: Record<string, MediaType> } };

/**
 * Every media type of every request body has an `example` or `examples` (what /docs pre-fills;
 * Redocly's no-invalid-media-type-examples validates each against its schema).
 */
export function missingRequestExamples(document: Record<string, unknown>): OpenApiProblem[] {
  const problems: OpenApiProblem[] = [];
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [route, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const [mediaType, media] of Object.entries(operation.requestBody?.content ?? {})) {
        const examples = media.examples ? Object.keys(media.examples).length : 0;
        if (media.example === undefined && examples === 0) {
          problems.push({
            severity: "error",
            ruleId: "request-body-example",
            pointer: `#/paths/${route.replaceAll("~", "~0").replaceAll("/", "~1")}/${method}/requestBody/content/${mediaType.replaceAll("/", "~1")}`,
            message: `${method.toUpperCase()} ${route} (${mediaType}) has no request example`,
          });
        }
      }
    }
  }
  return problems;
}

export async function lintOpenApi(document: Record<string, unknown>): Promise<OpenApiProblem[]> {
  const config = await createConfig({
    extends: ["recommended"],
    rules: RULES,
  });
  const problems = await lintFromString({
    source: JSON.stringify(document),
    absoluteRef: "openapi.json",
    config,
  });
  return [
    ...problems.map((p) => ({
      severity: p.severity,
      ruleId: p.ruleId,
      pointer: p.location[0]?.pointer ?? "",
      message: p.message,
    })),
    ...missingRequestExamples(document),
  ];
}

async function main(): Promise<void> {
  const problems = await lintOpenApi(await openApiDocument());
  for (const p of problems) {
    process.stdout.write(`${p.severity}  ${p.ruleId}  ${p.pointer}  ${p.message}\n`);
  }
  if (problems.length > 0) {
    process.stderr.write(`${problems.length} OpenAPI problem(s)\n`);
    process.exit(1);
  }
  process.stdout.write("OpenAPI document lints clean (Redocly recommended)\n");
}

if (import.meta.main) await main();
