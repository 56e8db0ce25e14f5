import YAML from "yaml";
import { documentHazard, validationFailed } from "../http/index.ts";

/** The request body: its media type and its parsing (JSON, or YAML on the failsafe schema). */

export type BodyFormat = "json" | "yaml";

/** The body format of a Content-Type, or undefined when it is neither JSON nor YAML. */
export function bodyFormat(contentType: string | undefined): BodyFormat | undefined {
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType === "application/json" || mediaType.endsWith("+json")) return "json";
  if (["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"].includes(mediaType)) {
    return "yaml";
  }
  return undefined;
}

/** Parses the raw body text; syntax errors are validation failures with a position. */
export function parseBody(format: BodyFormat, text: string): unknown {
  if (format === "json") {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw validationFailed([
        { path: "", message: `body is not valid JSON: ${(err as Error).message}` },
      ]);
    }
  }
  const document = YAML.parseDocument(text, { schema: "failsafe", uniqueKeys: true });
  if (document.errors.length > 0) {
    throw validationFailed(
      document.errors.map((e) => ({
        path: "",
        message: `body is not valid YAML: ${e.message.split("\n")[0]}`,
      })),
    );
  }
  let value: unknown;
  try {
    // maxAliasCount bounds alias expansion (a "billion laughs" bomb stops here).
    value = document.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw validationFailed([
      { path: "", message: `body is not usable YAML: ${(err as Error).message.split("\n")[0]}` },
    ]);
  }
  const hazard = documentHazard(value);
  if (hazard) throw validationFailed([{ path: "", message: `the body contains ${hazard}` }]);
  return value;
}
