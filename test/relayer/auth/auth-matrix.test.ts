import { createRoute, z } from "@hono/zod-openapi";
import { expect } from "chai";
import { finishRotation, revokeApiKey, rotateApiKey } from "../../../relayer/auth/keys.ts";
import { signPayload, signedHeaders } from "../../../relayer/auth/hmac.ts";
import { createRouter } from "../../../relayer/http/router.ts";
import { MAX_BODY_BYTES } from "../../../relayer/http/body.ts";
import {
  createTestDatabase,
  newKey,
  signedRequest,
  startTestService,
  type TestService,
} from "../../fixtures/platform.ts";
import { cancelExecutionsOfKey } from "../../../relayer/executions/store.ts";

const TEST_QUEUE = "platform.test-submit";

/**
 * A stand-in for a submission route: stores a row and queues a job in one transaction, so the
 * matrix can check that a refused request stored and queued nothing.
 */
function mountProbeRoutes(svc: TestService) {
  const router = createRouter();
  router.openapi(
    createRoute({
      method: "post",
      path: "/probe/submit",
      request: {
        body: {
          content: { "application/json": { schema: z.object({ name: z.string().min(1) }) } },
        },
      },
      responses: { 202: { description: "stored" } },
    }),
    async (c) => {
      const { name } = c.req.valid("json");
      await svc.ctx.store.transaction(async (tx) => {
        await tx.query("INSERT INTO probe_submissions (name) VALUES ($1)", [name]);
        await svc.ctx.queue.send(TEST_QUEUE, { name }, { tx });
      });
      return c.json({ status: "stored", key: c.get("apiKey").key }, 202);
    },
  );
  router.post("/compliance/probe", (c) => c.json({ method: c.get("apiKey").method }));
  router.get("/probe/crash", () => {
    throw new Error("secret internal detail at /srv/app.ts:42");
  });
  svc.app.route("/", router);
}

async function counts(svc: TestService) {
  const q = async (sql: string) => Number((await svc.ctx.store.query<{ n: string }>(sql))[0]!.n);
  return {
    submissions: await q("SELECT count(*) AS n FROM probe_submissions"),
    jobs: await q(`SELECT count(*) AS n FROM pgboss.job WHERE name = '${TEST_QUEUE}'`),
    replay: await q("SELECT count(*) AS n FROM auth_replay"),
    rate: await q("SELECT coalesce(sum(count), 0) AS n FROM rate_limit_counters"),
    executions: await q("SELECT count(*) AS n FROM workflow_executions"),
    executeJobs: await q("SELECT count(*) AS n FROM pgboss.job WHERE name = 'workflow.execute'"),
    deployments: await q("SELECT count(*) AS n FROM workflow_deployments"),
    schedules: await q("SELECT count(*) AS n FROM workflow_schedules"),
    idempotency: await q("SELECT count(*) AS n FROM workflow_idempotency"),
  };
}

const BACKENDS = ["pglite", "postgres"] as const;

