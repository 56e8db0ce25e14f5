import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { serve, type ServerType } from "@hono/node-server";
import { expect } from "chai";
import { Hono } from "hono";
import type { Browser, Page } from "playwright-core";
import { auditReport } from "../../relayer/audit/index.ts";
import { auditPageRoutes } from "../../relayer/audit/routes.ts";
import { PROJECT_ROOT } from "../../relayer/devnet/artifacts.ts";
import type { SignedReport } from "../../relayer/report/report.ts";
import { buildAuditPage } from "../../scripts/build-audit-page.ts";
import { openAuditWorld, type AuditWorld } from "../fixtures/audit-world.ts";
import { launchChromium } from "../fixtures/browser.ts";
import { serveChainsFile } from "../fixtures/rpc-bridge.ts";

const SCREENSHOTS = path.join(PROJECT_ROOT, "tmp/screenshots");

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

type PageVerdict = {
  state: string;
  text: string;
  rows: { id: string; ok: boolean; reason: string }[];
  page: Page;
};

/**
 * The browser auditor end to end in headless Chromium: the page `npm run build:audit-page`
 * writes (opened from disk) and the one the relayer serves at GET /audit, reading the embedded
 * devnet over HTTP JSON-RPC (CORS), run the same checks as the audit command: green on a genuine
 * report, red naming the failing check on forged ones. Screenshots: tmp/screenshots/audit-page-*.png.
 */
