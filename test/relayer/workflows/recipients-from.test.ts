import { expect } from "chai";
import { ApiError } from "../../../relayer/http/errors.ts";
import { parseBody } from "../../../relayer/workflows/body.ts";
import { normaliseWorkflow } from "../../../relayer/workflows/normalise.ts";
import { DEFAULT_MAX_ORDERS, type Workflow } from "../../../relayer/model/workflow.ts";
import { ExecutionClaimError, workflowCommitment } from "../../../relayer/proofs/index.ts";
import { encodeClaim } from "../../../relayer/proofs/claim.ts";
import type { AssetCatalogue } from "../../../relayer/workflows/catalogue.ts";
import { devnetLikeCatalogue } from "../../fixtures/catalogue.ts";
import { RECIPIENTS_FROM_JSON, RECIPIENTS_FROM_YAML } from "../../fixtures/workflows.ts";

/**
 * A multisend whose recipients come from an integration (`recipients_from`): one form in JSON and
 * YAML, validated at intake against the relayer's integrations that list orders, and committed
 * by the submission receipt as the source descriptor.
 */
const catalogue = { ...devnetLikeCatalogue(), recipientSources: new Set(["crm"]) };

function normalise(format: "json" | "yaml", body: unknown): Workflow {
  const document = format === "yaml" ? parseBody("yaml", body as string) : body;
  return normaliseWorkflow(format, document, catalogue);
}

function issues(format: "json" | "yaml", body: unknown, cat: AssetCatalogue = catalogue) {
  try {
    const document = format === "yaml" ? parseBody("yaml", body as string) : body;
    normaliseWorkflow(format, document, cat);
  } catch (err) {
    expect(err).to.be.instanceOf(ApiError);
    const e = err as ApiError;
    expect(e.status).to.equal(400);
    expect(e.code).to.equal("VALIDATION_FAILED");
    expect(e.toBody()).to.have.keys("error", "detail", "issues");
    return e.extra["issues"] as { path: string; message: string }[];
  }
  return expect.fail("the workflow was accepted");
}

function jsonWith(patch: (action: Record<string, unknown>) => void): unknown {
  const copy = structuredClone(RECIPIENTS_FROM_JSON) as { actions: Record<string, unknown>[] };
  patch(copy.actions[0]!);
  return copy;
}