for (const backend of BACKENDS) {
  describe(`# auth and input matrix (${backend})`, function () {
    this.timeout(60_000);
    let svc: TestService;
    let drop: (() => Promise<void>) | undefined;
    let client: { key: string; id: string; secret: string };
    const body = JSON.stringify({ name: "payroll" });

    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === "postgres") {
        const db = await createTestDatabase("auth");
        databaseUrl = db.url;
        drop = db.drop;
      }
      svc = await startTestService({ databaseUrl, mount: mountProbeRoutes });
      await svc.ctx.store.exec("CREATE TABLE probe_submissions (id serial PRIMARY KEY, name text)");
      await svc.ctx.queue.ensureQueue(TEST_QUEUE);
    });

    after(async () => {
      await svc?.close();
      await drop?.();
    });

    beforeEach(async () => {
      // A fresh key per test: rate windows and replay entries never leak between tests.
      client = await newKey(svc, "enterprise");
      svc.clock.now = Date.now();
    });

    /** Sends the request and checks the refusal left no trace. */
    async function expectRefused(
      request: () => Response | Promise<Response>,
      status: number,
      error: string,
    ): Promise<Response> {
      const before = await counts(svc);
      const res = await request();
      const json = (await res.json()) as { error: string; detail: string };
      expect(res.status, JSON.stringify(json)).to.equal(status);
      expect(json.error).to.equal(error);
      expect(json.detail).to.be.a("string").and.not.empty;
      expect(JSON.stringify(json)).to.not.include(client.secret);
      expect(await counts(svc)).to.deep.equal(before);
      return res;
    }

    function post(headers: Record<string, string>, payload: string = body) {
      return svc.app.request("/probe/submit", {
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
        body: payload,
      });
    }

    it("should accept a correctly signed request, store it and queue one job", async () => {
      const before = await counts(svc);
      const res = await signedRequest(svc, client, "POST", "/probe/submit", body);
      expect(res.status).to.equal(202);
      expect(await res.json()).to.deep.equal({ status: "stored", key: client.key });
      const after = await counts(svc);
      expect(after.submissions).to.equal(before.submissions + 1);
      expect(after.jobs).to.equal(before.jobs + 1);
      expect(after.replay).to.equal(before.replay + 1);
      expect(res.headers.get("x-request-id")).to.be.a("string");
      expect(res.headers.get("x-ratelimit-limit")).to.equal("1200");
    });

    for (const missing of ["X-SVC-Key", "X-SVC-Timestamp", "X-SVC-Signature"]) {
      it(`should refuse a request without ${missing} with 401`, async () => {
        const headers = signedHeaders(client.key, client.secret, body, String(svc.clock.now));
        delete headers[missing as keyof typeof headers];
        const code = {
          "X-SVC-Key": "AUTH_MISSING_KEY",
          "X-SVC-Timestamp": "AUTH_MISSING_TIMESTAMP",
          "X-SVC-Signature": "AUTH_MISSING_SIGNATURE",
        }[missing]!;
        const res = await expectRefused(() => post(headers), 401, code);
        expect(res.headers.get("www-authenticate")).to.include("HMAC-SHA256");
      });
    }

    for (const bad of ["12.5", "abc", "1e12", "-1700000000000", "0x1a", "17000000000000000"]) {
      it(`should refuse the malformed timestamp ${JSON.stringify(bad)} with 401`, async () => {
        const headers = {
          "X-SVC-Key": client.key,
          "X-SVC-Timestamp": bad,
          "X-SVC-Signature": signPayload(client.secret, bad, body),
        };
        await expectRefused(() => post(headers), 401, "AUTH_MALFORMED_TIMESTAMP");
      });
    }

    it("should refuse an upper-case or truncated signature as malformed", async () => {
      const headers = signedHeaders(client.key, client.secret, body, String(svc.clock.now));
      await expectRefused(
        () => post({ ...headers, "X-SVC-Signature": headers["X-SVC-Signature"]!.toUpperCase() }),
        401,
        "AUTH_MALFORMED_SIGNATURE",
      );
      await expectRefused(
        () => post({ ...headers, "X-SVC-Signature": headers["X-SVC-Signature"]!.slice(2) }),
        401,
        "AUTH_MALFORMED_SIGNATURE",
      );
    });

    it("should accept a timestamp exactly 300 s old and refuse one older as expired", async () => {
      const edge = await signedRequest(
        svc,
        client,
        "POST",
        "/probe/submit",
        body,
        {},
        String(svc.clock.now - 300_000),
      );
      expect(edge.status).to.equal(202);
      await expectRefused(
        () =>
          signedRequest(
            svc,
            client,
            "POST",
            "/probe/submit",
            body,
            {},
            String(svc.clock.now - 300_001),
          ),
        401,
        "AUTH_TIMESTAMP_EXPIRED",
      );
    });

    it("should refuse a timestamp more than 300 s in the future", async () => {
      await expectRefused(
        () =>
          signedRequest(
            svc,
            client,
            "POST",
            "/probe/submit",
            body,
            {},
            String(svc.clock.now + 300_001),
          ),
        401,
        "AUTH_TIMESTAMP_IN_FUTURE",
      );
    });

    it("should refuse a signature made with another secret or over another body", async () => {
      await expectRefused(
        () =>
          signedRequest(
            svc,
            { key: client.key, secret: "vfs_not-the-secret-at-all" },
            "POST",
            "/probe/submit",
            body,
          ),
        401,
        "AUTH_BAD_SIGNATURE",
      );
      const headers = signedHeaders(client.key, client.secret, body, String(svc.clock.now));
      await expectRefused(
        () => post(headers, JSON.stringify({ name: "payrolL" })),
        401,
        "AUTH_BAD_SIGNATURE",
      );
      // The timestamp is part of the payload: the same signature under another timestamp fails.
      await expectRefused(
        () => post({ ...headers, "X-SVC-Timestamp": String(svc.clock.now + 1) }),
        401,
        "AUTH_BAD_SIGNATURE",
      );
    });

    it("should refuse an unknown key", async () => {
      await expectRefused(
        () =>
          signedRequest(
            svc,
            { key: "vfk_unknown0000000000000000", secret: client.secret },
            "POST",
            "/probe/submit",
            body,
          ),
        401,
        "AUTH_UNKNOWN_KEY",
      );
    });

    it("should refuse a revoked key", async () => {
      await revokeApiKey(svc.ctx.store, client.key, cancelExecutionsOfKey);
      await expectRefused(
        () => signedRequest(svc, client, "POST", "/probe/submit", body),
        401,
        "AUTH_KEY_REVOKED",
      );
    });

    it("should apply a revocation made by another process within the 1 s credentials cache", async () => {
      expect((await signedRequest(svc, client, "POST", "/probe/submit", body)).status).to.equal(
        202,
      );
      // Another process (the keys command) revokes: only the database changes.
      await svc.ctx.store.query("UPDATE api_keys SET revoked_at = now() WHERE key = $1", [
        client.key,
      ]);
      svc.clock.now += 1_000;
      await expectRefused(
        () => signedRequest(svc, client, "POST", "/probe/submit", body),
        401,
        "AUTH_KEY_REVOKED",
      );
    });

    it("should refuse a replayed signature", async () => {
      const headers = signedHeaders(client.key, client.secret, body, String(svc.clock.now));
      expect((await post(headers)).status).to.equal(202);
      await expectRefused(() => post(headers), 401, "AUTH_REPLAYED_SIGNATURE");
    });

    it("should accept the old secret during a rotation and refuse it once the rotation ends", async () => {
      const rotated = await rotateApiKey(
        svc.ctx.store,
        svc.ctx.masterKey,
        client.key,
        3600,
        svc.clock.now,
      );
      const next = { key: client.key, secret: rotated.secret };
      expect((await signedRequest(svc, client, "POST", "/probe/submit", body)).status).to.equal(
        202,
      );
      svc.clock.now += 1;
      expect((await signedRequest(svc, next, "POST", "/probe/submit", body)).status).to.equal(202);
      await finishRotation(svc.ctx.store, client.key);
      svc.clock.now += 1;
      await expectRefused(
        () => signedRequest(svc, client, "POST", "/probe/submit", body),
        401,
        "AUTH_BAD_SIGNATURE",
      );
      expect((await signedRequest(svc, next, "POST", "/probe/submit", body)).status).to.equal(202);
    });

    it("should refuse the old secret after the rotation's grace period", async () => {
      const rotated = await rotateApiKey(
        svc.ctx.store,
        svc.ctx.masterKey,
        client.key,
        60,
        svc.clock.now,
      );
      expect((await signedRequest(svc, client, "POST", "/probe/submit", body)).status).to.equal(
        202,
      );
      svc.clock.now += 61_000;
      await expectRefused(
        () => signedRequest(svc, client, "POST", "/probe/submit", body),
        401,
        "AUTH_BAD_SIGNATURE",
      );
      const next = { key: client.key, secret: rotated.secret };
      expect((await signedRequest(svc, next, "POST", "/probe/submit", body)).status).to.equal(202);
    });

    it("should refuse a body over 1 MiB with 413, declared or streamed", async () => {
      const big = JSON.stringify({ name: "x".repeat(MAX_BODY_BYTES) });
      await expectRefused(
        () => signedRequest(svc, client, "POST", "/probe/submit", big),
        413,
        "PAYLOAD_TOO_LARGE",
      );
      // No Content-Length: the limit applies while reading.
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 17; i++) controller.enqueue(new Uint8Array(65_536).fill(0x20));
          controller.close();
        },
      });
      const headers = signedHeaders(client.key, client.secret, "", String(svc.clock.now));
      await expectRefused(
        () =>
          svc.app.request("/probe/submit", {
            method: "POST",
            headers: { "Content-Type": "application/json", ...headers },
            body: stream,
            duplex: "half",
          } as RequestInit),
        413,
        "PAYLOAD_TOO_LARGE",
      );
    });

    it("should accept a body of exactly 1 MiB", async () => {
      const padding = MAX_BODY_BYTES - JSON.stringify({ name: "" }).length;
      const exact = JSON.stringify({ name: "y".repeat(padding) });
      expect(Buffer.byteLength(exact)).to.equal(MAX_BODY_BYTES);
      expect((await signedRequest(svc, client, "POST", "/probe/submit", exact)).status).to.equal(
        202,
      );
    });

    for (const type of ["text/plain", "application/xml", "multipart/form-data; boundary=x", ""]) {
      it(`should refuse Content-Type ${JSON.stringify(type)} with 415`, async () => {
        await expectRefused(
          () => signedRequest(svc, client, "POST", "/probe/submit", body, { "Content-Type": type }),
          415,
          "UNSUPPORTED_MEDIA_TYPE",
        );
      });
    }

    it("should rate-limit a free key at 20 requests per minute with Retry-After", async () => {
      const free = await newKey(svc, "free");
      svc.clock.now = Math.floor(Date.now() / 60_000) * 60_000 + 15_000; // 45 s left in the window
      for (let i = 0; i < 20; i++) {
        svc.clock.now += 1;
        const res = await signedRequest(svc, free, "POST", "/probe/submit", body);
        expect(res.status).to.equal(202);
        expect(res.headers.get("x-ratelimit-remaining")).to.equal(String(19 - i));
      }
      svc.clock.now += 1;
      const before = await counts(svc);
      const refusedHeaders = signedHeaders(free.key, free.secret, body, String(svc.clock.now));
      const res = await post(refusedHeaders);
      expect(res.status).to.equal(429);
      const json = (await res.json()) as { error: string; detail: string; retry_in: number };
      expect(json.error).to.equal("RATE_LIMITED");
      expect(res.headers.get("retry-after")).to.equal("45");
      expect(json.retry_in).to.equal(45);
      // Nothing stored, queued or counted, and the signature was not used up.
      expect(await counts(svc)).to.deep.equal(before);
      // After Retry-After the same signed request is admitted (its timestamp is still in the window).
      svc.clock.now += 45_000;
      expect((await post(refusedHeaders)).status).to.equal(202);
    });

    it("should answer a body failing the route schema with VALIDATION_FAILED and issues", async () => {
      const bad = JSON.stringify({ name: "" });
      const before = await counts(svc);
      const res = await signedRequest(svc, client, "POST", "/probe/submit", bad);
      expect(res.status).to.equal(400);
      const json = (await res.json()) as {
        error: string;
        issues: { path: string; message: string }[];
      };
      expect(json.error).to.equal("VALIDATION_FAILED");
      expect(json.issues[0]!.path).to.equal("name");
      expect((await counts(svc)).submissions).to.equal(before.submissions);
    });

    it("should answer malformed JSON with 400 MALFORMED_BODY", async () => {
      const res = await signedRequest(svc, client, "POST", "/probe/submit", "{not json");
      expect(res.status).to.equal(400);
      expect(((await res.json()) as { error: string }).error).to.equal("MALFORMED_BODY");
    });

    it("should accept Bearer on compliance paths only", async () => {
      const ok = await svc.app.request("/compliance/probe", {
        method: "POST",
        headers: { Authorization: `Bearer ${client.key}` },
      });
      expect(ok.status).to.equal(200);
      expect(await ok.json()).to.deep.equal({ method: "bearer" });
      await expectRefused(
        () =>
          svc.app.request("/compliance/probe", {
            method: "POST",
            headers: { Authorization: `Basic abc` },
          }),
        401,
        "AUTH_MALFORMED_AUTHORIZATION",
      );
      await expectRefused(
        () =>
          svc.app.request("/compliance/probe", {
            method: "POST",
            headers: { Authorization: `Bearer vfk_unknown000000` },
          }),
        401,
        "AUTH_UNKNOWN_KEY",
      );
      await expectRefused(
        () => post({ Authorization: `Bearer ${client.key}` }),
        401,
        "AUTH_MISSING_KEY",
      );
    });

    it("should serve health, metrics and docs without authentication", async () => {
      for (const path of [
        "/healthz",
        "/metrics",
        "/openapi.json",
        "/docs",
        "/docs/swagger-ui.css",
      ]) {
        const res = await svc.app.request(path);
        expect(res.status, path).to.equal(200);
      }
      const metrics = await (await svc.app.request("/metrics")).text();
      expect(metrics).to.include('veriflow_queue_jobs{queue="workflow.execute",state="ready"}');
      expect(metrics).to.match(
        /veriflow_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/,
      );
      const ready = await svc.app.request("/readyz");
      expect(ready.status).to.equal(503); // no chains in this service
      const json = (await ready.json()) as { checks: { database: { ok: boolean } } };
      expect(json.checks.database.ok).to.equal(true);
    });

    describe("## on the real submission routes", () => {
      const workflow = JSON.stringify({
        name: "matrix",
        schedule: "0 9 * * 1",
        actions: [{ type: "swap", from: "USDC", to: "DAI", amount: "10", slippage: 0.5 }],
      });
      const yaml =
        "name: matrix\nactions:\n  - action: swap\n    params: {from: USDC, to: DAI, amount: 10}\n";
      const cases: Array<{
        name: string;
        status: number;
        error: string;
        send: (path: string, body: string, type: string) => Response | Promise<Response>;
      }> = [
        {
          name: "no signature headers",
          status: 401,
          error: "AUTH_MISSING_KEY",
          send: (path, body, type) =>
            svc.app.request(path, { method: "POST", headers: { "Content-Type": type }, body }),
        },
        {
          name: "a bad signature",
          status: 401,
          error: "AUTH_BAD_SIGNATURE",
          send: (path, body, type) =>
            signedRequest(
              svc,
              { key: client.key, secret: "vfs_wrong_secret_value" },
              "POST",
              path,
              body,
              {
                "Content-Type": type,
              },
            ),
        },
        {
          name: "a stale timestamp",
          status: 401,
          error: "AUTH_TIMESTAMP_EXPIRED",
          send: (path, body, type) =>
            signedRequest(
              svc,
              client,
              "POST",
              path,
              body,
              { "Content-Type": type },
              String(svc.clock.now - 301_000),
            ),
        },
        {
          name: "a revoked key",
          status: 401,
          error: "AUTH_KEY_REVOKED",
          send: async (path, body, type) => {
            const revoked = await newKey(svc, "enterprise");
            await revokeApiKey(svc.ctx.store, revoked.key, cancelExecutionsOfKey);
            return signedRequest(svc, revoked, "POST", path, body, { "Content-Type": type });
          },
        },
        {
          name: "a body over 1 MiB",
          status: 413,
          error: "PAYLOAD_TOO_LARGE",
          send: (path, _body, type) =>
            signedRequest(svc, client, "POST", path, " ".repeat(MAX_BODY_BYTES + 1), {
              "Content-Type": type,
            }),
        },
        {
          name: "a text/plain body",
          status: 415,
          error: "UNSUPPORTED_MEDIA_TYPE",
          send: (path, body) =>
            signedRequest(svc, client, "POST", path, body, { "Content-Type": "text/plain" }),
        },
      ];
      for (const target of ["/v1/workflows", "/workflows/deploy"]) {
        for (const form of ["application/json", "application/yaml"]) {
          for (const c of cases) {
            it(`should refuse ${c.name} on POST ${target} (${form}) and store nothing`, async () => {
              await expectRefused(
                () => c.send(target, form === "application/json" ? workflow : yaml, form),
                c.status,
                c.error,
              );
            });
          }
        }
      }

      it("should refuse a submission over the rate with 429 and store nothing", async () => {
        const free = await newKey(svc, "free");
        svc.clock.now = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;
        for (let i = 0; i < 20; i++) {
          svc.clock.now += 1;
          expect((await signedRequest(svc, free, "GET", "/v1/nothing")).status).to.equal(404);
        }
        svc.clock.now += 1;
        const res = await expectRefused(
          () => signedRequest(svc, free, "POST", "/v1/workflows", workflow),
          429,
          "RATE_LIMITED",
        );
        expect(res.headers.get("retry-after")).to.equal("59");
      });

      it("should refuse a replayed submission and store nothing", async () => {
        const headers = signedHeaders(client.key, client.secret, workflow, String(svc.clock.now));
        await svc.app.request("/v1/workflows", {
          method: "POST",
          headers: { "Content-Type": "application/json", ...headers },
          body: workflow,
        });
        await expectRefused(
          () =>
            svc.app.request("/v1/workflows", {
              method: "POST",
              headers: { "Content-Type": "application/json", ...headers },
              body: workflow,
            }),
          401,
          "AUTH_REPLAYED_SIGNATURE",
        );
      });
    });

    it("should publish an OpenAPI 3.1 document with the security schemes", async () => {
      const doc = (await (await svc.app.request("/openapi.json")).json()) as {
        openapi: string;
        security: unknown[];
        components: { securitySchemes: Record<string, { type: string; name?: string }> };
        paths: Record<string, unknown>;
      };
      expect(doc.openapi).to.equal("3.1.0");
      expect(doc.components.securitySchemes.ApiKey).to.include({
        type: "apiKey",
        name: "X-SVC-Key",
      });
      expect(doc.components.securitySchemes.Signature!.name).to.equal("X-SVC-Signature");
      expect(doc.components.securitySchemes.Timestamp!.name).to.equal("X-SVC-Timestamp");
      expect(doc.components.securitySchemes.BearerApiKey).to.include({ type: "http" });
      expect(doc.security).to.deep.equal([{ ApiKey: [], Signature: [], Timestamp: [] }]);
      expect(doc.paths).to.have.property("/readyz");
      const page = await (await svc.app.request("/docs")).text();
      expect(page)
        .to.include("/docs/swagger-ui-bundle.js")
        .and.not.match(/https?:\/\//);
    });

    it("should require authentication on unknown paths and answer 404 once authenticated", async () => {
      await expectRefused(() => svc.app.request("/v1/nothing"), 401, "AUTH_MISSING_KEY");
      const res = await signedRequest(svc, client, "GET", "/v1/nothing");
      expect(res.status).to.equal(404);
      expect(((await res.json()) as { error: string }).error).to.equal("NOT_FOUND");
    });

    it("should answer an unexpected error with 500 and no internal detail", async () => {
      const res = await signedRequest(svc, client, "GET", "/probe/crash");
      expect(res.status).to.equal(500);
      const text = await res.text();
      const json = JSON.parse(text) as { error: string; detail: string };
      expect(json.error).to.equal("INTERNAL_ERROR");
      expect(json.detail).to.include(res.headers.get("x-request-id")!);
      expect(text).to.not.include("secret internal detail");
      expect(text).to.not.include("app.ts");
    });
  });
}
