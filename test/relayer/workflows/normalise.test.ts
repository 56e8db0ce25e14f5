import { expect } from "chai";
import { ApiError } from "../../../relayer/http/errors.ts";
import { parseBody } from "../../../relayer/workflows/body.ts";
import {
  normaliseJsonWorkflow,
  normaliseWorkflow,
  normaliseYamlWorkflow,
} from "../../../relayer/workflows/normalise.ts";
import type { Workflow } from "../../../relayer/model/workflow.ts";
import {
  RECIPIENT_A,
  RECIPIENT_B,
  SPEC_JSON_WORKFLOW,
  SPEC_YAML_WORKFLOW,
  devnetLikeCatalogue,
} from "../../fixtures/catalogue.ts";

const catalogue = devnetLikeCatalogue();

/** Normalises and returns the ApiError it throws (fails the test when it does not throw). */
function rejection(format: "json" | "yaml", body: unknown): ApiError {
  try {
    const document = format === "yaml" ? parseBody("yaml", body as string) : body;
    normaliseWorkflow(format, document, catalogue);
  } catch (err) {
    expect(err).to.be.instanceOf(ApiError);
    return err as ApiError;
  }
  expect.fail("the workflow was accepted");
}

function jsonWith(patch: (w: typeof SPEC_JSON_WORKFLOW) => void): unknown {
  const copy = structuredClone(SPEC_JSON_WORKFLOW);
  patch(copy);
  return copy;
}

/** Asserts one VALIDATION_FAILED issue at `path` whose message contains `text`. */
function expectIssue(err: ApiError, path: string, text: string): void {
  expect(err.status).to.equal(400);
  expect(err.code).to.equal("VALIDATION_FAILED");
  const issues = err.extra["issues"] as { path: string; message: string }[];
  const found = issues.find((i) => i.path === path);
  expect(found, `issue at ${path} in ${JSON.stringify(issues)}`).to.not.equal(undefined);
  expect(found!.message).to.contain(text);
  expect(err.toBody()).to.have.keys("error", "detail", "issues");
}

