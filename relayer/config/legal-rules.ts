import { readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";

/**
 * The legal rule sets (CLM, contract lifecycle management) an analysis output is checked against
 * (spec "Errors": a rule-violation alert `CLM Rule Violation` calls for updated rule sets or a
 * manual audit). A YAML or JSON file named by `text_analysis.rules`:
 *
 * ```yaml
 * kinds:
 *   nda:                                  # a document kind
 *     detect: ['\bNDA\b', 'non-disclosure'] # the input is of this kind when one pattern matches
 *     must_include: ['confidential']        # each must appear in the output (case-insensitive)
 *     must_not_include: ['perpetual']       # none may appear in the output
 * ```
 *
 * Patterns are regular expressions, case-insensitive. A text matching no kind is of kind `general`
 * when the file defines it. Every kind's rules apply when several match.
 *
 * They run against the client's text (up to 256 KiB) and the model's output, in a redaction thread
 * under `text_analysis.rules_timeout` (relayer/analysis/rules.ts). A pattern whose repeated group
 * holds an unbounded quantifier (`(a+)+$`, `(\w*\s?)*`, `(x+y){2,}`) backtracks exponentially on a
 * text that almost matches, and is refused at start (by shape: `((ab)*c)+`, which cannot, is
 * refused too), so the operator hears of it before a client does. Not detected, stopped by the time
 * limit only: overlapping alternatives under a quantifier (`(a|aa)+`), bounded quantifiers that
 * split a run several ways (`(a{1,3})+`), adjacent quantifiers over the same characters
 * (`\d+\d+$`).
 */
const pattern = z.string().superRefine((p, ctx) => {
  try {
    new RegExp(p, "iu");
  } catch {
    ctx.addIssue({ code: "custom", message: "must be a valid regular expression" });
    return;
  }
  const nested = nestedQuantifier(p);
  if (nested)
    ctx.addIssue({
      code: "custom",
      message:
        `pattern '${p}' repeats a group that holds an unbounded quantifier (${nested}): it can ` +
        "backtrack exponentially on the client's text; write it without the nesting",
    });
});

/** A quantifier's bounds; `max` is Infinity for `*`, `+` and `{n,}`. */
function quantifierAt(source: string, at: number): { max: number; length: number } | null {
  const c = source[at];
  if (c === "*" || c === "+") return { max: Infinity, length: 1 };
  if (c === "?") return { max: 1, length: 1 };
  const braces = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
  if (!braces) return null;
  const max =
    braces[2] === undefined ? Number(braces[1]) : braces[3] ? Number(braces[3]) : Infinity;
  return { max, length: braces[0].length };
}

/**
 * The first group of a valid pattern (`u` syntax) that is repeated (more than once) and holds an
 * unbounded quantifier, as written, or null.
 */
export function nestedQuantifier(source: string): string | null {
  // Per open group: where it starts, and whether an unbounded quantifier is inside.
  const groups: Array<{ start: number; unbounded: boolean }> = [{ start: 0, unbounded: false }];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    let atomEnd = i + 1;
    let closed: { start: number; unbounded: boolean } | null = null;
    if (c === "\\") {
      // `\p{L}`, `\u{1F600}`, `\k<name>` run to their closing bracket.
      const long = /^\\(?:[pPu]\{[^}]*\}|k<[^>]*>)/.exec(source.slice(i));
      atomEnd = long ? i + long[0].length : i + 2;
    } else if (c === "[") {
      let j = i + 1;
      while (j < source.length && source[j] !== "]") j += source[j] === "\\" ? 2 : 1;
      atomEnd = j + 1;
    } else if (c === "(") {
      groups.push({ start: i, unbounded: false });
      i++;
      continue;
    } else if (c === ")") {
      closed = groups.pop()!;
    }
    const quantifier = quantifierAt(source, atomEnd);
    const end = quantifier ? atomEnd + quantifier.length : atomEnd;
    if (closed && quantifier && quantifier.max > 1 && closed.unbounded)
      return source.slice(closed.start, end);
    const inner = groups.at(-1)!;
    if (closed?.unbounded || quantifier?.max === Infinity) inner.unbounded = true;
    // A lazy quantifier's `?` is part of it.
    i = quantifier && source[end] === "?" ? end + 1 : end;
  }
  return null;
}

const rulesSchema = z
  .object({
    kinds: z.record(
      z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "kind names are lower-case a-z 0-9 _"),
      z
        .object({
          detect: z.array(pattern).default([]),
          must_include: z.array(pattern).default([]),
          must_not_include: z.array(pattern).default([]),
        })
        .strict(),
    ),
  })
  .strict();

export interface RuleKind {
  name: string;
  detect: RegExp[];
  mustInclude: RegExp[];
  mustNotInclude: RegExp[];
}

export interface LegalRules {
  kinds: RuleKind[];
}

export interface ClmViolation {
  kind: string;
  rule: "must_include" | "must_not_include";
  pattern: string;
}

/** Reads and validates a rules file; returns the problems (named by path) instead of throwing. */
export function loadRulesFile(file: string): LegalRules | { problems: string[] } {
  let doc: unknown;
  try {
    const text = readFileSync(file, "utf8");
    doc = path.extname(file) === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      problems: [`cannot read ${file}: ${code ?? (err as Error).message.split("\n")[0]}`],
    };
  }
  const parsed = rulesSchema.safeParse(doc);
  if (!parsed.success)
    return {
      problems: parsed.error.issues.map(
        (i) => `${file}: ${i.path.join(".") || "(root)"} ${i.message}`,
      ),
    };
  const re = (p: string) => new RegExp(p, "iu");
  return {
    kinds: Object.entries(parsed.data.kinds).map(([name, k]) => ({
      name,
      detect: k.detect.map(re),
      mustInclude: k.must_include.map(re),
      mustNotInclude: k.must_not_include.map(re),
    })),
  };
}