describe("# recipients_from in the workflow model (JSON and YAML, validated at intake)", () => {
  it("should normalise the JSON and YAML forms to the same model, with defaults", () => {
    const json = normalise("json", RECIPIENTS_FROM_JSON);
    const yaml = normalise("yaml", RECIPIENTS_FROM_YAML);
    const strip = ({ format: _f, schedule: _s, ...rest }: Workflow) => rest;
    expect(strip(yaml)).to.deep.equal(strip(json));
    const [action] = json.actions;
    expect(action).to.deep.include({ type: "multisend", from: "USDC", amount: "5000" });
    expect(action!.recipients).to.equal(undefined);
    expect(action!.recipientsFrom).to.deep.equal({
      integration: "crm",
      path: "/crm/orders",
      query: { status: "unpaid" },
      id: "id",
      address: "wallet",
      amount: "amount",
      asset: "currency",
      maxOrders: DEFAULT_MAX_ORDERS,
    });
    expect(yaml.schedule).to.deep.include({ cron: "0 17 * * 5", timezone: "Europe/Berlin" });
  });

  it("should refuse an integration the relayer does not have, or has but not listing orders", () => {
    const unknown = issues(
      "json",
      jsonWith((a) => ((a.recipients_from as Record<string, unknown>).integration = "erp")),
    );
    expect(unknown).to.deep.equal([
      {
        path: "actions.0.recipients_from.integration",
        message: 'unknown integration "erp"; integrations that list orders: crm',
      },
    ]);
    // A relayer without integrations says so.
    const none = issues("json", RECIPIENTS_FROM_JSON, devnetLikeCatalogue());
    expect(none[0]!.message).to.include("this relayer has no integration that lists orders");
  });

  it("should refuse bad field names, paths, unknown keys and max_orders out of range, at their paths", () => {
    const cases: Array<[(a: Record<string, unknown>) => void, string, string]> = [
      [
        (a) => ((a.recipients_from as Record<string, unknown>).address = "wallet-address"),
        "actions.0.recipients_from.address",
        "must be a record field name",
      ],
      [
        (a) => ((a.recipients_from as Record<string, unknown>).path = "crm/orders"),
        "actions.0.recipients_from.path",
        "must be a path",
      ],
      [
        (a) => ((a.recipients_from as Record<string, unknown>).wallet = "wallet"),
        "actions.0.recipients_from",
        "wallet",
      ],
      [
        (a) => ((a.recipients_from as Record<string, unknown>).max_orders = 501),
        "actions.0.recipients_from.max_orders",
        "from 1 to 500",
      ],
      [
        (a) => ((a.recipients_from as Record<string, unknown>).amount = "wallet"),
        "actions.0.recipients_from",
        "must name different fields",
      ],
      [
        (a) => delete (a.recipients_from as Record<string, unknown>).amount,
        "actions.0.recipients_from.amount",
        "",
      ],
    ];
    for (const [patch, path, text] of cases) {
      const found = issues("json", jsonWith(patch));
      const issue = found.find((i) => i.path === path);
      expect(issue, `${path} in ${JSON.stringify(found)}`).to.not.equal(undefined);
      expect(issue!.message).to.include(text);
    }
    const yaml = issues(
      "yaml",
      RECIPIENTS_FROM_YAML.replace("address: wallet", "address: 0xwallet"),
    );
    expect(yaml.map((i) => i.path)).to.deep.equal(["actions.0.params.recipients_from.address"]);
  });

  it("should refuse recipients_from with recipients, on another action type, and without a budget", () => {
    const both = issues(
      "json",
      jsonWith((a) => (a.recipients = [{ address: "0x" + "11".repeat(20), amount: "1" }])),
    );
    expect(both.map((i) => i.message)).to.include(
      "give either recipients or recipients_from, not both",
    );
    const onSwap = issues(
      "json",
      jsonWith((a) => {
        a.type = "swap";
        a.to = "WETH";
      }),
    );
    expect(onSwap.map((i) => i.path)).to.include("actions.0.recipients_from");
    const noBudget = issues(
      "json",
      jsonWith((a) => delete a.amount),
    );
    expect(noBudget).to.deep.equal([
      {
        path: "actions.0.amount",
        message:
          "required: the most the payout of the fetched orders may send (or chain it from a previous action)",
      },
    ]);
  });

  it("should commit the source descriptor in the receipt: another descriptor is another commitment, and the action takes one circuit slot", async () => {
    const workflow = normalise("json", RECIPIENTS_FROM_JSON);
    const salt = 12345n;
    const commitment = await workflowCommitment(workflow, salt);
    const other = structuredClone(workflow);
    other.actions[0]!.recipientsFrom!.query = { status: "overdue" };
    expect(await workflowCommitment(other, salt)).to.not.equal(commitment);
    // The executed side: one recipient amount, the payout's total, equal to amount in.
    const tx = "0x" + "ab".repeat(32);
    const encoded = encodeClaim({
      executionId: "wf_recipients_from",
      salt,
      workflow,
      actions: [{ amountIn: 1500n, recipientAmounts: [1500n], txHashes: [tx] }],
    });
    expect(encoded.slots.filter((s) => s.actionType !== 0n)).to.have.length(1);
    expect(encoded.slots[0]!.recipients).to.deep.equal([1500n, 0n, 0n, 0n]);
    expect(() =>
      encodeClaim({
        executionId: "wf_recipients_from",
        salt,
        workflow,
        actions: [{ amountIn: 1500n, recipientAmounts: [1000n, 500n], txHashes: [tx] }],
      }),
    ).to.throw(ExecutionClaimError, "2 recipient amounts for the 1 submitted");
  });
});
