import { readFileSync } from "node:fs";
import path from "node:path";
import { RegExpParser, visitRegExpAST, type AST } from "@eslint-community/regexpp";
import { analyse, type Report } from "scslre";
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
 * under `text_analysis.rules_timeout` (relayer/analysis/rules.ts). A pattern that backtracks
 * super-linearly on some text is refused at start (`superLinear`), so the operator hears of it
 * before a client does; the time limit stays for what the analysis misses.
 */
const pattern = z.string().superRefine((p, ctx) => {
  try {
    new RegExp(p, "iu");
  } catch {
    ctx.addIssue({ code: "custom", message: "must be a valid regular expression" });
    return;
  }
  const reason = superLinear(p);
  if (reason)
    ctx.addIssue({
      code: "custom",
      message: `pattern '${p}' ${reason}; write it without the ambiguity`,
    });
});

/**
 * Why a valid pattern (`iu`) can take super-linear time on some text, or null. scslre (chosen in
 * docs/analysis.md, "Legal rules file") finds the ambiguities an attack string repeating one
 * character exploits: a quantifier nested in another (`(a+)+$`), overlapping alternatives under a
 * quantifier (`(a|aa)+$`), adjacent quantifiers over the same characters (`\d+\d+$`), a quantifier
 * a failed match retries from each start (`(?:a|b)*$`, `\s+$`). Nested and adjacent ones are
 * refused even where nothing after them can fail yet (`(a*)*`, `(?:\w+\s?)*`); so is a repeated
 * group that is only a range (`(a{1,3})+`), which splits a run in many ways and which scslre
 * reports only once something follows it.
 */
export function superLinear(source: string): string | null {
  const parser = new RegExpParser();
  const parsed = {
    pattern: parser.parsePattern(source, 0, source.length, { unicode: true }),
    flags: parser.parseFlags("iu"),
  };
  const split = splitRun(parsed.pattern);
  if (split)
    return (
      `repeats a group that is only a range (${split}), which splits a run of characters in ` +
      "many ways: it can backtrack exponentially on the client's text"
    );
  const reports = [
    ...analyse(parsed).reports,
    ...analyse(parsed, { assumeRejectingSuffix: true }).reports.filter((r) => r.type !== "Move"),
  ];
  const worst = reports.find((r) => r.exponential) ?? reports[0];
  return worst ? describeReport(worst) : null;
}

function describeReport(report: Report): string {
  const run = `a run of '${report.character.pick}'`;
  const how = report.exponential
    ? "exponentially"
    : "polynomially (quadratic or worse in the text's length)";
  const what =
    report.type === "Self"
      ? `repeats ${report.quant.raw} inside ${report.parentQuant.raw}, which can share out ${run} in many ways`
      : report.type === "Trade"
        ? `has ${report.startQuant.raw} and ${report.endQuant.raw} next to each other, which can share out ${run} in many ways`
        : `retries ${report.quant.raw} from each character of ${run} after a failed match`;
  return `${what}: it can backtrack ${how} on the client's text`;
}

/** The first group repeated more than once that holds only a bounded range (`(a{1,3})+`), as written. */
function splitRun(pattern: AST.Pattern): string | null {
  let found: string | null = null;
  visitRegExpAST(pattern, {
    onQuantifierEnter(q) {
      if (found || q.max <= 1) return;
      const group = q.element;
      if (group.type !== "Group" && group.type !== "CapturingGroup") return;
      const [only, ...more] = group.alternatives;
      const inner = only?.elements.length === 1 ? only.elements[0] : undefined;
      if (
        !more.length &&
        inner?.type === "Quantifier" &&
        inner.min < inner.max &&
        inner.max < Infinity
      )
        found = q.raw;
    },
  });
  return found;
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
