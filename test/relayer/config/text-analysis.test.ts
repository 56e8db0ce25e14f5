import { expect } from "chai";
import { parseIntegrations } from "../../../relayer/config/integrations.ts";
import { MODELS, textAnalysisEntry } from "../../fixtures/analysis.ts";

/** `text_analysis:` values at their edges: each bad one named at start, the edges kept. */
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
  if (message) expect(named.join("\n")).to.match(message);
}

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
