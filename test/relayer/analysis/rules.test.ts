import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { LegalRules } from "../../../relayer/config/index.ts";
import { parseIntegrations } from "../../../relayer/config/integrations.ts";
import { DEFAULT_REDACTION, findPii } from "../../../relayer/analysis/redaction.ts";
import { inlineRedactor, RedactionPool } from "../../../relayer/analysis/redaction-pool.ts";
import { checkRules, RulesError } from "../../../relayer/analysis/rules.ts";
import { ApiError } from "../../../relayer/http/errors.ts";
import {
  analysisOn,
  openAnalysisWorld,
  textAnalysisEntry,
  type AnalysisWorld,
} from "../../fixtures/analysis.ts";

/**
 * The legal rules run in the redaction threads, in the output scan's job, under
 * `text_analysis.rules_timeout`: a pattern that backtracks on the client's text is stopped with
 * its thread, the client gets 503 ANALYSIS_RULES_TIMEOUT naming it, and nothing is stored.
 */

/** `(a|aa)+$` against 48 `a`s and a `b`: about 3^24 paths (30 `a`s take ~0.5 s here). */
const STUCK_PATTERN = "(a|aa)+$";
const STUCK_TEXT = `${"a".repeat(48)}b`;
/**
 * Quadratic on a text full of "waiver" (259 KB take ~3.5 s here), and not refused at start: the
 * start-up check misses it (docs/analysis.md), so only the time limit stops it.
 */
const SLIPPED_PATTERN = "\\bwaiver\\b.*\\bvoid\\b";
const SLIPPED_TEXT = "waiver ".repeat(37_000);

