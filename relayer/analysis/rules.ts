import type { ClmViolation, LegalRules, RuleKind } from "../config/index.ts";

/**
 * The legal rule sets applied to an analysis (the file format: relayer/config/legal-rules.ts).
 * The patterns are the operator's and run against the client's text and the model's output, so
 * they run in a redaction thread (redaction-pool.ts) under `text_analysis.rules_timeout`: the
 * thread publishes which pattern it is running in shared memory (RULES_PROGRESS), and the pool
 * stops a thread whose check runs past the limit.
 */

/** The lists of a rule set, in the order a check runs them; indices in RULES_PROGRESS. */
export const RULE_LISTS = ["detect", "must_include", "must_not_include"] as const;
export type RuleList = (typeof RULE_LISTS)[number];

/** Slots of a thread's progress (a BigInt64Array over a SharedArrayBuffer). */
export const RULES_PROGRESS = {
  /** The job whose rules are running, 0 when none. */
  job: 0,
  /** When that check started, epoch milliseconds. */
  startedAt: 1,
  kind: 2,
  list: 3,
  pattern: 4,
  length: 5,
} as const;

/** A pattern of the rules file, by name. */
export interface RuleAt {
  kind: string;
  rule: RuleList;
  pattern: string;
}

/** Called before each pattern runs, with its rule set's index, list index and pattern index. */
export type OnPattern = (kind: number, list: number, pattern: number) => void;

const nowhere: OnPattern = () => {};

/** The kinds of a document: those whose `detect` matches, else `general` if defined. */
export function documentKinds(
  rules: LegalRules,
  text: string,
  at: OnPattern = nowhere,
): RuleKind[] {
  const matched = rules.kinds.filter((k, i) =>
    k.detect.some((d, j) => {
      at(i, 0, j);
      return d.test(text);
    }),
  );
  if (matched.length) return matched;
  return rules.kinds.filter((k) => k.name === "general");
}

/** The output's violations of the rules of the input's kinds. */
export function checkRules(
  rules: LegalRules,
  input: string,
  output: string,
  at: OnPattern = nowhere,
): ClmViolation[] {
  const violations: ClmViolation[] = [];
  for (const kind of documentKinds(rules, input, at)) {
    const k = rules.kinds.indexOf(kind);
    kind.mustInclude.forEach((p, j) => {
      at(k, 1, j);
      if (!p.test(output))
        violations.push({ kind: kind.name, rule: "must_include", pattern: p.source });
    });
    kind.mustNotInclude.forEach((p, j) => {
      at(k, 2, j);
      if (p.test(output))
        violations.push({ kind: kind.name, rule: "must_not_include", pattern: p.source });
    });
  }
  return violations;
}

/** The pattern at a position a thread published, or null if the rules hold none there. */
export function ruleAt(
  rules: LegalRules,
  kind: number,
  list: number,
  pattern: number,
): RuleAt | null {
  const k = rules.kinds[kind];
  const rule = RULE_LISTS[list];
  if (!k || !rule) return null;
  const p = [k.detect, k.mustInclude, k.mustNotInclude][list]![pattern];
  return p ? { kind: k.name, rule, pattern: p.source } : null;
}

/** `detect` runs on the client's text, the other lists on the model's output. */
export function describeRule(at: RuleAt): string {
  return `rule set '${at.kind}', ${at.rule} pattern /${at.pattern}/ (on the ${at.rule === "detect" ? "client's text" : "model's output"})`;
}

/**
 * A rule check that did not finish: it ran past `text_analysis.rules_timeout` (its thread was
 * stopped), or its thread stopped or the check threw. `at` is the pattern that was running.
 */
export class RulesError extends Error {
  readonly reason: "timeout" | "failed";
  readonly at: RuleAt | null;

  constructor(reason: "timeout" | "failed", at: RuleAt | null, message: string) {
    super(message);
    this.name = "RulesError";
    this.reason = reason;
    this.at = at;
  }
}
