import { expect } from "chai";
import path from "node:path";
import { isApiError, VeriflowClient, verifyWebhook } from "../../../clients/sdk/index.ts";
import { plainEnv, REPO, runCli } from "../../fixtures/cli.ts";
import { startNpmStart, type StartedRelayer } from "../../fixtures/npm-start.ts";
import {
  startWebhookReceiver,
  webhookHeaders,
  type WebhookReceiver,
} from "../../fixtures/webhook-receiver.ts";

const JSON_EXAMPLE = path.join(REPO, "examples/treasury-rebalance.json");
/** Every tier's requests per minute on this relayer: room for the webhooks commands, few enough to exhaust. */
const REQUESTS_PER_MINUTE = 60;
/** Seconds left in the exhausted window, at least, when the CLI is started. */
const MIN_WINDOW_LEFT = 15;

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 120_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * `veriflow webhooks …` and the CLI's own wait on 429, each a child process against a real
 * relayer started as `npm start` does (with every tier limited to 60 requests per minute).
 */
describe("# veriflow CLI: webhooks and rate limits", function () {
  this.timeout(600_000);
  let relayer: StartedRelayer;
  let env: Record<string, string>;
  let receiver: WebhookReceiver;
  let up = false;

  before(async function () {
    const limits = Object.fromEntries(
      ["free", "pro", "enterprise"].map((t) => [t, { requestsPerMinute: REQUESTS_PER_MINUTE }]),
    );
    relayer = await startNpmStart({
      env: { VERIFLOW_LIMITS: JSON.stringify(limits) },
      timeoutMs: 480_000,
    });
    env = plainEnv({
      VERIFLOW_URL: relayer.url,
      VERIFLOW_API_KEY: relayer.apiKey!,
      VERIFLOW_SIGNING_SECRET: relayer.secret!,
    });
    receiver = await startWebhookReceiver(() => (up ? 204 : 500));
  });

  after(async function () {
    await relayer?.close();
    await receiver?.close();
  });

  const cli = (args: string[]) => runCli(args, { env });

  describe("# veriflow webhooks", function () {
    it("should add, list, show deliveries, redeliver and delete an endpoint", async function () {
      const url = receiver.url();
      const hits = receiver.hits;
      const added = await cli([
        "webhooks",
        "add",
        url,
        "--events",
        "execution.state_changed",
        "--description",
        "cli test",
        "--json",
      ]);
      expect(added.code, added.stderr).to.equal(0);
      const endpoint = JSON.parse(added.stdout) as { id: string; secret: string; events: string[] };
      expect(endpoint.id).to.match(/^whk_/);
      expect(endpoint.secret).to.match(/^whsec_/);
      expect(endpoint.events).to.deep.equal(["execution.state_changed"]);

      const listed = await cli(["webhooks", "list"]);
      expect(listed.code, listed.stderr).to.equal(0);
      expect(listed.stdout).to.contain(`${endpoint.id}  ${url}  execution.state_changed  cli test`);
      expect(listed.stdout).to.not.contain(endpoint.secret);

      // An event: a submission's queued state, sent while the receiver fails.
      const submitted = await cli(["submit", JSON_EXAMPLE, "--json"]);
      expect(submitted.code, submitted.stderr).to.equal(0);
      const executionId = (JSON.parse(submitted.stdout) as { execution_id: string }).execution_id;
      await until("a failed attempt", async () => hits.some((h) => h.status === 500));
      const failing = await cli(["webhooks", "deliveries", endpoint.id]);
      expect(failing.code, failing.stderr).to.equal(0);
      expect(failing.stdout).to.match(
        new RegExp(
          `msg_\\d+\\s+pending\\s+execution\\.state_changed\\s+${executionId}\\s+attempts [1-9]\\d*\\s+last 500`,
        ),
      );

      up = true;
      const delivered = await until("the delivery", async () => {
        const out = await cli(["webhooks", "deliveries", endpoint.id, "--json"]);
        const items = (JSON.parse(out.stdout) as { items: { id: string; state: string }[] }).items;
        return items.find((d) => d.state === "delivered");
      });
      const first = hits.find((h) => h.status === 204 && h.headers["webhook-id"] === delivered.id)!;
      const event = verifyWebhook<{ type: string; data: { execution_id: string; state: string } }>(
        endpoint.secret,
        first.body,
        webhookHeaders(first),
      );
      expect(event.data.execution_id).to.equal(executionId);

      const count = hits.length;
      const again = await cli(["webhooks", "redeliver", endpoint.id, "--message", delivered.id]);
      expect(again.code, again.stderr).to.equal(0);
      expect(again.stdout).to.contain("1 delivery queued again");
      const resent = await until("the redelivery", async () =>
        hits.slice(count).find((h) => h.headers["webhook-id"] === delivered.id),
      );
      expect(resent.body).to.equal(first.body);

      const unknown = await cli([
        "webhooks",
        "redeliver",
        endpoint.id,
        "--message",
        "msg_999999999",
      ]);
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.contain("DELIVERY_NOT_FOUND");

      const deleted = await cli(["webhooks", "delete", endpoint.id]);
      expect(deleted.code, deleted.stderr).to.equal(0);
      expect(deleted.stdout).to.contain(`${endpoint.id} deleted`);
      expect((await cli(["webhooks", "list"])).stdout.trim()).to.equal("no webhooks");
      const twice = await cli(["webhooks", "delete", endpoint.id]);
      expect(twice.code).to.equal(1);
      expect(twice.stderr).to.contain("WEBHOOK_NOT_FOUND");
      await cli(["cancel", executionId]);
    });

    it("should refuse an unknown event type with the relayer's issues and store nothing, and bad usage with 2", async function () {
      const bad = await cli([
        "webhooks",
        "add",
        receiver.url("/x"),
        "--events",
        "execution.exploded",
      ]);
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.contain("VALIDATION_FAILED");
      expect(bad.stderr).to.contain("events.0");
      expect((await cli(["webhooks", "list"])).stdout.trim()).to.equal("no webhooks");

      const usage = await cli(["webhooks", "frobnicate"]);
      expect(usage.code).to.equal(2);
      expect(usage.stderr).to.contain("use add, list, delete, deliveries or redeliver");
      const noUrl = await cli(["webhooks", "add"]);
      expect(noUrl.code).to.equal(2);
      expect(noUrl.stderr).to.contain("missing URL");
    });
  });

  describe("# 429: the CLI waits for Retry-After, within its bound", function () {
    /**
     * Spends the rest of the key's window (a burst of a window's worth of requests at once, so a
     * slow machine cannot straddle two windows); returns the Retry-After of a refusal.
     */
    async function exhaust(): Promise<number> {
      const sdk = new VeriflowClient({
        baseUrl: relayer.url,
        apiKey: relayer.apiKey!,
        signingSecret: relayer.secret!,
        retry: { maxRetries: 0 },
      });
      for (let round = 0; round < 5; round++) {
        const pending: Promise<unknown>[] = [];
        for (let i = 0; i < REQUESTS_PER_MINUTE; i++) {
          pending.push(
            sdk.list({ limit: 1 }).then(
              () => null,
              (e: unknown) => e,
            ),
          );
        }
        const outcomes = await Promise.all(pending);
        for (const err of outcomes) if (err && !(isApiError(err) && err.status === 429)) throw err;
        const refused = outcomes.find((e) => isApiError(e) && e.status === 429);
        if (!refused || !isApiError(refused)) continue;
        const retryAfter = refused.retryAfterSeconds!;
        // Leave the CLI (a child process, slow to start on a loaded machine) time to meet the 429.
        if (retryAfter >= MIN_WINDOW_LEFT) return retryAfter;
        await new Promise((r) => setTimeout(r, (retryAfter + 1) * 1000));
      }
      throw new Error("the window never filled");
    }

    it("should give up at once, with the code and the wait, when Retry-After exceeds --max-wait", async function () {
      const retryAfter = await exhaust();
      expect(retryAfter).to.be.within(MIN_WINDOW_LEFT, 60);
      const out = await cli(["list", "--max-wait", "0"]);
      expect(out.code).to.equal(1);
      expect(out.stderr).to.contain("RATE_LIMITED");
      expect(out.stderr).to.match(/retry after \d+ s/);
      // It did not wait: no retry announced (a slow machine may take longer than the wait to spawn).
      expect(out.stderr).to.not.contain("retrying in");
    });

    it("should wait out Retry-After and then succeed", async function () {
      const retryAfter = await exhaust();
      const started = Date.now();
      const out = await cli(["list", "--json"]);
      const waited = Date.now() - started;
      expect(out.code, out.stderr).to.equal(0);
      const announced = /429 RATE_LIMITED: retrying in (\d+) s/.exec(out.stderr);
      expect(announced, out.stderr).to.not.equal(null);
      expect(Number(announced![1])).to.be.within(1, retryAfter);
      expect(JSON.parse(out.stdout)).to.have.property("items");
      // It slept the whole Retry-After before the attempt that succeeded.
      expect(waited).to.be.at.least(Number(announced![1]) * 1000);
    });

    it("should refuse a --max-wait that is not a number of seconds", async function () {
      const out = await cli(["list", "--max-wait", "soon"]);
      expect(out.code).to.equal(2);
      expect(out.stderr).to.contain("--max-wait");
    });
  });
});
