import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";

/**
 * The spec's own workflow examples (examples/treasury-rebalance.{json,yaml}, the files the first
 * run and the CLI docs use), read once as the OpenAPI document's request examples. The YAML one is
 * given parsed: YAML is representable as a value, and the document's example validator checks it
 * against the definition's schema like the JSON one.
 */
const EXAMPLES_DIR = path.resolve(import.meta.dirname, "../../examples");

export const SPEC_JSON_EXAMPLE: unknown = JSON.parse(
  readFileSync(path.join(EXAMPLES_DIR, "treasury-rebalance.json"), "utf8"),
);
export const SPEC_YAML_EXAMPLE: unknown = parse(
  readFileSync(path.join(EXAMPLES_DIR, "treasury-rebalance.yaml"), "utf8"),
);
