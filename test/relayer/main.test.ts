import { expect } from "chai";
import { signedHeaders } from "../../relayer/auth/hmac.ts";
import { VeriflowClient } from "../../clients/sdk/index.ts";
import { startNpmStart, type StartedRelayer } from "../fixtures/npm-start.ts";
import { SPEC_JSON_WORKFLOW, SPEC_YAML_WORKFLOW } from "../fixtures/catalogue.ts";

/**
 * A new user's first run: `npm start` with nothing configured, then the spec's two examples
 * (both declare `jurisdictions: ["US"]`, which requires the OFAC SDN list) signed as the README
 * shows, followed to their final reports.
 */
describe("# npm start (first run)", function () {
  this.timeout(900_000);
  let relayer: StartedRelayer;

  before(async function () {
    relayer = await startNpmStart();
  });

  after(async function () {
    await relayer?.close();
  });

  it("should print the shipped sanctions snapshot's date and the development key once, with a CLI command, outside the JSON log", function () {
    expect(relayer.banner).to.match(/sanctions list ofac-sdn: the shipped snapshot of 2026-11-21/);
    expect(relayer.apiKey).to.match(/^vfk_/);
    expect(relayer.secret).to.be.a("string").with.length.greaterThan(16);
    expect(relayer.banner).to.contain(
      `npx veriflow login --url ${relayer.url} --key ${relayer.apiKey}`,
    );
    // The CLI command never carries the secret (it is asked for at a prompt).
    const command = relayer.banner.split("\n").find((l) => l.includes("veriflow login"))!;
    expect(command).to.not.contain(relayer.secret!);
  });

  it("should accept the spec's JSON and YAML examples as they are and run both to a signed report", async function () {
    const body = JSON.stringify(SPEC_JSON_WORKFLOW);
    const json = await fetch(`${relayer.url}/v1/workflows`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...signedHeaders(relayer.apiKey!, relayer.secret!, body),
      },
      body,
    });
    expect(json.status, await json.clone().text()).to.equal(202);
    const queued = (await json.json()) as { status: string; execution_id: string };
    expect(queued.status).to.equal("queued");

    // One after the other: run at once, both swap 1,000 USDC in the same pool with 0.5% slippage,
    // and the second can find the price moved by the first (the risk engine then stops it).
    const client = new VeriflowClient({
      baseUrl: relayer.url,
      apiKey: relayer.apiKey!,
      signingSecret: relayer.secret!,
    });
    const first = await client.waitForReport(queued.execution_id, { intervalMs: 500 });
    const yaml = await client.submit({ yaml: SPEC_YAML_WORKFLOW });
    expect(yaml.execution_id).to.match(/^wf_/);
    const second = await client.waitForReport(yaml.execution_id, { intervalMs: 500 });

    for (const done of [first, second]) {
      expect(done.state, JSON.stringify(done.error)).to.equal("completed");
      expect(done.report?.cid).to.match(/^b[a-z2-7]+$/);
      expect(done.steps.map((s) => s.state)).to.deep.equal(Array(4).fill("completed"));
      // Screening ran against the shipped list: the report names it.
      expect(JSON.stringify(done.report?.report)).to.contain("ofac-sdn");
    }
  });
});
