import { expect } from "chai";
import type { ChainSet } from "../../../relayer/chains/index.ts";
import { JOB_NAMES } from "../../../relayer/queue/index.ts";
import { RECIPIENT_A } from "../../fixtures/catalogue.ts";
import {
  createTestDatabase,
  newClient,
  openDevnetChains,
  startWorkflowService,
  type Client,
  type TestDatabase,
  type WorkflowService,
} from "../../fixtures/workflow-service.ts";

type View = {
  state: string;
  steps: { agent: string; state: string; chain: string; tx_hashes: string[] }[];
  report: { cid: string; report: Record<string, unknown> } | null;
};

const FINAL_STATES = ["completed", "failed", "cancelled"];

/** Submits `workflow` and reads its status until the engine has finished it. */
async function runToTheEnd(client: Client, workflow: unknown): Promise<View> {
  const response = await client.request("POST", "/v1/workflows", JSON.stringify(workflow));
  expect(response.status).to.equal(202);
  const { execution_id: id } = (await response.json()) as { execution_id: string };
  for (;;) {
    const view = (await (await client.request("GET", `/v1/workflows/${id}`)).json()) as View;
    if (FINAL_STATES.includes(view.state)) return view;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

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
    const view = await runToTheEnd(client, {
      name: "handoff",
      actions: [
        { type: "swap", from: "USDC", to: "DAI", amount: "100", slippage: 1, chain: "arbitrum" },
        { type: "multisend", recipients: [{ address: RECIPIENT_A, amount: "50%" }] },
      ],
    });

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

/**
 * A submission wakes the engine worker of the process that stored it once: the database's
 * notification at its commit (migration 203_engine_job_wakeup.sql), on PGlite (this process is its
 * only listener) as on PostgreSQL.
 */
for (const backend of ["pglite", "postgres"] as const) {
  describe(`# engine wake-ups per submission (${backend}, real app, engine worker on)`, function () {
    this.timeout(180_000);
    let chains: ChainSet;
    let database: TestDatabase | undefined;
    let svc: WorkflowService;

    before(async () => {
      chains = await openDevnetChains();
      if (backend === "postgres") database = await createTestDatabase("engine_wakeups");
      svc = await startWorkflowService(chains, database?.url, { engine: true });
    });
    after(async () => {
      await svc?.close();
      await database?.drop();
      await chains?.close();
    });

    it("should wake the engine worker once for one submission", async () => {
      const client = await newClient(svc);
      const { queue } = svc.ctx;
      const wake = queue.wake;
      let wakeUps = 0;
      queue.wake = (name) => {
        if (name === JOB_NAMES.workflowExecute) wakeUps++;
        wake(name);
      };
      try {
        const view = await runToTheEnd(client, {
          name: "one wake-up",
          actions: [
            {
              type: "multisend",
              chain: "arbitrum",
              from: "USDC",
              amount: "10",
              recipients: [{ address: RECIPIENT_A, amount: "10" }],
            },
          ],
        });
        expect(view.state).to.equal("completed");
      } finally {
        queue.wake = wake;
      }
      expect(wakeUps).to.equal(1);
    });
  });
}
