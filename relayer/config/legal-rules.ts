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
 */
const pattern = z.string().refine(
  (p) => {
    try {
      new RegExp(p, "iu");
      return true;
    } catch {
      return false;
    }
  },
  { message: "must be a valid regular expression" },
);

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

/** The kinds of a document: those whose `detect` matches, else `general` if defined. */
export function documentKinds(rules: LegalRules, text: string): RuleKind[] {
  const matched = rules.kinds.filter((k) => k.detect.some((d) => d.test(text)));
  if (matched.length) return matched;
  return rules.kinds.filter((k) => k.name === "general");
}

/** The output's violations of the rules of the input's kinds. */
export function checkRules(rules: LegalRules, input: string, output: string): ClmViolation[] {
  const violations: ClmViolation[] = [];
  for (const kind of documentKinds(rules, input)) {
    for (const p of kind.mustInclude)
      if (!p.test(output))
        violations.push({ kind: kind.name, rule: "must_include", pattern: p.source });
    for (const p of kind.mustNotInclude)
      if (p.test(output))
        violations.push({ kind: kind.name, rule: "must_not_include", pattern: p.source });
  }
  return violations;
}
