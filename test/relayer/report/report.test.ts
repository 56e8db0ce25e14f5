import { expect } from "chai";
import {
  BlockchainArtifact,
  DeFiTransactionArtifact,
  reportCid,
} from "../../../relayer/report/report.ts";

describe("# report artifacts (spec Blockchain / DeFi transaction artifact)", function () {
  const body = {
    kind: "veriflow.execution-report" as const,
    version: 1 as const,
    execution_id: "wf_test",
    tx_hashes: ["0x" + "ab".repeat(32)],
    zk_proof: '{"protocol":"groth16"}',
    gas_metrics: { "31338": { used: 120000, saved: 0.0001 } },
    operations: [
      { protocol: "aave", action: "borrow", chain: "ethereum", liquidation_price: 2500 },
      { protocol: "uniswap", action: "swap", chain: "ethereum", liquidation_price: null },
    ],
    risk_scores: { threshold: 0.7, max: 0.2, by_agent: { SwapAgent: [0.2] } },
    liquidation_protection: true,
  };

  it("should give to_audit_json with the proof and the CID", async function () {
    const cid = await reportCid(body);
    const artifact = new BlockchainArtifact({
      ...body,
      artifact_id: cid,
    });
    expect(JSON.parse(artifact.to_audit_json())).to.deep.equal({ proof: body.zk_proof, cid });
  });

  it("should compute the same CID for the same content in any key order", async function () {
    const reordered = Object.fromEntries(Object.entries(body).reverse()) as typeof body;
    expect(await reportCid(reordered)).to.equal(await reportCid(body));
    expect(await reportCid({ ...body, execution_id: "wf_other" })).to.not.equal(
      await reportCid(body),
    );
  });

  it("should simulate liquidation: true when any liquidation_price is greater than price_drop", function () {
    const artifact = new DeFiTransactionArtifact({
      ...body,
      artifact_id: "x",
    });
    expect(artifact.simulate_liquidation(2000)).to.equal(true);
    expect(artifact.simulate_liquidation(2500)).to.equal(false);
    expect(artifact.simulate_liquidation(3000)).to.equal(false);
    expect(artifact.liquidation_protection).to.equal(true);
  });
});