describe("# workflow normalisation", () => {
  it("should normalise the spec's JSON and YAML examples to the same model", () => {
    const fromJson = normaliseJsonWorkflow(SPEC_JSON_WORKFLOW, catalogue);
    const fromYaml = normaliseYamlWorkflow(parseBody("yaml", SPEC_YAML_WORKFLOW), catalogue);
    const strip = ({ format: _f, schedule, ...rest }: Workflow) => ({
      ...rest,
      schedule: schedule && { cron: schedule.cron, timezone: schedule.timezone },
    });
    expect(strip(fromYaml)).to.deep.equal(strip(fromJson));
    expect(fromJson.format).to.equal("json");
    expect(fromYaml.format).to.equal("yaml");
    expect(fromYaml.schedule).to.deep.equal({
      cron: "0 9 * * 1",
      timezone: "America/New_York",
      phrase: "every Monday at 09:00 EST",
    });
  });

  it("should resolve chaining, defaults, recipients and compliance into the model", () => {
    const w = normaliseJsonWorkflow(SPEC_JSON_WORKFLOW, catalogue);
    expect(w.actions.map((a) => a.type)).to.deep.equal(["convert", "swap", "bridge", "multisend"]);
    expect(w.actions[0]).to.include({
      from: "ETH",
      to: "USDC",
      amount: "1.5",
      input: "explicit",
      priority: "cost",
    });
    expect(w.actions[0]!.slippageBps).to.equal(50); // default 0.5 %
    expect(w.actions[1]).to.include({ slippageBps: 50, dex: "uniswap" });
    // The bridge has neither from nor amount: it moves the swap's DAI output.
    expect(w.actions[2]).to.include({
      from: "DAI",
      input: "chained",
      destination: "polygon",
      protocol: "lockmint",
    });
    expect(w.actions[2]!.amount).to.equal(undefined);
    expect(w.actions[3]!.recipients).to.deep.equal([
      { address: RECIPIENT_A, amount: { kind: "absolute", amount: "250" } },
      { address: RECIPIENT_B, amount: { kind: "percent", bps: 5000 } },
    ]);
    expect(w.compliance).to.deep.equal({
      jurisdictions: ["US"],
      taxForms: ["1099-DA"],
      sanctionsLists: ["ofac-sdn", "chainalysis-oracle"],
    });
    expect(w.riskThreshold).to.equal(0.7);
    expect(w.gasStrategy).to.equal("eco");
  });

  it("should place fallback chains per workflow and let an action's own list replace it", () => {
    const w = normaliseJsonWorkflow(
      jsonWith((b) => {
        Object.assign(b, { fallback_chains: ["arbitrum", "polygon"] });
        Object.assign(b.actions[1]!, { chain: "ethereum", fallback_chains: ["Polygon"] });
        Object.assign(b.actions[0]!, { chain: "arbitrum" });
      }),
      catalogue,
    );
    expect(w.fallbackChains).to.deep.equal(["arbitrum", "polygon"]);
    expect(w.actions[0]!.fallbackChains).to.deep.equal(["polygon"]); // its own chain left out
    expect(w.actions[1]!.fallbackChains).to.deep.equal(["polygon"]);
    expect(w.actions[2]!.fallbackChains).to.deep.equal(["arbitrum", "polygon"]);
  });

  it("should keep YAML amounts and addresses exactly as written", () => {
    const yaml = `name: exact
actions:
  - action: multisend
    params:
      from: USDC
      chain: arbitrum
      recipients:
        - ${RECIPIENT_A.toLowerCase()}: 0.000001
        - ${RECIPIENT_B}: 12345678901234567890.5
`;
    const w = normaliseYamlWorkflow(parseBody("yaml", yaml), catalogue);
    expect(w.actions[0]!.recipients!.map((r) => r.amount)).to.deep.equal([
      { kind: "absolute", amount: "0.000001" },
      { kind: "absolute", amount: "12345678901234567890.5" },
    ]);
    expect(w.actions[0]!.recipients![0]!.address).to.equal(RECIPIENT_A); // checksummed
    // A first-action multisend of absolute amounts sends exactly their total.
    expect(w.actions[0]).to.include({ amount: "12345678901234567890.500001", input: "explicit" });
  });

  it("should accept a percentage with two decimals and a risk threshold and gas strategy", () => {
    const w = normaliseJsonWorkflow(
      jsonWith((b) => {
        b.actions[3]!.recipients![1]!.amount = "12.25%";
        Object.assign(b, { risk_threshold: 0.5, gas_strategy: "fast" });
      }),
      catalogue,
    );
    expect(w.actions[3]!.recipients![1]!.amount).to.deep.equal({ kind: "percent", bps: 1225 });
    expect(w.riskThreshold).to.equal(0.5);
    expect(w.gasStrategy).to.equal("fast");
  });

  describe("## validation failures", () => {
    const cases: { name: string; body: () => unknown; path: string; text: string }[] = [
      {
        name: "an unknown action type",
        body: () => jsonWith((b) => Object.assign(b.actions[0]!, { type: "stake" })),
        path: "actions.0.type",
        text: "swap",
      },
      {
        name: "an amount given as a number",
        body: () => jsonWith((b) => Object.assign(b.actions[1]!, { amount: 1000 })),
        path: "actions.1.amount",
        text: "string",
      },
      {
        name: "an amount with more decimals than the asset",
        body: () => jsonWith((b) => Object.assign(b.actions[1]!, { amount: "1.0000001" })),
        path: "actions.1.amount",
        text: "USDC has 6",
      },
      {
        name: "a zero amount",
        body: () => jsonWith((b) => Object.assign(b.actions[1]!, { amount: "0.000" })),
        path: "actions.1.amount",
        text: "greater than 0",
      },
      {
        name: "a negative amount",
        body: () => jsonWith((b) => Object.assign(b.actions[1]!, { amount: "-5" })),
        path: "actions.1.amount",
        text: "decimal",
      },
      {
        name: "slippage of zero",
        body: () => jsonWith((b) => Object.assign(b.actions[1]!, { slippage: 0 })),
        path: "actions.1.slippage",
        text: "greater than 0",
      },
      {
        name: "slippage above 50",
        body: () => jsonWith((b) => Object.assign(b.actions[1]!, { slippage: 50.5 })),
        path: "actions.1.slippage",
        text: "at most 50",
      },
      {
        name: "slippage finer than a basis point",
        body: () => jsonWith((b) => Object.assign(b.actions[1]!, { slippage: 0.125 })),
        path: "actions.1.slippage",
        text: "two decimal places",
      },
      {
        name: "an unknown asset",
        body: () => jsonWith((b) => Object.assign(b.actions[1]!, { to: "DOGE" })),
        path: "actions.1.to",
        text: "unknown asset",
      },
      {
        name: "an unknown chain",
        body: () => jsonWith((b) => Object.assign(b.actions[2]!, { destination: "solana" })),
        path: "actions.2.destination",
        text: "unknown chain",
      },
      {
        name: "an unknown exchange",
        body: () => jsonWith((b) => Object.assign(b.actions[1]!, { dex: "curve" })),
        path: "actions.1.dex",
        text: "unknown exchange",
      },
      {
        name: "an unknown bridge protocol",
        body: () => jsonWith((b) => Object.assign(b.actions[2]!, { protocol: "wormhole" })),
        path: "actions.2.protocol",
        text: "unknown bridge protocol",
      },
      {
        name: "a bridge without destination",
        body: () =>
          jsonWith((b) => {
            delete (b.actions[2] as { destination?: string }).destination;
          }),
        path: "actions.2.destination",
        text: "required",
      },
      {
        name: "a bridge to its source chain",
        body: () => jsonWith((b) => Object.assign(b.actions[2]!, { chain: "polygon" })),
        path: "actions.2.destination",
        text: "source chain",
      },
      {
        name: "a swap without target",
        body: () =>
          jsonWith((b) => {
            delete (b.actions[1] as { to?: string }).to;
          }),
        path: "actions.1.to",
        text: "required",
      },
      {
        name: "a swap to the same asset",
        body: () => jsonWith((b) => Object.assign(b.actions[1]!, { to: "usdc" })),
        path: "actions.1.to",
        text: "itself",
      },
      {
        name: "a field of another action type",
        body: () => jsonWith((b) => Object.assign(b.actions[2]!, { slippage: 1 })),
        path: "actions.2.slippage",
        text: "does not apply to a bridge",
      },
      {
        name: "an unknown field",
        body: () => jsonWith((b) => Object.assign(b.actions[0]!, { amout: "1" })),
        path: "actions.0",
        text: "amout",
      },
      {
        name: "a first action without amount",
        body: () =>
          jsonWith((b) => {
            delete (b.actions[0] as { amount?: string }).amount;
          }),
        path: "actions.0.amount",
        text: "first action",
      },
      {
        name: "a first action without from",
        body: () =>
          jsonWith((b) => {
            delete (b.actions[0] as { from?: string }).from;
          }),
        path: "actions.0.from",
        text: "first action",
      },
      {
        name: "no actions",
        body: () =>
          jsonWith((b) => {
            b.actions = [];
          }),
        path: "actions",
        text: "",
      },
      {
        name: "a recipient that is not an address",
        body: () =>
          jsonWith((b) => {
            b.actions[3]!.recipients![0]!.address = "0x1234";
          }),
        path: "actions.3.recipients.0.address",
        text: "not an EVM address",
      },
      {
        name: "a recipient with a bad checksum",
        body: () =>
          jsonWith((b) => {
            b.actions[3]!.recipients![0]!.address = RECIPIENT_A.replace("E7", "e7");
          }),
        path: "actions.3.recipients.0.address",
        text: "checksum",
      },
      {
        name: "the zero address",
        body: () =>
          jsonWith((b) => {
            b.actions[3]!.recipients![0]!.address = "0x0000000000000000000000000000000000000000";
          }),
        path: "actions.3.recipients.0.address",
        text: "zero address",
      },
      {
        name: "a duplicate recipient",
        body: () =>
          jsonWith((b) => {
            b.actions[3]!.recipients![1]!.address = RECIPIENT_A;
          }),
        path: "actions.3.recipients.1.address",
        text: "twice",
      },
      {
        name: "percentages above 100",
        body: () =>
          jsonWith((b) => {
            b.actions[3]!.recipients![0]!.amount = "60%";
          }),
        path: "actions.3.recipients",
        text: "110%",
      },
      {
        name: "a percentage with three decimals",
        body: () =>
          jsonWith((b) => {
            b.actions[3]!.recipients![1]!.amount = "1.125%";
          }),
        path: "actions.3.recipients.1.amount",
        text: "two decimal places",
      },
      {
        name: "a recipient amount that is neither",
        body: () =>
          jsonWith((b) => {
            b.actions[3]!.recipients![1]!.amount = "half";
          }),
        path: "actions.3.recipients.1.amount",
        text: "percentage",
      },
      {
        name: "recipients above the multisend amount",
        body: () =>
          jsonWith((b) =>
            Object.assign(
              b.actions[3]!,
              { from: "DAI", amount: "400" },
              {
                recipients: [
                  { address: RECIPIENT_A, amount: "300" },
                  { address: RECIPIENT_B, amount: "50%" },
                ],
              },
            ),
          ),
        path: "actions.3.recipients",
        text: "more than",
      },
      {
        name: "a multisend without recipients",
        body: () =>
          jsonWith((b) => {
            delete (b.actions[3] as { recipients?: unknown }).recipients;
          }),
        path: "actions.3.recipients",
        text: "required",
      },
      {
        name: "an invalid cron",
        body: () =>
          jsonWith((b) => {
            b.schedule = "61 * * * *";
          }),
        path: "schedule",
        text: "invalid cron",
      },
      {
        name: "a cron with seconds",
        body: () =>
          jsonWith((b) => {
            b.schedule = "0 0 9 * * 1";
          }),
        path: "schedule",
        text: "five fields",
      },
      {
        name: "an unknown time zone",
        body: () =>
          jsonWith((b) => {
            b.timezone = "Mars/Olympus";
          }),
        path: "schedule",
        text: "time zone",
      },
      {
        name: "a risk threshold above 1",
        body: () => jsonWith((b) => Object.assign(b, { risk_threshold: 1.5 })),
        path: "risk_threshold",
        text: "",
      },
      {
        name: "an unknown fallback chain",
        body: () => jsonWith((b) => Object.assign(b, { fallback_chains: ["base"] })),
        path: "fallback_chains.0",
        text: "unknown chain",
      },
      {
        name: "a chained action naming another asset than the previous output",
        body: () => jsonWith((b) => Object.assign(b.actions[2]!, { from: "USDC" })),
        path: "actions.2.from",
        text: "previous output (DAI)",
      },
      {
        name: "an asset absent from the pinned chain",
        body: () => jsonWith((b) => Object.assign(b.actions[1]!, { chain: "ethereum", to: "ARB" })),
        path: "actions.1.to",
        text: "ARB does not exist on ethereum",
      },
    ];
    for (const c of cases) {
      it(`should reject ${c.name}`, () => expectIssue(rejection("json", c.body()), c.path, c.text));
    }

    it("should reject an unknown schedule phrase in YAML with the grammar's examples", () => {
      const err = rejection(
        "yaml",
        SPEC_YAML_WORKFLOW.replace("every Monday at 09:00 EST", "whenever it suits at 9 EST"),
      );
      expectIssue(err, "trigger.frequency", "every Monday at 09:00 EST");
    });

    it("should reject YAML that does not parse, with the YAML error", () => {
      const err = rejection("yaml", "name: [unclosed\nactions: {");
      expectIssue(err, "", "not valid YAML");
    });

    it("should reject duplicate YAML keys", () => {
      const err = rejection(
        "yaml",
        SPEC_YAML_WORKFLOW.replace(
          "      amount: 1000\n",
          "      amount: 1000\n      amount: 2000\n",
        ),
      );
      expectIssue(err, "", "not valid YAML");
    });

    it("should reject a YAML recipient item with two addresses", () => {
      const err = rejection(
        "yaml",
        SPEC_YAML_WORKFLOW.replace(
          `        - ${RECIPIENT_A}: 250\n`,
          `        - {${RECIPIENT_A}: 250, ${RECIPIENT_B}: 1}\n`,
        ),
      );
      expectIssue(err, "actions.3.params.recipients.0", "one address");
    });

    it("should report YAML issues at the YAML paths", () => {
      const err = rejection(
        "yaml",
        SPEC_YAML_WORKFLOW.replace("slippage: 0.5", "slippage: 75").replace(
          "action: swap",
          "action: stake",
        ),
      );
      expectIssue(err, "actions.1.action", "unknown action type");
    });

    it("should reject an unsupported jurisdiction with the error that points to the specs", () => {
      const err = rejection(
        "json",
        jsonWith((b) => {
          b.compliance.jurisdictions = ["US", "XX"];
        }),
      );
      expect(err.status).to.equal(400);
      expect(err.code).to.equal("INVALID_COMPLIANCE_RULES");
      expect(err.detail).to.contain("/v1/compliance/specs");
      expect(err.toBody()).to.deep.include({
        specs: "/v1/compliance/specs",
        issues: [{ path: "compliance.jurisdictions.1", message: 'unsupported jurisdiction "XX"' }],
      });
    });

    it("should reject an unsupported or inapplicable tax form", () => {
      const unknown = rejection(
        "yaml",
        SPEC_YAML_WORKFLOW.replace("tax_forms: [1099-DA]", "tax_forms: [W-9]"),
      );
      expect(unknown.code).to.equal("INVALID_COMPLIANCE_RULES");
      expect(unknown.detail).to.contain('unsupported tax form "W-9"');
      const inapplicable = rejection(
        "json",
        jsonWith((b) => {
          b.compliance = { jurisdictions: ["DE"], tax_forms: ["1099-B"] };
        }),
      );
      expect(inapplicable.code).to.equal("INVALID_COMPLIANCE_RULES");
      expect(inapplicable.detail).to.contain("does not apply");
    });
  });
});
