/**
 * `npm run lint:openapi` (in `npm run lint`): the relayer's OpenAPI document linted with Redocly's
 * `recommended` rules (@redocly/openapi-core as a library: no CLI, nothing downloaded, no
 * telemetry). Fails on any error or warning, naming the rule and the location.
 */
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { openApiDocument } from "./sdk-types.ts";

/** Rules turned off, each with why. */
const RULES: Record<string, "off"> = {
  // /healthz and /readyz take no input and answer 200 or 503 only; every authenticated operation
  // documents 401 and 429 (relayer/http/openapi.ts), so the rule would only flag the probes.
  "operation-4xx-response": "off",
};

export async function lintOpenApi(document: Record<string, unknown>) {
  const config = await createConfig({ extends: ["recommended"], rules: RULES });
  return lintFromString({
    source: JSON.stringify(document),
    absoluteRef: "openapi.json",
    config,
  });
}

async function main(): Promise<void> {
  const problems = await lintOpenApi(await openApiDocument());
  for (const p of problems) {
    const where = p.location[0]?.pointer ?? "";
    process.stdout.write(`${p.severity}  ${p.ruleId}  ${where}  ${p.message}\n`);
  }
  if (problems.length > 0) {
    process.stderr.write(`${problems.length} OpenAPI problem(s)\n`);
    process.exit(1);
  }
  process.stdout.write("OpenAPI document lints clean (Redocly recommended)\n");
}

if (import.meta.main) await main();
