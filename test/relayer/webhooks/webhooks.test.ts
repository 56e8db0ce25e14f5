import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  isApiError,
  VeriflowClient,
  verifyWebhook,
  type VeriflowApiError,
  type WorkflowSubmission,
} from "../../../clients/sdk/index.ts";
import { isPrivateAddress, refuseUrl } from "../../../relayer/webhooks/index.ts";
import { newApiKey, startInProcessRelayer, type InProcessRelayer } from "../../fixtures/relayer.ts";
import { listen, type RunningServer } from "../../../relayer/http/server.ts";
import { startNpmStart, type StartedRelayer } from "../../fixtures/npm-start.ts";
import { SPEC_JSON_WORKFLOW } from "../../fixtures/catalogue.ts";

interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  status: number;
}

/** A webhook receiver on 127.0.0.1 that answers `status()` (500 while "down"). */
async function receiver(status: () => number) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const answer = status();
      received.push({
        id: String(req.headers["webhook-id"]),
        timestamp: String(req.headers["webhook-timestamp"]),
        signature: String(req.headers["webhook-signature"]),
        body,
        status: answer,
      });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function until<T>(
  what: string,
  probe: () => T | undefined | false,
  ms = 300_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("# webhooks", function () {
  this.timeout(900_000);

  describe("# target policy", function () {
    it("should allow only public https targets in production and loopback http on the devnet", function () {
      const production = { allowPrivate: false };
      const devnet = { allowPrivate: true };
      expect(refuseUrl("https://hooks.example.com/x", production)).to.equal(null);
      expect(refuseUrl("http://hooks.example.com/x", production)).to.match(/https/);
      for (const url of [
        "https://127.0.0.1/x",
        "https://localhost/x",
        "https://10.1.2.3/x",
        "https://172.20.0.1/x",
        "https://192.168.1.1/x",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/x",
        "https://[fd00::1]/x",
        "https://[::ffff:127.0.0.1]/x",
      ]) {
        expect(refuseUrl(url, production), url).to.match(/private/);
      }
      expect(refuseUrl("https://user:pw@hooks.example.com/", production)).to.match(/credentials/);
      expect(refuseUrl("ftp://hooks.example.com/", devnet)).to.match(/http/);
      expect(refuseUrl("not a url", devnet)).to.match(/absolute/);
      expect(refuseUrl("http://127.0.0.1:9999/hook", devnet)).to.equal(null);
      expect(isPrivateAddress("8.8.8.8")).to.equal(false);
      expect(isPrivateAddress("2001:4860:4860::8888")).to.equal(false);
    });
  });

  describe("# endpoints API", function () {
    let relayer: InProcessRelayer;
    let server: RunningServer;
    let a: VeriflowClient;
    let b: VeriflowClient;

    before(async function () {
      relayer = await startInProcessRelayer({
        label: "webhooks",
        env: { NODE_ENV: "production", VERIFLOW_MASTER_KEY: "22".repeat(32) },
      });
      server = await listen(relayer.app, "127.0.0.1", 0);
      const ka = await newApiKey(relayer.ctx);
      const kb = await newApiKey(relayer.ctx);
      a = new VeriflowClient({ baseUrl: server.url, apiKey: ka.key, signingSecret: ka.secret });
      b = new VeriflowClient({ baseUrl: server.url, apiKey: kb.key, signingSecret: kb.secret });
    });

    after(async function () {
      await server?.close(1_000);
      await relayer?.close();
    });

    it("should register, list and delete endpoints per key, the secret shown once and stored encrypted", async function () {
      const created = await a.webhooks.create({
        url: "https://hooks.example.com/veriflow",
        events: ["execution.report", "execution.report"],
      });
      expect(created.secret).to.match(/^whsec_[A-Za-z0-9+/]{32}$/);
      expect(created.events).to.deep.equal(["execution.report"]);
      const [row] = await relayer.ctx.store.query<{ secret_enc: string }>(
        "SELECT secret_enc FROM webhook_endpoints WHERE id = $1",
        [created.id],
      );
      expect(row!.secret_enc).to.not.contain(created.secret.slice(6));
      const listed = await a.webhooks.list();
      expect(listed.items.map((e) => e.id)).to.deep.equal([created.id]);
      expect(JSON.stringify(listed)).to.not.contain(created.secret);
      expect((await b.webhooks.list()).items).to.deep.equal([]);
      // Another key's endpoint does not exist for this key.
      const foreign = await b.webhooks.delete(created.id).catch((e: unknown) => e);
      expect((foreign as VeriflowApiError).code).to.equal("WEBHOOK_NOT_FOUND");
      const foreignLog = await b.webhooks.deliveries(created.id).catch((e: unknown) => e);
      expect((foreignLog as VeriflowApiError).status).to.equal(404);
      expect(await a.webhooks.delete(created.id)).to.deep.equal({ id: created.id, deleted: true });
      expect((await a.webhooks.list()).items).to.deep.equal([]);
    });

    it("should refuse bad targets and bad bodies with 400 and store nothing", async function () {
      const bad: Array<[unknown, string]> = [
        [{ url: "http://hooks.example.com/x" }, "WEBHOOK_URL_REFUSED"],
        [{ url: "https://127.0.0.1/x" }, "WEBHOOK_URL_REFUSED"],
        [{ url: "https://169.254.169.254/" }, "WEBHOOK_URL_REFUSED"],
        [
          { url: "https://hooks.example.com/x", events: ["execution.exploded"] },
          "VALIDATION_FAILED",
        ],
        [{ url: "https://hooks.example.com/x", secret: "mine" }, "VALIDATION_FAILED"],
        [{}, "VALIDATION_FAILED"],
      ];
      for (const [body, code] of bad) {
        const err = await a.webhooks.create(body as never).catch((e: unknown) => e);
        expect(isApiError(err), JSON.stringify(body)).to.equal(true);
        expect((err as VeriflowApiError).status, JSON.stringify(body)).to.equal(400);
        expect((err as VeriflowApiError).code, JSON.stringify(body)).to.equal(code);
      }
      const [{ n }] = (await relayer.ctx.store.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_endpoints WHERE deleted_at IS NULL",
      )) as [{ n: number }];
      expect(n).to.equal(0);
    });

    it("should refuse an unknown delivery to redeliver", async function () {
      const created = await a.webhooks.create({ url: "https://hooks.example.com/y" });
      for (const message of ["msg_999999", "nonsense"]) {
        const err = await a.webhooks.redeliver(created.id, message).catch((e: unknown) => e);
        expect((err as VeriflowApiError).code).to.equal("DELIVERY_NOT_FOUND");
      }
      expect(await a.webhooks.redeliver(created.id)).to.deep.equal({ redelivered: 0 });
    });
  });

  describe("# deliveries across a receiver outage and a relayer restart", function () {
    let relayer: StartedRelayer | undefined;
    let hook: Awaited<ReturnType<typeof receiver>>;
    let up = false;

    before(async function () {
      hook = await receiver(() => (up ? 204 : 500));
    });

    after(async function () {
      await relayer?.close();
      await hook?.close();
    });

    it("should deliver every event at least once, signed, in order per execution, none lost", async function () {
      relayer = await startNpmStart();
      const creds = { apiKey: relayer.apiKey!, signingSecret: relayer.secret! };
      let client = new VeriflowClient({ baseUrl: relayer.url, ...creds });
      const endpoint = await client.webhooks.create({ url: hook.url });
      const { execution_id } = await client.submit(
        SPEC_JSON_WORKFLOW as unknown as WorkflowSubmission,
      );
      const done = await client.waitForReport(execution_id, { intervalMs: 500 });
      // The receiver has been failing: something was attempted and nothing delivered yet.
      await until("a failed attempt", () => hook.received.length > 0);
      const before = await client.webhooks.deliveries(endpoint.id);
      expect(before.items.every((d) => d.state === "pending")).to.equal(true);
      expect(before.items.some((d) => d.attempts > 0 && d.last_status === 500)).to.equal(true);

      // Restart the relayer on the same data while the receiver recovers.
      const dataDir = relayer.dataDir;
      await relayer.stop();
      up = true;
      relayer = await startNpmStart({ dataDir });
      expect(relayer.secret).to.equal(undefined); // the key exists: nothing printed again
      client = new VeriflowClient({ baseUrl: relayer.url, ...creds });

      let deliveries = (await client.webhooks.deliveries(endpoint.id)).items;
      const deadline = Date.now() + 300_000;
      while (deliveries.some((d) => d.state !== "delivered") && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        deliveries = (await client.webhooks.deliveries(endpoint.id)).items;
      }
      expect(deliveries.map((d) => d.state)).to.deep.equal(deliveries.map(() => "delivered"));

      // Every attempt is signed with the endpoint's secret; a repeated id carries the same body.
      const bodies = new Map<string, string>();
      for (const r of hook.received) {
        const event = verifyWebhook<{ type: string }>(endpoint.secret, r.body, {
          "webhook-id": r.id,
          "webhook-timestamp": r.timestamp,
          "webhook-signature": r.signature,
        });
        expect(event.type).to.be.a("string");
        if (bodies.has(r.id)) expect(bodies.get(r.id)).to.equal(r.body);
        bodies.set(r.id, r.body);
      }
      // Nothing lost: each logged delivery was accepted once; accepted in id order.
      const accepted = hook.received.filter((r) => r.status === 204);
      const acceptedIds = accepted.map((r) => r.id);
      expect(new Set(acceptedIds).size).to.equal(acceptedIds.length);
      expect([...acceptedIds].sort()).to.deep.equal(deliveries.map((d) => d.id).sort());
      const numbers = acceptedIds.map((id) => Number(id.slice(4)));
      expect(numbers).to.deep.equal([...numbers].sort((x, y) => x - y));

      const events = accepted.map(
        (r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> },
      );
      const states = events
        .filter((e) => e.type === "execution.state_changed")
        .map((e) => e.data.state);
      expect(states[0]).to.equal("queued");
      expect(states.at(-1)).to.equal("completed");
      const steps = events.filter((e) => e.type === "execution.step_completed");
      expect(steps.map((e) => e.data.index)).to.deep.equal([0, 1, 2, 3]);
      for (const step of steps) expect(step.data.tx_hashes).to.be.an("array").that.is.not.empty;
      const attested = events.find((e) => e.type === "execution.attested");
      expect(attested?.data.attestation)
        .to.have.property("tx_hash")
        .that.matches(/^0x[0-9a-f]{64}$/);
      const report = events.find((e) => e.type === "execution.report");
      expect(report?.data).to.deep.equal({ execution_id, cid: done.report!.cid });
      expect(events.every((e) => e.data.execution_id === execution_id)).to.equal(true);

      // Redelivery sends the same message (same webhook-id and body) again.
      const reportId = accepted[events.indexOf(report!)]!.id;
      const count = hook.received.length;
      expect(await client.webhooks.redeliver(endpoint.id, reportId)).to.deep.equal({
        redelivered: 1,
      });
      const again = await until("the redelivery", () =>
        hook.received.slice(count).find((r) => r.id === reportId),
      );
      expect(again.body).to.equal(bodies.get(reportId));
    });
  });
});
