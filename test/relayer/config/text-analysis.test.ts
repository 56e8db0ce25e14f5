import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { parseIntegrations } from "../../../relayer/config/integrations.ts";
import { FALLBACK_MODEL, MODELS, textAnalysisEntry } from "../../fixtures/analysis.ts";

/** `text_analysis:` values: the spec's defaults, each bad value named at start, the edges kept. */
const ENDPOINT = "https://llm.example.com/v1";

function problemsOf(doc: Record<string, unknown>): string[] {
  try {
    parseIntegrations(doc);
    return [];
  } catch (err) {
    return (err as { problems: string[] }).problems;
  }
}

const analysisProblems = (overrides: Record<string, unknown>, url = ENDPOINT) =>
  problemsOf({ text_analysis: { ...textAnalysisEntry(url), ...overrides } });

function expectRefused(problems: string[], path: string, message?: RegExp) {
  const named = problems.filter((p) => p.startsWith(path));
  expect(named, `${path} in ${problems.join("\n")}`).to.not.be.empty;
  if (message) expect(named.join("\n"), path).to.match(message);
}

describe("# text_analysis configuration", function () {
  it("should accept the spec's keys with the spec's defaults", function () {
    const config = parseIntegrations({ text_analysis: textAnalysisEntry(`${ENDPOINT}/`) });
    const ta = config.textAnalysis!;
    expect(ta.apiEndpoint).to.equal(ENDPOINT);
    expect(ta.fallbackModel).to.equal(FALLBACK_MODEL);
    expect(ta.rateLimit).to.deep.equal({ rpm: 600, burst: 50 });
    expect(ta.biasThreshold).to.equal(0.7);
    expect(ta.audit.retentionMs).to.equal(7 * 365 * 86_400_000);
    expect(config.integrations).to.deep.equal({});
  });

  it("should read the regions whose national phone numbers are redacted, and name a bad list", function () {
    const regionsOf = (entry: Record<string, unknown>) =>
      parseIntegrations({ text_analysis: entry }).textAnalysis!.security.phoneRegions;
    expect(regionsOf(textAnalysisEntry(ENDPOINT))).to.equal(undefined);
    expect(
      regionsOf({
        ...textAnalysisEntry(ENDPOINT),
        security: { phone_regions: ["BR", "IN", "JP"] },
      }),
    ).to.deep.equal(["BR", "IN", "JP"]);
    const seventeen = "US GB DE FR ES IT BR IN JP CN MX CA AU NL PL SE NO".split(" ");
    for (const [list, message] of [
      [["br"], /ISO 3166-1 alpha-2/],
      [["XX"], /ISO 3166-1 alpha-2/],
      [["BRA"], /ISO 3166-1 alpha-2/],
      [[], /at least one region/],
      [["BR", "BR"], /twice/],
      [seventeen, /at most 16/],
      ["BR", /expected array/],
    ] as const)
      expectRefused(
        analysisProblems({ security: { phone_regions: list } }),
        "text_analysis.security.phone_regions",
        message,
      );
  });

  it("should name every bad value at start", function () {
    const problems = problemsOf({
      text_analysis: {
        ...textAnalysisEntry("ftp://x"),
        models: { ultra: "ultra", general: MODELS.general, in_house: MODELS.in_house },
        fallback_model: "latest",
        rate_limit: { rpm: -1, burst: 0 },
        security: { input_sanitization: "none", output_encryption: "rot13" },
        audit: { model_interactions: false, data_retention: "forever" },
        bias_threshold: 1.5,
        auth: { type: "oauth", key_vault: "cloud", credential_id: "x" },
      },
    });
    for (const path of [
      "text_analysis.api_endpoint",
      "text_analysis.models.ultra",
      "text_analysis.fallback_model",
      "text_analysis.rate_limit.rpm",
      "text_analysis.rate_limit.burst",
      "text_analysis.security.input_sanitization",
      "text_analysis.security.output_encryption",
      "text_analysis.audit.model_interactions",
      "text_analysis.audit.data_retention",
      "text_analysis.bias_threshold",
      "text_analysis.auth.type",
      "text_analysis.auth.key_vault",
    ])
      expectRefused(problems, path);
  });

  it("should refuse a model whose date is not a calendar date, a retention past 100 years, a zero timeout, an endpoint with a query or credentials", function () {
    expectRefused(
      analysisProblems({ models: { ...MODELS, general: "general-2025-13-45" } }),
      "text_analysis.models.general",
    );
    expectRefused(
      analysisProblems({ fallback_model: "general-2025-02-30" }),
      "text_analysis.fallback_model",
    );
    // 99999999 years: the pruning cutoff (now minus the retention) would not be a date.
    for (const retention of ["99999999y", "7x"])
      expectRefused(
        analysisProblems({ audit: { data_retention: retention } }),
        "text_analysis.audit.data_retention",
      );
    expectRefused(analysisProblems({ timeout: "0s" }), "text_analysis.timeout");
    for (const url of [
      `${ENDPOINT}?key=sk-1`,
      "https://user:sk-1@llm.example.com/v1",
      `${ENDPOINT}#x`,
    ])
      expectRefused(analysisProblems({}, url), "text_analysis.api_endpoint");
    // The edges that stay valid.
    expect(
      analysisProblems({ fallback_model: "general-2024-02-29", audit: { data_retention: "100y" } }),
    ).to.be.empty;
  });

  it("should refuse a rules file that is missing, holds a bad pattern or one that backtracks exponentially", function () {
    expect(() =>
      parseIntegrations({
        text_analysis: { ...textAnalysisEntry(ENDPOINT), rules: "/nonexistent/rules.yaml" },
      }),
    ).to.throw(/text_analysis.rules cannot read/);
    const dir = mkdtempSync(path.join(os.tmpdir(), "vf-rules-"));
    const parseWithRules = (yaml: string) => {
      writeFileSync(path.join(dir, "rules.yaml"), yaml);
      parseIntegrations(
        { text_analysis: { ...textAnalysisEntry(ENDPOINT), rules: "rules.yaml" } },
        "test",
        dir,
      );
    };
    try {
      expect(() => parseWithRules("kinds:\n  nda:\n    detect: ['(unclosed']\n")).to.throw(
        /kinds\.nda\.detect\.0 must be a valid regular expression/,
      );
      expect(() => parseWithRules("kinds:\n  nda:\n    detect: ['(a+)+$']\n")).to.throw(
        /kinds\.nda\.detect\.0 pattern '\(a\+\)\+\$' repeats a\+ inside \(a\+\)\+/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("# text_analysis configuration at its edges", function () {
  it("should refuse an api_endpoint that the paths appended to it would not extend as written", function () {
    for (const url of [
      // An empty query: `…/v1?` + `/chat/completions` is a request to /v1.
      "https://llm.example.com/v1?",
      // A blank the parser trims or escapes: `/v1%20/chat/completions`.
      "https://llm.example.com/v1 ",
      " https://llm.example.com/v1",
      // Dot segments and backslashes read away.
      "https://llm.example.com/v1/..",
      "https://llm.example.com/v1/./",
      "https:\\\\llm.example.com\\v1",
      "https://llm.example.com/v\t1",
    ])
      expectRefused(analysisProblems({}, url), "text_analysis.api_endpoint", /must be|parser/);
    expectRefused(
      analysisProblems({}, "https://llm.example.com/v1 "),
      "text_analysis.api_endpoint",
      /as the URL parser reads it \("https:\/\/llm\.example\.com\/v1", got "https:\/\/llm\.example\.com\/v1 "\)/,
    );
    // A refusal names the key, never the credentials or query the URL carried.
    for (const url of [
      "https://user:sk-1@llm.example.com/v1",
      "https://llm.example.com/v1?key=sk-1",
      "https://user:sk-1@LLM.example.com/v1 ",
      "https://llm.example.com/v1#sk-1",
    ]) {
      const problems = analysisProblems({}, url);
      expectRefused(problems, "text_analysis.api_endpoint");
      expect(problems.join("\n"), url).to.not.include("sk-1");
    }
    for (const url of [
      ENDPOINT,
      `${ENDPOINT}/`,
      "https://llm.example.com",
      "http://127.0.0.1:8080/openai/v1",
    ])
      expect(analysisProblems({}, url), url).to.be.empty;
  });

  it("should refuse a model name longer than the 128 characters an answer's model may have", function () {
    // The provider answers with the name it was asked for: a longer one failed every completion.
    const named = (length: number) => `${"m".repeat(length - 11)}-2025-08-01`;
    for (const models of [
      { ...MODELS, ultra: named(129) },
      { ...MODELS, general: named(129) },
      { ...MODELS, in_house: named(129) },
    ]) {
      const problems = analysisProblems({ models });
      expect(
        problems.some((p) => /^text_analysis\.models\.\w+ must be at most 128/.test(p)),
      ).to.equal(true, problems.join("\n"));
    }
    expectRefused(
      analysisProblems({ fallback_model: named(129) }),
      "text_analysis.fallback_model",
      /at most 128/,
    );
    expect(
      analysisProblems({ models: { ...MODELS, ultra: named(128) }, fallback_model: named(128) }),
    ).to.be.empty;
  });

  it("should refuse a timeout or a retry delay longer than a timer holds, which would fire at once", function () {
    expectRefused(analysisProblems({ timeout: "30d" }), "text_analysis.timeout", /at most/);
    expectRefused(analysisProblems({ timeout: 2_147_484 }), "text_analysis.timeout", /at most/);
    expectRefused(
      analysisProblems({ retry: { attempts: 3, backoff: "exponential", max_delay: "25d" } }),
      "text_analysis.retry.max_delay",
      /at most/,
    );
    expectRefused(
      analysisProblems({ retry: { attempts: 3, backoff: "exponential", initial_delay: "25d" } }),
      "text_analysis.retry.initial_delay",
      /at most/,
    );
    // The REST integrations' calls use the same exchange and retry timers.
    expectRefused(
      problemsOf({
        integrations: {
          crm: {
            url: "https://crm.example.com/v2",
            auth: { type: "jwt_bearer", key_vault: "local", credential_id: "crm-jwt" },
            validation: { schema: "crm.orders" },
            timeout: "30d",
          },
        },
      }),
      "integrations.crm.timeout",
      /at most/,
    );
    expect(
      analysisProblems({
        timeout: "24d",
        retry: { attempts: 3, backoff: "fibonacci", initial_delay: "1d", max_delay: "24d" },
      }),
    ).to.be.empty;
  });
});
