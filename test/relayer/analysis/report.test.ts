import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { expect } from "chai";
import { Wallet } from "ethers";
import { putCredential } from "../../../relayer/integrations/vault.ts";
import { ANALYSIS_PROVIDER_KEY, textAnalysisEntry } from "../../fixtures/analysis.ts";
import { plainEnv, runAudit } from "../../fixtures/cli.ts";
import { freePort } from "../../fixtures/net.ts";
import { serveChainsFile } from "../../fixtures/rpc-bridge.ts";
import {
  startAnalysisProvider,
  type AnalysisProviderStandIn,
} from "../../fixtures/standins/analysis-provider.ts";
import { startEngineService, type EngineService } from "../../fixtures/engine.ts";

/**
 * A workflow referenced by an analysis (`workflow_id`): its final report, signed by the engine
 * worker, lists the analysis with its audit record's id, which `npm run audit` checks with the
 * owner's credentials against the chain's links and the anchors on chain.
 */
describe("# final report lists the text analyses of a workflow", function () {
  this.timeout(300_000);
  let dir: string;
  let service: EngineService;
  let provider: AnalysisProviderStandIn;
  let key: { key: string; id: string; secret: string };
  let envelope: Record<string, unknown>;

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
    key = await service.newKey();
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

    type View = {
      state: string;
      report: { report: Record<string, unknown> } & Record<string, unknown>;
    };
    let view: View;
    for (;;) {
      view = (await (await service.request(key, "GET", `/v1/workflows/${id}`)).json()) as View;
      if (["completed", "failed", "cancelled"].includes(view.state)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(view.state).to.equal("completed");
    envelope = view.report;
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

  it("should have npm run audit check the listed analysis with the owner's credentials, and say when it could not", async function () {
    const dir2 = await mkdtemp(path.join(os.tmpdir(), "vf-analysis-report-audit-"));
    const chains = await serveChainsFile(service.chains.list(), dir2);
    const http: ServerType = serve({ fetch: service.app.fetch, port: 0, hostname: "127.0.0.1" });
    try {
      await new Promise((resolve) => http.once("listening", resolve));
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const file = path.join(dir2, "envelope.json");
      await writeFile(file, JSON.stringify(envelope));
      // No saved profile either: only what each run is given.
      const bare = { VERIFLOW_CONFIG: path.join(dir2, "no-profiles.json") };
      const owner = plainEnv({
        ...bare,
        VERIFLOW_URL: url,
        VERIFLOW_API_KEY: key.key,
        VERIFLOW_SIGNING_SECRET: key.secret,
      });
      const audit = (env: Record<string, string>) => runAudit([file, "--chains", chains.file], env);

      // Before the chain's head is anchored: nothing failed, but the analysis is not provable yet.
      const early = await audit(owner);
      expect(early.code, early.stderr + early.stdout).to.equal(3);
      expect(early.stdout).to.match(/^PASS {10}analyses +links: \d+ links chain/m);
      expect(early.stdout).to.match(
        /^NOT ANCHORED {2}analysis\[0\] +an_\w+ at \d+: digest recomputed; no anchored head covers/m,
      );
      expect(early.stdout.trim().split("\n").at(-1)).to.match(
        /^verdict: INCOMPLETE: nothing failed, but analysis\[0\] is NOT ANCHORED/,
      );

      expect(await service.ctx.analysis!.anchor()).to.not.equal(null);
      const anchored = await audit(owner);
      expect(anchored.code, anchored.stderr + anchored.stdout).to.equal(0);
      expect(anchored.stdout).to.match(
        /^PASS {2}analysis\[0\] +an_\w+ at \d+: digest recomputed; covered by the head anchored at \d+/m,
      );
      expect(anchored.stdout.trim().split("\n").at(-1)).to.match(/^verdict: PASS: wf_/);

      // Without credentials: said plainly, neither a pass nor a failure.
      const anonymous = await audit(plainEnv(bare));
      expect(anonymous.code, anonymous.stderr).to.equal(3);
      expect(anonymous.stdout).to.match(
        /^NOT PERFORMED {2}analyses +not performed: the report lists 1 analyses, whose audit records only the owner's key can list/m,
      );
      expect(anonymous.stdout).to.not.match(/analysis\[0\]/);
      const json = await runAudit([file, "--chains", chains.file, "--json"], plainEnv(bare));
      const verdict = JSON.parse(json.stdout) as {
        ok: boolean;
        outcome: string;
        checks: Array<{ id: string; status: string }>;
      };
      expect(verdict).to.include({ ok: false, outcome: "incomplete" });
      expect(verdict.checks.find((c) => c.id === "analyses")!.status).to.equal("not-performed");

      // Credentials given but incomplete, or a relayer that does not answer: usage or I/O (2).
      const partial = await runAudit(
        [file, "--chains", chains.file, "--url", url, "--key", key.key],
        plainEnv(bare),
      );
      expect(partial.code, partial.stdout).to.equal(2);
      expect(partial.stderr).to.match(/to check the report's analyses: missing the signing secret/);
      const gone = await audit(
        plainEnv({
          ...bare,
          VERIFLOW_URL: `http://127.0.0.1:${await freePort()}`,
          VERIFLOW_API_KEY: key.key,
          VERIFLOW_SIGNING_SECRET: key.secret,
        }),
      );
      expect(gone.code, gone.stdout).to.equal(2);
      expect(gone.stderr).to.match(
        /cannot read the analyses' audit trail from http:\/\/127\.0\.0\.1:\d+/,
      );

      // Another key's credentials: its records do not hold the report's analysis.
      const stranger = await service.newKey();
      const theirs = await audit(
        plainEnv({
          ...bare,
          VERIFLOW_URL: url,
          VERIFLOW_API_KEY: stranger.key,
          VERIFLOW_SIGNING_SECRET: stranger.secret,
        }),
      );
      expect(theirs.code, theirs.stderr).to.equal(1);
      expect(theirs.stdout).to.match(
        /^FAIL {2}analysis\[0\] +aud_\d+ is not among the key's records/m,
      );
    } finally {
      await new Promise((resolve) => http.close(resolve));
      await chains.close();
      await rm(dir2, { recursive: true, force: true });
    }
  });
});
