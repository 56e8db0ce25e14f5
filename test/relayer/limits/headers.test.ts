import { expect } from "chai";
import { encodeArtifact } from "../../../relayer/artifacts/store.ts";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { listen, type RunningServer } from "../../../relayer/http/server.ts";
import {
  newApiKey,
  startInProcessRelayer,
  type Credentials,
  type InProcessRelayer,
} from "../../fixtures/relayer.ts";

/**
 * The rate limit's headers (`X-RateLimit-Limit`, `-Remaining`, `-Reset`) on every answer to an
 * admitted request, over the real HTTP server: a route's JSON, a route's refusal and a streamed
 * CAR download (a response the route builds around a stream).
 */
describe("# rate-limit headers on every admitted answer", function () {
  this.timeout(120_000);
  let relayer: InProcessRelayer;
  let server: RunningServer;
  let client: Credentials & { id: string };
  let last = 0;

  before(async () => {
    relayer = await startInProcessRelayer({ label: "rate-headers" });
    server = await listen(relayer.app, "127.0.0.1", 0);
    client = await newApiKey(relayer.ctx, "pro");
  });
  after(async () => {
    await server?.close(0);
    await relayer?.close();
  });

  function send(method: "GET" | "POST", target: string, body?: string): Promise<Response> {
    last = Math.max(Date.now(), last + 1);
    return fetch(`${server.url}${target}`, {
      method,
      headers: {
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...signedHeaders(client.key, client.secret, body ?? "", String(last), { method, target }),
      },
      ...(body !== undefined ? { body } : {}),
    });
  }

  function expectRateHeaders(res: Response, remaining: number, what: string): void {
    const limit = relayer.ctx.limits.pro.requestsPerMinute;
    expect(res.headers.get("x-ratelimit-limit"), what).to.equal(String(limit));
    expect(res.headers.get("x-ratelimit-remaining"), what).to.equal(String(remaining));
    expect(Number(res.headers.get("x-ratelimit-reset")), what).to.be.greaterThan(
      Math.floor(Date.now() / 1000) - 1,
    );
  }

  it("should send them with a route's JSON, a route's refusal and a CAR download, each counting one request", async () => {
    const limit = relayer.ctx.limits.pro.requestsPerMinute;
    const stored = await send("POST", "/artifacts", JSON.stringify({ n: 1 }));
    expect(stored.status).to.equal(201);
    const { cid } = (await stored.json()) as { cid: string };
    expectRateHeaders(stored, limit - 1, "stored");

    const got = await send("GET", `/artifacts/${cid}`);
    expect(got.status).to.equal(200);
    expect(got.headers.get("content-length")).to.equal(String((await got.text()).length));
    expectRateHeaders(got, limit - 2, "read");

    const absent = (await encodeArtifact({ never: "stored" })).cid.toString();
    const missing = await send("GET", `/artifacts/${absent}`);
    expect(missing.status).to.equal(404);
    expect(((await missing.json()) as { error: string }).error).to.equal("ARTIFACT_NOT_FOUND");
    expectRateHeaders(missing, limit - 3, "refusal");

    const car = await send("GET", `/artifacts/${cid}/car`);
    expect(car.status).to.equal(200);
    expect(car.headers.get("content-type")).to.match(/^application\/vnd\.ipld\.car/);
    const bytes = new Uint8Array(await car.arrayBuffer());
    expect(car.headers.get("content-length")).to.equal(String(bytes.length));
    expectRateHeaders(car, limit - 4, "CAR");
  });
});
