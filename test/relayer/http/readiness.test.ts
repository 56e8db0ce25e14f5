import { expect } from "chai";
import type { ChainSet } from "../../../relayer/chains/index.ts";
import {
  openDevnetChains,
  startWorkflowService,
  type WorkflowService,
} from "../../fixtures/workflow-service.ts";

describe("# /readyz says why in fixed words, never the raw error", function () {
  this.timeout(120_000);
  let chains: ChainSet;
  let svc: WorkflowService;

  before(async () => {
    chains = await openDevnetChains();
    svc = await startWorkflowService(chains);
  });
  after(async () => {
    await svc?.close();
    await chains?.close();
  });

  it("should answer 503 with a generic reason for a chain whose RPC is down, and 200 once it is back", async () => {
    const chain = chains.list()[0]!;
    const faults = chain.faults!;
    await faults.stopRpc();
    try {
      const res = await svc.app.request("/readyz");
      expect(res.status).to.equal(503);
      const text = await res.text();
      const body = JSON.parse(text) as {
        checks: { chains: Record<string, { ok: boolean; detail?: string }> };
      };
      expect(body.checks.chains[chain.name]).to.deep.equal({
        ok: false,
        detail: "the chain's RPC did not answer",
      });
      // Nothing of the transport's own error text (which can carry an RPC URL and its key).
      expect(text).to.not.match(/ECONNREFUSED|http:\/\/|https:\/\/|refused/i);
    } finally {
      await faults.startRpc();
    }
    const back = await svc.app.request("/readyz");
    expect(back.status).to.equal(200);
  });
});