describe("# the browser auditor page (headless Chromium, devnet over JSON-RPC)", function () {
  this.timeout(900_000);
  let world: AuditWorld;
  let genuine: SignedReport;
  let dir: string;
  let served: Awaited<ReturnType<typeof serveChainsFile>>;
  let pageFile: string;
  let browser: Browser;
  let relayerPage: ServerType | undefined;

  const file = (name: string) => path.join(dir, name);

  before(async function () {
    world = await openAuditWorld();
    genuine = await world.execute("key_page_a");
    dir = await mkdtemp(path.join(tmpdir(), "vf-audit-page-"));
    served = await serveChainsFile(world.engine.chains.list(), dir);
    ({ page: pageFile } = await buildAuditPage({
      chainsFile: served.file,
      out: file("veriflow-audit.html"),
    }));
    const envelope = {
      cid: genuine.artifact_id,
      signer: genuine.signer,
      signature: genuine.signature,
      report: genuine,
    };
    await writeFile(file("envelope.json"), JSON.stringify(envelope));
    const forged = structuredClone(genuine) as Json;
    const [whole, fraction] = String(forged.actions[1].result.amount_out).split(".");
    forged.actions[1].result.amount_out = `${BigInt(whole!) + 1n}.${fraction ?? "0"}`;
    await writeFile(file("forged.json"), JSON.stringify(await world.resign(forged)));
    await writeFile(file("reissued.json"), JSON.stringify(await world.reissue(genuine)));
    await writeFile(
      file("accepted.json"),
      JSON.stringify({ status: "queued", receipt: (genuine as Json).receipt }),
    );
    await writeFile(file("not-a-report.json"), JSON.stringify({ hello: "world" }));
    browser = await launchChromium();
  });

  after(async function () {
    await browser?.close();
    await new Promise((resolve) => (relayerPage ? relayerPage.close(resolve) : resolve(null)));
    await served?.close();
    await world?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Opens the page, picks the files, enters RPC URLs (chain id to URL), clicks Audit. */
  async function auditInBrowser(
    url: string,
    files: { report: string; receipt?: string },
    rpcUrls: Record<string, string> = {},
  ): Promise<PageVerdict> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    await page.goto(url);
    await page.setInputFiles("#report-file", file(files.report));
    if (files.receipt) await page.setInputFiles("#receipt-file", file(files.receipt));
    for (const [chainId, rpc] of Object.entries(rpcUrls)) await page.fill(`#rpc-${chainId}`, rpc);
    await page.click("#audit-button");
    await page.waitForSelector(
      "#verdict[data-verdict=pass], #verdict[data-verdict=fail], #verdict[data-verdict=error]",
      {
        timeout: 300_000,
      },
    );
    expect(errors, "uncaught errors in the page").to.deep.equal([]);
    return {
      page,
      state: (await page.getAttribute("#verdict", "data-verdict"))!,
      text: (await page.textContent("#verdict"))!,
      rows: await page.$$eval("#checks tr", (rows) =>
        rows.map((r) => ({
          id: r.getAttribute("data-check")!,
          ok: r.getAttribute("data-ok") === "true",
          reason: r.querySelector(".reason")!.textContent!,
        })),
      ),
    };
  }

  async function screenshot(page: Page, name: string) {
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, name), fullPage: true });
  }

  it("should pass a genuine report in the built page with exactly the audit command's checks", async function () {
    const url = pathToFileURL(pageFile).href;
    const page = await browser.newPage();
    await page.goto(url);
    // The chains file's RPC URLs are proposed.
    for (const [chainId, rpc] of Object.entries(served.urls))
      expect(await page.inputValue(`#rpc-${chainId}`)).to.equal(rpc);
    await page.close();

    const result = await auditInBrowser(url, { report: "envelope.json" });
    expect(result.state, result.text).to.equal("pass");
    expect(result.text).to.match(new RegExp(`^PASS: ${genuine.execution_id} `));
    const inNode = await auditReport(genuine, world.env);
    expect(result.rows.map((r) => r.id)).to.deep.equal(inNode.checks.map((c) => c.id));
    expect(result.rows.filter((r) => !r.ok)).to.deep.equal([]);
    expect(result.rows.find((r) => r.id === "proof")!.reason).to.match(/Groth16 proof verified/);
    await screenshot(result.page, "audit-page-pass.png");
    await result.page.close();
  });

  it("should show red naming the failing checks on a forged report re-signed by the relayer", async function () {
    const result = await auditInBrowser(pathToFileURL(pageFile).href, { report: "forged.json" });
    expect(result.state).to.equal("fail");
    const failed = result.rows.filter((r) => !r.ok).map((r) => r.id);
    expect(failed).to.include.members(["commitments", "action[1]"]);
    expect(failed).to.not.include.members(["cid", "signature"]);
    expect(result.text).to.match(/^FAIL: \d+ of \d+ checks failed \(.*action\[1\].*\)/);
    expect(result.rows.find((r) => r.id === "action[1]")!.reason).to.match(/the report says/);
    await screenshot(result.page, "audit-page-fail.png");
    await result.page.close();
  });

  it("should catch a receipt the relayer re-issued when the client's 202 is picked", async function () {
    const url = pathToFileURL(pageFile).href;
    const alone = await auditInBrowser(url, { report: "reissued.json" });
    expect(alone.state).to.equal("pass");
    await alone.page.close();
    const result = await auditInBrowser(url, { report: "reissued.json", receipt: "accepted.json" });
    expect(result.state).to.equal("fail");
    expect(result.rows.filter((r) => !r.ok).map((r) => r.id)).to.deep.equal(["client-receipt"]);
    await result.page.close();
  });

  it("should say why a file is not auditable, and fail the chain checks when an RPC URL answers nothing", async function () {
    const url = pathToFileURL(pageFile).href;
    const wrong = await auditInBrowser(url, { report: "not-a-report.json" });
    expect(wrong.state).to.equal("error");
    expect(wrong.text).to.match(/^Not auditable: not a signed Veriflow execution report/);
    expect(wrong.rows).to.deep.equal([]);
    await wrong.page.close();
    const home = String(genuine.attestation!.chain_id);
    const unreachable = await auditInBrowser(
      url,
      { report: "envelope.json" },
      { [home]: "http://127.0.0.1:9" },
    );
    expect(unreachable.state).to.equal("fail");
    const failed = unreachable.rows.filter((r) => !r.ok).map((r) => r.id);
    expect(failed).to.include.members(["signature", "attestation", "verifier"]);
    await unreachable.page.close();
  });

  it("should be served by the relayer at GET /audit with its chains' deployments", async function () {
    const app = new Hono().route("/", auditPageRoutes({ chains: world.engine.chains }));
    relayerPage = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise((resolve) => relayerPage!.once("listening", resolve));
    const { port } = relayerPage.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/audit`;
    const page = await browser.newPage();
    await page.goto(url);
    // Devnet chains: the devnet's RPC URLs are proposed, never the relayer's own.
    expect(await page.inputValue("#rpc-31337")).to.equal("http://127.0.0.1:8545");
    await page.close();
    const result = await auditInBrowser(url, { report: "envelope.json" }, served.urls);
    expect(result.state, result.text).to.equal("pass");
    expect(result.rows.every((r) => r.ok)).to.equal(true);
    await result.page.close();
  });
});
