import { request as httpRequest } from "node:http";
import { expect } from "chai";
import { setSignaturePolicy } from "../../../relayer/auth/keys.ts";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { listen, type RunningServer } from "../../../relayer/http/server.ts";
import type { ChainSet } from "../../../relayer/chains/index.ts";
import { SPEC_JSON_WORKFLOW } from "../../fixtures/catalogue.ts";
import {
  newClient,
  openDevnetChains,
  startWorkflowService,
  type Client,
  type WorkflowService,
} from "../../fixtures/workflow-service.ts";

/**
 * Signature version 2 (method, path, query, timestamp and body hash signed) next to the spec's
 * version 1, per-key policies, and the order of checks: the headers are authenticated before the
 * body is read. On the real app with the embedded devnet (schedules need the workflow intake).
 */
describe("# signature version 2 and header-first authentication", function () {
  this.timeout(180_000);
  let chains: ChainSet;
  let svc: WorkflowService;
  let alice: Client;
  let lastTimestamp = 0;
  const stamp = () => String((lastTimestamp = Math.max(Date.now(), lastTimestamp + 1)));

  /** Sends `headers` (signed for some other request, maybe) with this method, target and body. */
  const send = (method: string, target: string, headers: Record<string, string>, body?: string) =>
    svc.app.request(target, {
      method,
      headers: {
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body } : {}),
    });
  const v1 = (who: Client, body = "") => signedHeaders(who.key, who.secret, body, stamp());
  const v2 = (who: Client, method: string, target: string, body = "") =>
    signedHeaders(who.key, who.secret, body, stamp(), { method, target });
  const error = async (res: Response) => ((await res.json()) as { error: string }).error;

  async function newSchedule(): Promise<string> {
    const res = await alice.request(
      "POST",
      "/v1/workflows",
      JSON.stringify({ ...SPEC_JSON_WORKFLOW, name: `sched-${stamp()}` }),
    );
    expect(res.status, await res.clone().text()).to.equal(202);
    return ((await res.json()) as { schedule: { id: string } }).schedule.id;
  }
  const scheduleExists = async (id: string) =>
    (
      await svc.ctx.store.query(
        "SELECT 1 FROM workflow_schedules WHERE id = $1 AND deleted_at IS NULL",
        [id],
      )
    ).length === 1;

  before(async function () {
    chains = await openDevnetChains();
    svc = await startWorkflowService(chains);
    alice = await newClient(svc);
  });
  after(async function () {
    await svc?.close();
    await chains?.close();
  });

  it("should refuse the replay found in review: headers signed for GET /v1/schedules sent first to DELETE /v1/schedules/{id}", async function () {
    const id = await newSchedule();
    // Version 1 (what the finding used): a bodyless DELETE needs version 2.
    const legacy = v1(alice);
    const refused = await send("DELETE", `/v1/schedules/${id}`, legacy);
    expect(refused.status).to.equal(401);
    expect(await error(refused)).to.equal("AUTH_SIGNATURE_V2_REQUIRED");
    expect(await scheduleExists(id)).to.equal(true);
    // The GET those headers were made for still works (the refused replay did not spend them).
    expect((await send("GET", "/v1/schedules", legacy)).status).to.equal(200);

    // Version 2 headers for the GET do not authorise the DELETE either.
    const forList = v2(alice, "GET", "/v1/schedules");
    const moved = await send("DELETE", `/v1/schedules/${id}`, forList);
    expect(moved.status).to.equal(401);
    expect(await error(moved)).to.equal("AUTH_BAD_SIGNATURE");
    expect(await scheduleExists(id)).to.equal(true);
    expect((await send("GET", "/v1/schedules", forList)).status).to.equal(200);

    // Signed for the DELETE itself, it deletes.
    const target = `/v1/schedules/${id}`;
    expect((await send("DELETE", target, v2(alice, "DELETE", target))).status).to.equal(200);
    expect(await scheduleExists(id)).to.equal(false);
  });

  it("should bind version 2 to the method, the path and the query", async function () {
    const headers = v2(alice, "GET", "/v1/workflows?limit=1");
    for (const [method, target] of [
      ["GET", "/v1/workflows?limit=2"],
      ["GET", "/v1/workflows"],
      ["GET", "/v1/schedules?limit=1"],
      ["DELETE", "/v1/workflows?limit=1"],
    ] as const) {
      const res = await send(method, target, headers);
      expect(res.status, `${method} ${target}`).to.equal(401);
      expect(await error(res)).to.equal("AUTH_BAD_SIGNATURE");
    }
    expect((await send("GET", "/v1/workflows?limit=1", headers)).status).to.equal(200);
  });

  it("should bind version 2 to the body through its hash", async function () {
    const body = JSON.stringify({ ...SPEC_JSON_WORKFLOW, name: `v2-body-${stamp()}` });
    const headers = v2(alice, "POST", "/v1/workflows", body);
    const other = body.replace("v2-body", "v2-bodz");
    const res = await send("POST", "/v1/workflows", headers, other);
    expect(res.status).to.equal(401);
    expect(await error(res)).to.equal("AUTH_BAD_SIGNATURE");
    expect((await send("POST", "/v1/workflows", headers, body)).status).to.equal(202);
  });

  it("should keep the spec's version 1 for requests with a body, and refuse an unknown version", async function () {
    const body = JSON.stringify({ ...SPEC_JSON_WORKFLOW, name: `v1-${stamp()}` });
    expect((await send("POST", "/v1/workflows", v1(alice, body), body)).status).to.equal(202);
    expect((await send("GET", "/v1/schedules", v1(alice))).status).to.equal(200);
    const three = { ...v1(alice), "X-SVC-Signature-Version": "3" };
    const res = await send("GET", "/v1/schedules", three);
    expect(res.status).to.equal(401);
    expect(await error(res)).to.equal("AUTH_UNSUPPORTED_SIGNATURE_VERSION");
  });

  it("should refuse every version 1 request of a key that requires version 2, and accept version 1 bodyless requests of a key that allows them", async function () {
    const strict = await newClient(svc);
    await setSignaturePolicy(svc.ctx.store, strict.key, { requireV2: true });
    const body = JSON.stringify({ ...SPEC_JSON_WORKFLOW, name: `strict-${stamp()}` });
    for (const [method, target, text] of [
      ["GET", "/v1/schedules", undefined],
      ["POST", "/v1/workflows", body],
    ] as const) {
      const res = await send(method, target, v1(strict, text ?? ""), text);
      expect(res.status, `${method} ${target}`).to.equal(401);
      expect(await error(res)).to.equal("AUTH_SIGNATURE_V2_REQUIRED");
    }
    expect(
      (await send("GET", "/v1/schedules", v2(strict, "GET", "/v1/schedules"))).status,
    ).to.equal(200);

    const lenient = await newClient(svc);
    await setSignaturePolicy(svc.ctx.store, lenient.key, { allowV1Bodyless: true });
    const created = await lenient.request(
      "POST",
      "/v1/workflows",
      JSON.stringify({ ...SPEC_JSON_WORKFLOW, name: `lenient-${stamp()}` }),
    );
    const id = ((await created.json()) as { schedule: { id: string } }).schedule.id;
    expect((await send("DELETE", `/v1/schedules/${id}`, v1(lenient))).status).to.equal(200);
    expect(await scheduleExists(id)).to.equal(false);
  });

  describe("## the headers are authenticated before the body is read", function () {
    let server: RunningServer;
    before(async function () {
      server = await listen(svc.app, "127.0.0.1", 0);
    });
    after(async function () {
      await server?.close(1_000);
    });

    /**
     * Sends the headers of a POST declaring a `declared`-byte body and only 1 KiB of it, and
     * resolves with the status once the relayer answers (or "no answer" when it waits for the
     * rest of the body).
     */
    function partialPost(
      headers: Record<string, string>,
      declared: number,
    ): Promise<number | "no answer"> {
      return new Promise((resolve, reject) => {
        const url = new URL("/v1/workflows", server.url);
        const req = httpRequest(url, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            "Content-Length": String(declared),
            ...headers,
          },
        });
        const timer = setTimeout(() => {
          req.destroy();
          resolve("no answer");
        }, 3_000);
        req.on("response", (res) => {
          clearTimeout(timer);
          res.resume();
          resolve(res.statusCode!);
          req.destroy();
        });
        req.on("error", (err) => {
          if ((err as NodeJS.ErrnoException).code !== "ECONNRESET") reject(err);
        });
        req.write("{".padEnd(1024, " "));
      });
    }

    it("should answer 401 for an unknown key without waiting for its body", async function () {
      const stranger = {
        key: "vfk_nobody_knows_this_key",
        secret: "x".repeat(32),
        id: "",
        request: alice.request,
      };
      expect(await partialPost(v1(stranger), 900_000)).to.equal(401);
    });

    it("should answer 401 for an expired timestamp or a key requiring version 2 without reading the body", async function () {
      const stale = signedHeaders(alice.key, alice.secret, "", String(Date.now() - 400_000));
      expect(await partialPost(stale, 900_000)).to.equal(401);
      const strict = await newClient(svc);
      await setSignaturePolicy(svc.ctx.store, strict.key, { requireV2: true });
      expect(await partialPost(v1(strict), 900_000)).to.equal(401);
    });

    it("should read a known key's body (and wait for it), then check its size: 413 beyond 1 MiB", async function () {
      expect(await partialPost(v1(alice), 900_000)).to.equal("no answer");
      expect(await partialPost(v1(alice), 2 * 1024 * 1024)).to.equal(413);
    });

    it("should answer 401, not 415 or 413, to an unknown key whatever its body's type and size", async function () {
      const stranger = signedHeaders("vfk_nobody_knows_this_key", "x".repeat(32), "", stamp());
      const typed = await svc.app.request("/v1/workflows", {
        method: "POST",
        headers: { "Content-Type": "text/plain", ...stranger },
        body: "x".repeat(2 * 1024 * 1024),
      });
      expect(typed.status).to.equal(401);
      expect(await error(typed)).to.equal("AUTH_UNKNOWN_KEY");
      // A known key's request gets the body's own refusal.
      const known = await svc.app.request("/v1/workflows", {
        method: "POST",
        headers: { "Content-Type": "text/plain", ...v1(alice, "x") },
        body: "x",
      });
      expect(known.status).to.equal(415);
    });
  });
});
