import { expect } from "chai";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { signedTarget, signPayloadV2, verifyHmac } from "../../../relayer/auth/hmac.ts";
import { listen, type RunningServer } from "../../../relayer/http/server.ts";
import {
  ExecutionFailedError,
  isApiError,
  VeriflowApiError,
  VeriflowClient,
  verifyWebhook,
  WebhookVerificationError,
} from "../../../clients/sdk/index.ts";
import { newApiKey, startInProcessRelayer, type InProcessRelayer } from "../../fixtures/relayer.ts";
import { openAnalysisWorld } from "../../fixtures/analysis.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
  at: number;
}

/**
 * A scripted HTTP server on 127.0.0.1 for the client's retry and wait behaviour (answers the
 * relayer gives only under load or at a moment's state: 429 with Retry-After, 502/503, an
 * execution moving through its states). Signatures are checked with the relayer's own code.
 */
async function scriptedServer(
  answer: (
    seen: Seen,
    n: number,
  ) => { status: number; body: unknown; headers?: Record<string, string> },
): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      };
      seen.push(entry);
      const out = answer(entry, seen.length);
      res.writeHead(out.status, { "Content-Type": "application/json", ...out.headers });
      res.end(JSON.stringify(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const CREDS = { apiKey: "vfk_test_client", signingSecret: "s".repeat(32) };
const QUEUED = {
  status: "queued",
  execution_id: "wf_1",
  cost_estimate: { total_usd: 1, gas_breakdown: {} },
};

/** Whether the request carries a version 2 signature by `secret` for its own method and target. */
function signedBy(seen: Seen, secret: string): boolean {
  if (seen.headers["x-svc-signature-version"] !== "2") return false;
  return verifyHmac([secret], String(seen.headers["x-svc-signature"]), (s) =>
    signPayloadV2(
      s,
      signedTarget(seen.method, seen.url),
      String(seen.headers["x-svc-timestamp"]),
      new Uint8Array(seen.body),
    ),
  );
}

describe("# SDK client", function () {
  this.timeout(120_000);

  describe("# against a real relayer", function () {
    let relayer: InProcessRelayer;
    let server: RunningServer;
    let creds: { key: string; secret: string };

    before(async function () {
      relayer = await startInProcessRelayer({
        label: "sdk",
        env: { VERIFLOW_LIMITS: JSON.stringify({ free: { requestsPerMinute: 3 } }) },
      });
      server = await listen(relayer.app, "127.0.0.1", 0);
      creds = await newApiKey(relayer.ctx, "free");
    });

    after(async function () {
      await server?.close(1_000);
      await relayer?.close();
    });

    it("should sign requests the relayer accepts and throw its refusals as typed errors", async function () {
      const client = new VeriflowClient({
        baseUrl: server.url,
        apiKey: creds.key,
        signingSecret: creds.secret,
      });
      const page = await client.list({ state: "completed" });
      expect(page.items).to.deep.equal([]);
      const err = await client.status("wf_01NOSUCHEXECUTION0000000000").catch((e: unknown) => e);
      expect(isApiError(err, "EXECUTION_NOT_FOUND")).to.equal(true);
      expect((err as VeriflowApiError).status).to.equal(404);

      const wrong = new VeriflowClient({
        baseUrl: server.url,
        apiKey: creds.key,
        signingSecret: "not-the-secret-at-all",
      });
      const refused = await wrong.list().catch((e: unknown) => e);
      expect(isApiError(refused, "AUTH_BAD_SIGNATURE")).to.equal(true);
      expect((refused as VeriflowApiError).status).to.equal(401);
    });

    it("should have identical requests sent at once all accepted, none refused as a replay", async function () {
      const enterprise = await newApiKey(relayer.ctx, "enterprise");
      const client = new VeriflowClient({
        baseUrl: server.url,
        apiKey: enterprise.key,
        signingSecret: enterprise.secret,
      });
      const pages = await Promise.allSettled(
        Array.from({ length: 20 }, () => client.list({ limit: 5 })),
      );
      const refused = pages.flatMap((p) => (p.status === "rejected" ? [String(p.reason)] : []));
      expect(refused).to.deep.equal([]);
    });

    it("should hand a 429 whose Retry-After exceeds the bound to the caller at once, with the wait", async function () {
      const client = new VeriflowClient({
        baseUrl: server.url,
        apiKey: creds.key,
        signingSecret: creds.secret,
        retry: { maxDelayMs: 1_000 },
      });
      let err: unknown;
      const started = Date.now();
      for (let i = 0; i < 5 && !err; i++) await client.list().catch((e: unknown) => (err = e));
      expect(isApiError(err, "RATE_LIMITED"), String(err)).to.equal(true);
      expect((err as VeriflowApiError).retryAfterSeconds).to.be.within(1, 60);
      expect(Date.now() - started).to.be.below(20_000);
    });
  });

  describe("# retries", function () {
    it("should wait Retry-After on 429, re-sign each attempt and keep the Idempotency-Key", async function () {
      const srv = await scriptedServer((_s, n) =>
        n === 1
          ? {
              status: 429,
              body: { error: "RATE_LIMITED", detail: "slow down" },
              headers: { "Retry-After": "1" },
            }
          : { status: 202, body: QUEUED },
      );
      try {
        const retries: number[] = [];
        const client = new VeriflowClient({
          baseUrl: srv.url,
          ...CREDS,
          onRetry: (i) => retries.push(i.delayMs),
        });
        const result = await client.submit({ name: "w", actions: [] } as never);
        expect(result.execution_id).to.equal("wf_1");
        expect(srv.seen).to.have.length(2);
        expect(retries).to.deep.equal([1_000]);
        expect(srv.seen[1]!.at - srv.seen[0]!.at).to.be.at.least(950);
        const [a, b] = srv.seen as [Seen, Seen];
        expect(signedBy(a, CREDS.signingSecret) && signedBy(b, CREDS.signingSecret)).to.equal(true);
        expect(a.headers["x-svc-signature"]).to.not.equal(b.headers["x-svc-signature"]);
        expect(a.headers["idempotency-key"])
          .to.be.a("string")
          .and.equal(b.headers["idempotency-key"]);
        expect(a.body.equals(b.body)).to.equal(true);
      } finally {
        await srv.close();
      }
    });

    it("should give up after maxRetries and return the last refusal", async function () {
      const srv = await scriptedServer(() => ({
        status: 503,
        body: { error: "ESTIMATE_UNAVAILABLE", detail: "chains", retry_in: 0 },
        headers: { "Retry-After": "0" },
      }));
      try {
        const client = new VeriflowClient({ baseUrl: srv.url, ...CREDS, retry: { maxRetries: 2 } });
        const err = await client
          .submit({ name: "w", actions: [] } as never)
          .catch((e: unknown) => e);
        expect(isApiError(err, "ESTIMATE_UNAVAILABLE")).to.equal(true);
        expect(srv.seen).to.have.length(3);
      } finally {
        await srv.close();
      }
    });

    it("should not repeat a non-idempotent request after a 502", async function () {
      const srv = await scriptedServer(() => ({
        status: 502,
        body: { error: "BAD_GATEWAY", detail: "proxy" },
      }));
      try {
        const client = new VeriflowClient({ baseUrl: srv.url, ...CREDS });
        const err = await client.cancel("wf_1").catch((e: unknown) => e);
        expect(err).to.be.instanceOf(VeriflowApiError);
        expect((err as VeriflowApiError).code).to.equal("BAD_GATEWAY");
        expect(srv.seen).to.have.length(1);
      } finally {
        await srv.close();
      }
    });

    it("should keep a body that is not the relayer's shape as the error's detail", async function () {
      const srv = await scriptedServer(() => ({ status: 500, body: "<html>oops</html>" }));
      try {
        const client = new VeriflowClient({ baseUrl: srv.url, ...CREDS });
        const err = (await client.cancel("wf_1").catch((e: unknown) => e)) as VeriflowApiError;
        expect(err.code).to.equal("HTTP_500");
        expect(err.detail).to.contain("oops");
      } finally {
        await srv.close();
      }
    });
  });

  describe("# analyze", function () {
    it("should retry a lost answer with its Idempotency-Key and receive the analysis that ran, paid once", async function () {
      const world = await openAnalysisWorld({ label: "sdk-analyze" });
      const server = await listen(world.relayer.app, "127.0.0.1", 0);
      try {
        let lost = 0;
        const keys: string[] = [];
        const client = new VeriflowClient({
          baseUrl: server.url,
          apiKey: world.key.key,
          signingSecret: world.key.secret,
          retry: { baseDelayMs: 10 },
          // The first answer reaches the relayer's side of the network and is lost on the way back.
          fetch: async (request) => {
            keys.push(String((request as Request).headers.get("Idempotency-Key")));
            const response = await fetch(request);
            if (lost++ === 0) {
              await response.arrayBuffer();
              throw new TypeError("fetch failed: connection reset");
            }
            return response;
          },
        });
        const analysis = await client.analyze({ text: "Pay Jane Whitfield by Friday." });
        expect(keys).to.have.length(2);
        expect(keys[0])
          .to.match(/^[0-9a-f-]{36}$/)
          .and.equal(keys[1]);
        // One analysis: the provider was called for it once (score, completion, output score).
        expect(world.provider.hits).to.have.length(3);
        const [row] = await world.relayer.ctx.store.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM analyses",
        );
        expect(row!.n).to.equal(1);
        expect(analysis.analysis_id).to.match(/^an_/);
      } finally {
        await server.close(1_000);
        await world.close();
      }
    });

    it("should wait out a 409 with Retry-After and repeat a proxy's 502, not a provider's refusal", async function () {
      const ANALYSIS = { analysis_id: "an_1", output: "ok" };
      const srv = await scriptedServer((_s, n) =>
        n === 1
          ? { status: 502, body: "<html>bad gateway</html>" }
          : n === 2
            ? {
                status: 409,
                body: { error: "IDEMPOTENCY_KEY_IN_USE", detail: "running", retry_in: 1 },
                headers: { "Retry-After": "1" },
              }
            : { status: 200, body: ANALYSIS },
      );
      const refusing = await scriptedServer(() => ({
        status: 502,
        body: { error: "ANALYSIS_PROVIDER_UNAUTHORIZED", detail: "rotate the credential" },
      }));
      try {
        const retries: Array<number | null> = [];
        const client = new VeriflowClient({
          baseUrl: srv.url,
          ...CREDS,
          retry: { baseDelayMs: 10 },
          onRetry: (i) => retries.push(i.status),
        });
        expect(await client.analyze({ text: "x" }, { idempotencyKey: "mine-1" })).to.deep.equal(
          ANALYSIS,
        );
        expect(retries).to.deep.equal([502, 409]);
        expect(srv.seen.map((s) => s.headers["idempotency-key"])).to.deep.equal([
          "mine-1",
          "mine-1",
          "mine-1",
        ]);
        expect(srv.seen[2]!.at - srv.seen[1]!.at).to.be.at.least(950);

        const refused = new VeriflowClient({ baseUrl: refusing.url, ...CREDS });
        const err = await refused.analyze({ text: "x" }).catch((e: unknown) => e);
        expect(isApiError(err, "ANALYSIS_PROVIDER_UNAUTHORIZED")).to.equal(true);
        expect(refusing.seen).to.have.length(1);
      } finally {
        await srv.close();
        await refusing.close();
      }
    });

    it("should not wait out a 409 without Retry-After (a key reused for another body)", async function () {
      const srv = await scriptedServer(() => ({
        status: 409,
        body: { error: "IDEMPOTENCY_KEY_REUSED", detail: "another body" },
      }));
      try {
        const client = new VeriflowClient({ baseUrl: srv.url, ...CREDS });
        const err = await client.analyze({ text: "x" }).catch((e: unknown) => e);
        expect(isApiError(err, "IDEMPOTENCY_KEY_REUSED")).to.equal(true);
        expect(srv.seen).to.have.length(1);
      } finally {
        await srv.close();
      }
    });
  });

  describe("# analysisAuditTrail", function () {
    it("should follow the records' cursors and the links' next_from_seq to the end, keeping the first page's checkpoint", async function () {
      // 1,234 records in pages of 500 and 2,345 links in pages of 1,000, as the relayer pages them.
      const records = Array.from({ length: 1_234 }, (_, i) => ({ seq: i + 1, id: `au_${i + 1}` }));
      const links = Array.from({ length: 2_345 }, (_, i) => ({
        seq: i + 1,
        digest: "d",
        hash: "h",
      }));
      const checkpoint = { seq: 0, hash: `0x${"00".repeat(32)}` };
      const srv = await scriptedServer((seen) => {
        const url = new URL(seen.url, "http://x");
        if (url.pathname === "/v1/analysis/audit") {
          const after = Number(url.searchParams.get("cursor") ?? 0);
          const page = records.slice(after, after + 500);
          const next = after + 500 < records.length ? String(after + 500) : null;
          return { status: 200, body: { records: page, next_cursor: next } };
        }
        const from = Number(url.searchParams.get("from_seq") ?? 1);
        const page = links.slice(from - 1, from - 1 + 1_000);
        const next = from - 1 + 1_000 < links.length ? from + 1_000 : null;
        // Later pages carry a later checkpoint (pruned meanwhile): the first page's is the one.
        const at = from === 1 ? checkpoint : { seq: 7, hash: `0x${"07".repeat(32)}` };
        return {
          status: 200,
          body: { checkpoint: at, head: links.at(-1), links: page, next_from_seq: next },
        };
      });
      try {
        const client = new VeriflowClient({ baseUrl: srv.url, ...CREDS });
        const trail = await client.analysisAuditTrail();
        expect(trail.records.map((r) => r.seq)).to.deep.equal(records.map((r) => r.seq));
        expect(trail.links.map((l) => l.seq)).to.deep.equal(links.map((l) => l.seq));
        expect(trail.checkpoint).to.deep.equal(checkpoint);
        expect(srv.seen.map((r) => r.url)).to.deep.equal([
          "/v1/analysis/audit?limit=500",
          "/v1/analysis/audit?limit=500&cursor=500",
          "/v1/analysis/audit?limit=500&cursor=1000",
          "/v1/analysis/audit/links",
          "/v1/analysis/audit/links?from_seq=1001",
          "/v1/analysis/audit/links?from_seq=2001",
        ]);
      } finally {
        await srv.close();
      }
    });
  });

  describe("# waitForReport", function () {
    const execution = (state: string, extra: object = {}) => ({
      execution_id: "wf_1",
      state,
      stage: "execute",
      steps: [],
      compliance_alerts: [],
      report: null,
      ...extra,
    });

    it("should follow an execution to its report and throw the code of a failed one", async function () {
      const states = ["queued", "running", "completed"];
      const srv = await scriptedServer((s, n) =>
        s.url.endsWith("wf_1")
          ? {
              status: 200,
              body: execution(
                states[Math.min(n - 1, 2)]!,
                n >= 3 ? { report: { cid: "bafy" } } : {},
              ),
            }
          : {
              status: 200,
              body: execution("failed", {
                execution_id: "wf_2",
                error: { error: "SANCTIONED_ADDRESS", detail: "recipient listed" },
              }),
            },
      );
      try {
        const client = new VeriflowClient({ baseUrl: srv.url, ...CREDS });
        const done = await client.waitForReport("wf_1", { intervalMs: 10 });
        expect(done.state).to.equal("completed");
        expect(done.report?.cid).to.equal("bafy");
        const err = await client.waitForReport("wf_2", { intervalMs: 10 }).catch((e: unknown) => e);
        expect(err).to.be.instanceOf(ExecutionFailedError);
        expect((err as ExecutionFailedError).code).to.equal("SANCTIONED_ADDRESS");
      } finally {
        await srv.close();
      }
    });

    it("should stop waiting when its signal aborts", async function () {
      const srv = await scriptedServer(() => ({ status: 200, body: execution("running") }));
      try {
        const client = new VeriflowClient({ baseUrl: srv.url, ...CREDS });
        const controller = new AbortController();
        setTimeout(() => controller.abort(new Error("user stopped")), 150);
        const err = await client
          .waitForReport("wf_1", { intervalMs: 20, signal: controller.signal })
          .catch((e: unknown) => e);
        expect((err as Error).message).to.equal("user stopped");
      } finally {
        await srv.close();
      }
    });
  });

  describe("# verifyWebhook", function () {
    const secret = `whsec_${Buffer.from("k".repeat(32)).toString("base64")}`;
    const body = JSON.stringify({ type: "execution.completed", data: { execution_id: "wf_1" } });
    const sign = (id: string, at: Date, payload: string, key = secret) => ({
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(key).sign(id, at, payload),
    });

    it("should accept a delivery signed with the endpoint's secret and return the event", function () {
      const event = verifyWebhook<{ type: string }>(secret, body, sign("msg_1", new Date(), body));
      expect(event.type).to.equal("execution.completed");
      expect(
        verifyWebhook(secret, body, new Headers(sign("msg_1", new Date(), body))),
      ).to.deep.equal(JSON.parse(body));
    });

    it("should refuse a changed body, another secret, another id and a stale timestamp", function () {
      const headers = sign("msg_1", new Date(), body);
      const other = `whsec_${Buffer.from("x".repeat(32)).toString("base64")}`;
      const cases = [
        () => verifyWebhook(secret, body.replace("wf_1", "wf_2"), headers),
        () => verifyWebhook(other, body, headers),
        () => verifyWebhook(secret, body, { ...headers, "webhook-id": "msg_2" }),
        () => verifyWebhook(secret, body, sign("msg_1", new Date(Date.now() - 10 * 60_000), body)),
        () => verifyWebhook(secret, body, { ...headers, "webhook-signature": "" }),
      ];
      for (const attempt of cases) expect(attempt).to.throw(WebhookVerificationError);
    });
  });
});
