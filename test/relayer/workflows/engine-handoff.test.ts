import { expect } from "chai";
import type { ChainSet } from "../../../relayer/chains/index.ts";
import { RECIPIENT_A } from "../../fixtures/catalogue.ts";
import {
  newClient,
  openDevnetChains,
  startWorkflowService,
  type WorkflowService,
} from "../../fixtures/workflow-service.ts";

/**
 * The hand-off to the execution engine: a workflow submitted through the API is picked up by
 * the engine's `workflow.execute` worker from the row and job intake stored, runs on the devnet,
 * and its status shows the engine's steps, the broadcast transactions and the final report.
 */
describe("# workflow hand-off to the engine (real app, engine worker on, embedded devnet)", function () {
  this.timeout(180_000);
  let chains: ChainSet;
  let svc: WorkflowService;

  before(async () => {
    chains = await openDevnetChains();
    svc = await startWorkflowService(chains, undefined, { engine: true });
  });
  after(async () => {
    await svc?.close();
    await chains?.close();
  });

  it("should run a submitted workflow to completion and show its steps, mined transactions and report", async () => {
    const client = await newClient(svc);
    const body = JSON.stringify({
      name: "handoff",
      actions: [
        { type: "swap", from: "USDC", to: "DAI", amount: "100", slippage: 1, chain: "arbitrum" },
        { type: "multisend", recipients: [{ address: RECIPIENT_A, amount: "50%" }] },
      ],
    });
    const submitted = (await (await client.request("POST", "/v1/workflows", body)).json()) as {
      execution_id: string;
    };
    type View = {
      state: string;
      steps: { agent: string; state: string; chain: string; tx_hashes: string[] }[];
      report: { cid: string; report: Record<string, unknown> } | null;
    };
    let view: View;
    do {
      view = (await (
        await client.request("GET", `/v1/workflows/${submitted.execution_id}`)
      ).json()) as View;
      if (!["completed", "failed", "cancelled"].includes(view.state)) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } while (!["completed", "failed", "cancelled"].includes(view.state));

    expect(view.state).to.equal("completed");
    expect(view.steps.map((s) => [s.agent, s.state, s.chain])).to.deep.equal([
      ["SwapAgent", "completed", "arbitrum"],
      ["MultisendAgent", "completed", "arbitrum"],
    ]);
    const arbitrum = chains.byName("arbitrum");
    for (const step of view.steps) {
      expect(step.tx_hashes.length).to.be.greaterThan(0);
      for (const hash of step.tx_hashes) {
        const receipt = await arbitrum.provider.getTransactionReceipt(hash);
        expect(receipt?.status, hash).to.equal(1);
      }
    }
    expect(view.report?.cid).to.be.a("string").and.not.equal("");
    expect(view.report?.report).to.include.keys("tx_hashes", "gas_metrics", "zk_proof");
  });
});
