import { expect } from "chai";
import { CarReader } from "@ipld/car";
import * as json from "multiformats/codecs/json";
import { sha256 } from "multiformats/hashes/sha2";
import { Wallet } from "ethers";
import { auditReport } from "../../relayer/audit/index.ts";
import { readAuditKeys } from "../../relayer/audit/node.ts";
import { startEngineService, type EngineService } from "../fixtures/engine.ts";

/**
 * The final report through the relayer's own HTTP API: stored under its CID in the artifact
 * store (served by GET /artifacts/{cid} and its CAR export), and the `report` envelope of
 * GET /v1/workflows/{id} audits green from the chains alone.
 */
describe("# final report in the artifact store (relayer over HTTP, embedded devnet)", function () {
  this.timeout(300_000);
  let service: EngineService;

  before(async function () {
    service = await startEngineService();
  });
  after(async function () {
    await service?.close();
  });

  it("should serve the report body under its CID and in its CAR export, and audit its status envelope green", async function () {
    const key = await service.newKey();
    const body = JSON.stringify({
      name: "report-in-the-store",
      actions: [
        {
          type: "multisend",
          chain: "arbitrum",
          from: "USDC",
          amount: "30",
          recipients: [
            { address: Wallet.createRandom().address, amount: "20" },
            { address: Wallet.createRandom().address, amount: "10" },
          ],
        },
      ],
    });
    const submitted = await service.request(key, "POST", "/v1/workflows", body);
    expect(submitted.status).to.equal(202);
    const { execution_id: id } = (await submitted.json()) as { execution_id: string };
    type View = {
      state: string;
      report: { cid: string; signer: string; signature: string; report: Record<string, unknown> };
    };
    let view: View;
    for (;;) {
      view = (await (await service.request(key, "GET", `/v1/workflows/${id}`)).json()) as View;
      if (["completed", "failed", "cancelled"].includes(view.state)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(view.state).to.equal("completed");
    const { cid } = view.report;
    const { artifact_id, signer, signature, ...reportBody } = view.report.report;
    expect(artifact_id).to.equal(cid);
    expect([signer, signature]).to.deep.equal([view.report.signer, view.report.signature]);

    const stored = await service.request(key, "GET", `/artifacts/${cid}`);
    expect(stored.status).to.equal(200);
    expect(await stored.json()).to.deep.equal(reportBody);

    // The report is an artifact of the workflow's key: another key cannot read or export it.
    const stranger = await service.newKey();
    expect((await service.request(stranger, "GET", `/artifacts/${cid}`)).status).to.equal(404);
    expect((await service.request(stranger, "GET", `/artifacts/${cid}/car`)).status).to.equal(404);

    const car = await service.request(key, "GET", `/artifacts/${cid}/car`);
    expect(car.status).to.equal(200);
    const reader = await CarReader.fromBytes(new Uint8Array(await car.arrayBuffer()));
    expect((await reader.getRoots()).map(String)).to.deep.equal([cid]);
    const block = (await reader.get((await reader.getRoots())[0]!))!;
    const digest = await sha256.digest(block.bytes);
    expect(block.cid.multihash.bytes).to.deep.equal(digest.bytes);
    expect(json.decode(block.bytes)).to.deep.equal(reportBody);

    const verdict = await auditReport(view.report, {
      chains: service.chains.list(),
      ...(await readAuditKeys()),
    });
    expect(
      verdict.checks.filter((c) => !c.ok),
      JSON.stringify(verdict.checks, null, 1),
    ).to.deep.equal([]);
  });
});
