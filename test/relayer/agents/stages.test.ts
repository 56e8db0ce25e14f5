import { expect } from "chai";
import path from "node:path";
import { Wallet } from "ethers";
import { readDeployment } from "../../../relayer/deployments/index.ts";
import { outputOf, taskFor } from "../../../relayer/agents/index.ts";
import { stepResultSchema } from "../../../relayer/report/steps.ts";
import type { WorkflowAction } from "../../../relayer/model/workflow.ts";
import {
  bridgeStepResult,
  multisendStepResult,
  swapStepResult,
  txHash,
} from "../../fixtures/results.ts";

const DEPLOYMENTS = path.resolve(import.meta.dirname, "../../../deployments");
/** A bridge step result exactly as rows written before the typed stages hold it. */
const LEGACY_BRIDGE_ROW = { ...bridgeStepResult(), zk_proof: null };

function action(fields: Partial<WorkflowAction> & Pick<WorkflowAction, "type">): WorkflowAction {
  return { index: 0, from: "DAI", input: "explicit", fallbackChains: [], ...fields };
}

describe("# typed engine stages (tasks and results per action type)", function () {
  let polygon: { name: string; deployment: Awaited<ReturnType<typeof readDeployment>> };
  before(async function () {
    polygon = { name: "polygon", deployment: await readDeployment(DEPLOYMENTS, 31339) };
  });

  describe("# stored results", function () {
    it("should read a bridge row stored before the change (its always-null zk_proof dropped)", function () {
      const parsed = stepResultSchema.parse(LEGACY_BRIDGE_ROW);
      expect(parsed.action).to.equal("bridge");
      if (parsed.action !== "bridge") throw new Error("narrowed above");
      expect(parsed.dest_tx).to.equal(txHash(4));
      expect(parsed.output).to.deep.equal({ asset: "DAI", amount: "99.9", chain: "polygon" });
      expect(parsed).to.not.have.property("zk_proof");
    });

    it("should default fallback_from to null for a row that has none", function () {
      const { fallback_from: _, ...row } = LEGACY_BRIDGE_ROW;
      expect(stepResultSchema.parse(row).fallback_from).to.equal(null);
    });

    it("should read swap and convert rows under one schema, keeping the literal action", function () {
      for (const kind of ["swap", "convert"] as const) {
        const parsed = stepResultSchema.parse(
          swapStepResult({
            action: kind,
            fallback_from: "ethereum",
            fallback_reason: "ethereum: base fee above the cap",
          }),
        );
        expect(parsed.action).to.equal(kind);
        expect(parsed.fallback_reason).to.equal("ethereum: base fee above the cap");
      }
    });

    it("should refuse a row missing a field its kind needs", function () {
      const { dest_tx: _, ...row } = LEGACY_BRIDGE_ROW;
      expect(() => stepResultSchema.parse(row)).to.throw(/dest_tx/);
    });

    it("should refuse a row of an unknown action type", function () {
      expect(() => stepResultSchema.parse({ ...LEGACY_BRIDGE_ROW, action: "lend" })).to.throw();
    });

    it("should refuse a row whose field has the wrong type (an amount as a number)", function () {
      expect(() => stepResultSchema.parse({ ...LEGACY_BRIDGE_ROW, amount_out: 99.9 })).to.throw(
        /amount_out/,
      );
    });

    it("should refuse a row without the orchestrator's output", function () {
      const { output: _, ...row } = LEGACY_BRIDGE_ROW;
      expect(() => stepResultSchema.parse(row)).to.throw(/output/);
    });
  });

  describe("# tasks from normalised actions", function () {
    it("should build a swap task from the chained input, with the action's pins", function () {
      const task = taskFor(
        action({
          type: "convert",
          to: "WETH",
          slippageBps: 100,
          dex: "sushiswap",
          priority: "output",
        }),
        { asset: "USDC", amount: "12.5" },
        polygon,
      );
      expect(task).to.deep.equal({
        action: "convert",
        params: {
          from: "USDC",
          to: "WETH",
          amount: "12.5",
          slippage_bps: 100,
          dex: "sushiswap",
          priority: "output",
        },
      });
    });

    it("should refuse a swap task without a target asset", function () {
      expect(() =>
        taskFor(action({ type: "swap" }), { asset: "USDC", amount: "1" }, polygon),
      ).to.throw(/no target asset/);
    });

    it("should build a bridge task with the default protocol, and refuse one without destination", function () {
      expect(
        taskFor(
          action({ type: "bridge", destination: "polygon" }),
          { asset: "DAI", amount: "5" },
          polygon,
        ),
      ).to.deep.equal({
        action: "bridge",
        params: { asset: "DAI", amount: "5", destination: "polygon", protocol: "lockmint" },
      });
      expect(() =>
        taskFor(action({ type: "bridge" }), { asset: "DAI", amount: "5" }, polygon),
      ).to.throw(/no destination/);
    });

    it("should resolve multisend percentages as shares of the input, rounded down in base units", function () {
      const alice = Wallet.createRandom().address;
      const bob = Wallet.createRandom().address;
      const task = taskFor(
        action({
          type: "multisend",
          recipients: [
            { address: alice, amount: { kind: "percent", bps: 3333 } },
            { address: bob, amount: { kind: "absolute", amount: "1.5" } },
          ],
        }),
        // USDC has 6 decimals: 33.33% of 0.000010 is 0.000003333 → 0.000003.
        { asset: "USDC", amount: "0.00001" },
        polygon,
      );
      expect(task).to.deep.equal({
        action: "multisend",
        params: {
          asset: "USDC",
          recipients: [
            { address: alice, amount: "0.000003" },
            { address: bob, amount: "1.5" },
          ],
        },
      });
    });
  });

  describe("# outputs (chaining) read from typed results", function () {
    it("should hand on a bridge's delivered amount on its destination chain", function () {
      const parsed = stepResultSchema.parse(LEGACY_BRIDGE_ROW);
      expect(outputOf(parsed, { amount: "100" }, polygon)).to.deep.equal({
        asset: "DAI",
        amount: "99.9",
        chain: "polygon",
      });
    });

    it("should hand on what a multisend did not send, never a negative amount", function () {
      const result = stepResultSchema.parse(multisendStepResult({ total: "60" }));
      expect(outputOf(result, { amount: "100" }, polygon)).to.deep.equal({
        asset: "DAI",
        amount: "40.0",
        chain: "polygon",
      });
      expect(outputOf(result, { amount: "50" }, polygon).amount).to.equal("0.0");
    });
  });
});
