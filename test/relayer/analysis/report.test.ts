import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { Wallet } from "ethers";
import { putCredential } from "../../../relayer/integrations/vault.ts";
import { ANALYSIS_PROVIDER_KEY, textAnalysisEntry } from "../../fixtures/analysis.ts";
import {
  startAnalysisProvider,
  type AnalysisProviderStandIn,
} from "../../fixtures/standins/analysis-provider.ts";
import { startEngineService, type EngineService } from "../../fixtures/engine.ts";

/**
 * A workflow referenced by an analysis (`workflow_id`): its final report, signed by the engine
 * worker, lists the analysis with its audit record's id.
 */
describe("# final report lists the text analyses of a workflow", function () {
  this.timeout(300_000);
  let dir: string;
  let service: EngineService;
  let provider: AnalysisProviderStandIn;

  before(async function () {
    dir = await mkdtemp(path.join(os.tmpdir(), "vf-analysis-report-"));
    provider = await startAnalysisProvider({ apiKey: ANALYSIS_PROVIDER_KEY });
    const file = path.join(dir, "integrations.json");
    await writeFile(file, JSON.stringify({ text_analysis: textAnalysisEntry(provider.url) }));
    service = await startEngineService({ env: { VERIFLOW_INTEGRATIONS: file } });
    await putCredential(
      service.ctx.store,
      service.ctx.masterKey,
      "analysis-key",
      ANALYSIS_PROVIDER_KEY,
    );
  });
  after(async function () {
    await service?.close();
    await provider?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("should list the analysis and its audit id in the signed report", async function () {
    const key = await service.newKey();
    // The link must land before the execution finishes: the first analysis of a process starts
    // its redaction threads, so one runs before the workflow is submitted.
    const warm = await service.request(
      key,
      "POST",
      "/v1/analysis",
      JSON.stringify({ text: "Hi." }),
    );
    expect(warm.status).to.equal(200);
    const submitted = await service.request(
      key,
      "POST",
      "/v1/workflows",
      JSON.stringify({
        name: "analysed-payment",
        actions: [
          {
            type: "multisend",
            chain: "arbitrum",
            from: "USDC",
            amount: "10",
            recipients: [{ address: Wallet.createRandom().address, amount: "10" }],
          },
        ],
      }),
    );
    expect(submitted.status).to.equal(202);
    const { execution_id: id } = (await submitted.json()) as { execution_id: string };
    const analysed = await service.request(
      key,
      "POST",
      "/v1/analysis",
      JSON.stringify({ text: "Payment instruction for the quarterly payout.", workflow_id: id }),
    );
    const analysis = (await analysed.json()) as {
      analysis_id: string;
      audit_id: string;
      workflow_id: string;
    };
    expect(analysed.status, JSON.stringify(analysis)).to.equal(200);
    expect(analysis.workflow_id).to.equal(id);

    type View = { state: string; report: { report: Record<string, unknown> } | null };
    let view: View;
    for (;;) {
      view = (await (await service.request(key, "GET", `/v1/workflows/${id}`)).json()) as View;
      if (["completed", "failed", "cancelled"].includes(view.state)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(view.state).to.equal("completed");
    const listed = view.report!.report.analyses as Array<Record<string, unknown>>;
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({
      analysis_id: analysis.analysis_id,
      audit_id: analysis.audit_id,
    });

    // Another key cannot attach an analysis to this workflow.
    const other = await service.newKey();
    const refused = await service.request(
      other,
      "POST",
      "/v1/analysis",
      JSON.stringify({ text: "Not yours.", workflow_id: id }),
    );
    expect(refused.status).to.equal(404);
  });
});