const rules = (kinds: LegalRules["kinds"]): LegalRules => ({ kinds });
const kind = (
  name: string,
  lists: { detect?: string[]; mustInclude?: string[]; mustNotInclude?: string[] },
) => ({
  name,
  detect: (lists.detect ?? []).map((p) => new RegExp(p, "iu")),
  mustInclude: (lists.mustInclude ?? []).map((p) => new RegExp(p, "iu")),
  mustNotInclude: (lists.mustNotInclude ?? []).map((p) => new RegExp(p, "iu")),
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("# legal rules in the redaction threads", function () {
  this.timeout(60_000);
  let pool: RedactionPool | undefined;
  afterEach(() => pool?.close());

  it("should find in the output scan's thread exactly the violations checkRules finds on the event loop", async function () {
    const legal = rules([
      kind("payment_instruction", {
        detect: ["\\btransfer\\b", "IBAN"],
        mustInclude: ["confirm the beneficiary"],
        mustNotInclude: ["guaranteed"],
      }),
      kind("general", { mustNotInclude: ["guarantee"] }),
    ]);
    pool = new RedactionPool(2, { rules: legal, timeoutMs: 5_000 });
    const cases = [
      ["Please transfer EUR 100.", "Payment is guaranteed; mail jane@example.com."],
      ["Please transfer EUR 100.", "Confirm the beneficiary first."],
      ["Review this lease.", "We guarantee nothing."],
      ["Review this lease.", "Nothing to add."],
    ] as const;
    for (const [input, output] of cases) {
      const checked = await pool.checkOutput(output, input, DEFAULT_REDACTION);
      expect(checked.violations).to.deep.equal(checkRules(legal, input, output));
      expect(checked.leaks).to.deep.equal(findPii(output));
    }
    expect(
      (await pool.checkOutput(cases[0][1], cases[0][0], DEFAULT_REDACTION)).violations,
    ).to.deep.equal([
      { kind: "payment_instruction", rule: "must_include", pattern: "confirm the beneficiary" },
      { kind: "payment_instruction", rule: "must_not_include", pattern: "guaranteed" },
    ]);
  });

  it("should stop a check past the time limit with its thread, naming the pattern, and serve the thread's other jobs and the next ones", async function () {
    pool = new RedactionPool(1, {
      rules: rules([kind("claims", { detect: ["\\bclaim\\b", STUCK_PATTERN] })]),
      timeoutMs: 200,
    });
    const started = performance.now();
    const stuck = pool.checkOutput("Fine.", STUCK_TEXT, DEFAULT_REDACTION);
    // Queued behind the stuck check on the only thread.
    const queued = pool.redact("Mail a@example.com.", DEFAULT_REDACTION);
    const error = await stuck.catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).to.be.instanceOf(RulesError);
    expect((error as RulesError).reason).to.equal("timeout");
    expect((error as RulesError).at).to.deep.equal({
      kind: "claims",
      rule: "detect",
      pattern: STUCK_PATTERN,
    });
    expect((error as Error).message).to.include("rules_timeout (200 ms)");
    expect((error as Error).message).to.include(
      "rule set 'claims', detect pattern /(a|aa)+$/ (on the client's text)",
    );
    // The limit counts from the check's start (the thread's start and scan come first).
    expect(elapsed).to.be.at.least(200).and.below(10_000);
    expect((await queued).text).to.equal("Mail [EMAIL_1].");
    expect(pool.running).to.equal(1);
    expect(await pool.checkOutput("Fine.", "a claim", DEFAULT_REDACTION)).to.deep.equal({
      leaks: [],
      violations: [],
    });
  });

  it("should fail a check whose thread stops during it, or whose pattern throws, with a RulesError", async function () {
    pool = new RedactionPool(1, {
      rules: rules([kind("claims", { detect: [STUCK_PATTERN] })]),
      timeoutMs: 60_000,
    });
    const stuck = pool.checkOutput("Fine.", STUCK_TEXT, DEFAULT_REDACTION);
    await until(() => pool!.checking === 1, "the check to start");
    await pool.close();
    const error = await stuck.catch((e: unknown) => e);
    expect(error).to.be.instanceOf(RulesError);
    expect((error as RulesError).reason).to.equal("failed");
    expect((error as RulesError).at).to.deep.equal({
      kind: "claims",
      rule: "detect",
      pattern: STUCK_PATTERN,
    });
    expect((error as Error).message).to.match(/thread checking the legal rules stopped/);

    // Irregexp's backtracking stack overflows on ten million characters: the check throws.
    pool = new RedactionPool(1, {
      rules: rules([kind("claims", { detect: ["(?:a|b)*$"] })]),
      timeoutMs: 60_000,
    });
    const thrown = await pool
      .checkOutput("Fine.", `${"ab".repeat(5_000_000)}!`, DEFAULT_REDACTION)
      .catch((e: unknown) => e);
    expect(thrown).to.be.instanceOf(RulesError);
    expect((thrown as RulesError).reason).to.equal("failed");
    expect((thrown as Error).message).to.match(/the legal rules failed: .*call stack/);
    expect(await pool.checkOutput("Fine.", "ab", DEFAULT_REDACTION)).to.deep.equal({
      leaks: [],
      violations: [],
    });
  });

  it("should read rules_timeout and refuse rules without redaction threads, naming the keys", function () {
    const dir = mkdtempSync(path.join(os.tmpdir(), "vf-rules-timeout-"));
    try {
      writeFileSync(path.join(dir, "rules.yaml"), "kinds:\n  nda:\n    detect: ['\\bNDA\\b']\n");
      const parse = (extra: Record<string, unknown>) =>
        parseIntegrations(
          {
            text_analysis: textAnalysisEntry("https://x.example", {
              rules: "rules.yaml",
              ...extra,
            }),
          },
          "test",
          dir,
        ).textAnalysis!;
      expect(parse({}).rulesTimeoutMs).to.equal(1_000);
      expect(parse({ rules_timeout: "250ms" }).rulesTimeoutMs).to.equal(250);
      for (const bad of ["0s", "soon", -1, "1 week"])
        expect(() => parse({ rules_timeout: bad })).to.throw(/rules_timeout/);
      expect(() => parse({ redaction_threads: 0 })).to.throw(
        /text_analysis\.rules needs text_analysis\.redaction_threads of 1 or more \(it is 0\)/,
      );
      // Without rules the event loop may still scan.
      expect(
        parseIntegrations({
          text_analysis: textAnalysisEntry("https://x.example", { redaction_threads: 0 }),
        }).textAnalysis!.redactionThreads,
      ).to.equal(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("# legal rules past their time limit (relayer and stand-in)", function () {
  this.timeout(180_000);
  let world: AnalysisWorld;
  const logLines: string[] = [];
  const count = async (table: "analyses" | "analysis_audit") =>
    (
      await world.relayer.ctx.store.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)
    )[0]!.n;

  before(async function () {
    world = await openAnalysisWorld({
      label: "analysis-rules",
      logLines,
      textAnalysis: { rules: "rules.yaml", rules_timeout: "300ms", redaction_threads: 1 },
      files: {
        "rules.yaml": [
          "kinds:",
          "  claims:",
          `    detect: ['\\bclaim\\b', '${SLIPPED_PATTERN}']`,
          "    must_include: ['claim']",
        ].join("\n"),
      },
    });
  });
  after(async function () {
    await world?.close();
  });

  it("should answer 503 ANALYSIS_RULES_TIMEOUT naming the pattern, store nothing, log and count it, and answer the next request", async function () {
    const before = { analyses: await count("analyses"), audit: await count("analysis_audit") };
    const res = await world.post({ text: SLIPPED_TEXT });
    const body = (await res.json()) as { error: string; detail: string };
    expect(res.status, JSON.stringify(body)).to.equal(503);
    expect(body.error).to.equal("ANALYSIS_RULES_TIMEOUT");
    expect(body.detail).to.include("text_analysis.rules_timeout (300 ms)");
    expect(body.detail).to.include(`rule set 'claims', detect pattern /${SLIPPED_PATTERN}/`);
    expect(await count("analyses")).to.equal(before.analyses);
    expect(await count("analysis_audit")).to.equal(before.audit);
    const line = logLines.find((l) => l.includes("text_analysis.rules_timeout"));
    expect(line).to.include(`"pattern":${JSON.stringify(SLIPPED_PATTERN)}`);
    expect(logLines.join("\n")).to.not.include(SLIPPED_TEXT);
    const metric = await world.relayer.ctx.metrics.registry.getSingleMetricAsString(
      "veriflow_analysis_rule_timeouts_total",
    );
    expect(metric).to.include('veriflow_analysis_rule_timeouts_total{kind="claims"} 1');

    const next = await world.post({ text: "Review the claim of our supplier." });
    const answer = (await next.json()) as { compliance_checks: { clm_violations: number } };
    expect(next.status, JSON.stringify(answer)).to.equal(200);
    // The stand-in's answer does not say "claim".
    expect(answer.compliance_checks.clm_violations).to.equal(1);
    expect(await count("analyses")).to.equal(before.analyses + 1);
    expect(await count("analysis_audit")).to.equal(before.audit + 1);
  });

  it("should answer 503 ANALYSIS_RULES_FAILED and store nothing when the thread stops during the check", async function () {
    const config = world.relayer.ctx.config.integrations!.textAnalysis!;
    const pool = new RedactionPool(1, { rules: config.rules!, timeoutMs: 60_000 });
    const analysis = analysisOn(world, { redactor: pool });
    try {
      const before = await count("analyses");
      const pending = analysis
        .analyze({ apiKeyId: world.key.id, text: SLIPPED_TEXT })
        .catch((e: unknown) => e);
      await until(() => pool.checking === 1, "the check to start");
      await pool.close();
      const error = await pending;
      expect(error).to.be.instanceOf(ApiError);
      expect((error as ApiError).status).to.equal(503);
      expect((error as ApiError).code).to.equal("ANALYSIS_RULES_FAILED");
      expect((error as ApiError).detail).to.include("rule set 'claims', detect pattern");
      expect(await count("analyses")).to.equal(before);
    } finally {
      await analysis.close();
    }
  });

  it("should refuse a redactor that skips the configured rules", function () {
    expect(() => analysisOn(world, { redactor: inlineRedactor })).to.throw(
      /text_analysis\.rules needs a redactor that checks them/,
    );
  });
});
