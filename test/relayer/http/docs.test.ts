import { expect } from "chai";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Browser } from "playwright-core";
import { launchChromium } from "../../fixtures/browser.ts";
import { REPO } from "../../fixtures/cli.ts";
import { startNpmStart, type StartedRelayer } from "../../fixtures/npm-start.ts";

const SCREENSHOT = path.join(REPO, "tmp/screenshots/docs-signing.png");

/**
 * The interactive docs in a real browser (Debian's chromium, headless): the key and secret
 * entered once, then a workflow submitted with "Try it out", signed in the page with WebCrypto.
 */
describe("# /docs signs requests in the browser", function () {
  this.timeout(600_000);
  let relayer: StartedRelayer;
  let browser: Browser;

  before(async function () {
    relayer = await startNpmStart();
    browser = await launchChromium();
  });

  after(async function () {
    await browser?.close();
    await relayer?.close();
  });

  async function submitFromPage(credentials: { key: string; secret: string } | null) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    await page.goto(`${relayer.url}/docs`);
    if (credentials) {
      await page.fill("#api-key", credentials.key);
      await page.fill("#signing-secret", credentials.secret);
      await page.click("#signing button[type=submit]");
      await page.waitForSelector(
        `#signing-state:has-text("signing requests as ${credentials.key}")`,
      );
    }
    const operation = page.locator(".opblock-post", {
      has: page.locator('.opblock-summary-path[data-path="/v1/workflows"]'),
    });
    await operation.locator(".opblock-summary").click();
    await operation.locator(".try-out__btn").click();
    const example = await readFile(path.join(REPO, "examples/treasury-rebalance.json"), "utf8");
    await operation.locator("textarea.body-param__text").fill(example);
    await operation.locator(".execute").click();
    const table = operation.locator(".live-responses-table").first();
    await table.locator(".response-col_status").first().waitFor({ timeout: 120_000 });
    const text = (await table.textContent()) ?? "";
    const status = /Details\s*(\d{3})/.exec(text)?.[1] ?? `no status in: ${text.slice(0, 200)}`;
    return { page, status, body: text };
  }

  it("should submit a workflow signed in the page and get 202 with an execution id", async function () {
    const { page, status, body } = await submitFromPage({
      key: relayer.apiKey!,
      secret: relayer.secret!,
    });
    expect(status).to.equal("202");
    expect(body).to.match(/"execution_id":\s*"wf_/);
    // The secret is not left in the form.
    expect(await page.inputValue("#signing-secret")).to.equal("");
    // Identical requests signed at once carry distinct stamps: none is refused as a replay.
    const statuses = await page.evaluate(async () => {
      type Signed = { url: string; method: string; headers: Record<string, string> };
      const ui = (globalThis as unknown as { ui: { getConfigs(): Record<string, unknown> } }).ui;
      const intercept = ui.getConfigs().requestInterceptor as (r: Signed) => Promise<Signed>;
      const signed = await Promise.all(
        Array.from({ length: 5 }, () =>
          intercept({ url: "/v1/workflows?limit=1", method: "GET", headers: {} }),
        ),
      );
      const answers = await Promise.all(signed.map((r) => fetch(r.url, { headers: r.headers })));
      return answers.map((r) => r.status);
    });
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200]);
    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.locator(".live-responses-table").first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: SCREENSHOT });
    await page.close();
  });

  it("should be refused without credentials or with a wrong secret", async function () {
    const unsigned = await submitFromPage(null);
    expect(unsigned.status).to.equal("401");
    await unsigned.page.close();
    const wrong = await submitFromPage({ key: relayer.apiKey!, secret: "not-the-secret-at-all" });
    expect(wrong.status).to.equal("401");
    expect(wrong.body).to.contain("AUTH_BAD_SIGNATURE");
    await wrong.page.close();
  });
});
