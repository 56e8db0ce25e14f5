import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { expect } from "chai";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { MAX_BODY_BYTES } from "../../../relayer/http/body.ts";
import { newKey, startTestService, type TestService } from "../../fixtures/platform.ts";

/**
 * The body limit and the signed bytes over a real socket: under @hono/node-server the relayer
 * reads the body from Node's request directly (not through a web stream), so these cases run
 * against a listening server, with bodies sent in chunks and without Content-Length.
 */
describe("# request bodies over a real socket (Node server)", function () {
  this.timeout(60_000);
  let svc: TestService;
  let server: ServerType;
  let port: number;
  let client: { key: string; secret: string };
  const seen: string[] = [];

  before(async () => {
    svc = await startTestService({
      mount: (s) => {
        s.app.post("/probe/echo", async (c) => {
          const text = await c.req.text();
          seen.push(text);
          return c.json(
            { bytes: Buffer.byteLength(text), name: (JSON.parse(text) as { name: string }).name },
            202,
          );
        });
      },
    });
    server = serve({ fetch: svc.app.fetch, hostname: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await svc?.close();
  });
  beforeEach(async () => {
    client = await newKey(svc, "enterprise");
    svc.clock.now = Date.now();
    seen.length = 0;
  });

  /** POSTs `chunks` (chunked transfer encoding unless `contentLength`), signed over their bytes. */
  function post(
    chunks: Buffer[],
    options: { contentLength?: boolean; sign?: Buffer; contentType?: string } = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const body = Buffer.concat(chunks);
    const headers: Record<string, string> = {
      "Content-Type": options.contentType ?? "application/json",
      ...signedHeaders(client.key, client.secret, options.sign ?? body, String(svc.clock.now)),
    };
    if (options.contentLength) headers["Content-Length"] = String(body.byteLength);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: "127.0.0.1", port, method: "POST", path: "/probe/echo", headers },
        (res) => {
          const parts: Buffer[] = [];
          res.on("data", (d: Buffer) => parts.push(d));
          res.on("end", () =>
            resolve({
              status: res.statusCode!,
              body: JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>,
            }),
          );
        },
      );
      // A refused upload may be cut off by the server before it is all sent.
      req.on("error", reject);
      const write = (i: number) => {
        if (i === chunks.length) return void req.end();
        if (req.write(chunks[i]!)) setImmediate(() => write(i + 1));
        else req.once("drain", () => write(i + 1));
      };
      write(0);
    });
  }

  const jsonBody = (name: string) => Buffer.from(JSON.stringify({ name }));
  const split = (bytes: Buffer, size: number) =>
    Array.from({ length: Math.ceil(bytes.byteLength / size) }, (_, i) =>
      bytes.subarray(i * size, (i + 1) * size),
    );

  it("should verify the signature over a body that arrives in many chunks, and hand the route those exact bytes", async () => {
    const body = jsonBody("chunked ✓ ünïcode split across chunks");
    const res = await post(split(body, 7));
    expect(res.status).to.equal(202);
    expect(seen).to.deep.equal([body.toString("utf8")]);
    expect(res.body.bytes).to.equal(body.byteLength);
  });

  it("should refuse a body whose signature covers other bytes (401), chunked or not", async () => {
    const body = jsonBody("tampered");
    const other = jsonBody("tampereD");
    for (const contentLength of [false, true]) {
      const res = await post(split(body, 5), { sign: other, contentLength });
      expect(res.status).to.equal(401);
      expect(res.body.error).to.equal("AUTH_BAD_SIGNATURE");
    }
    expect(seen).to.deep.equal([]);
  });

  it("should refuse a charset other than UTF-8 with 415 before the route, and read UTF-8 declared any way", async () => {
    // "Ã©" in Latin-1 is the bytes of "é" in UTF-8: read as UTF-8 it would be other text.
    const latin1 = Buffer.from('{"name":"CafÃ©"}', "latin1");
    for (const contentType of [
      "application/json; charset=latin1",
      "application/json; charset=ISO-8859-1",
      'application/json; charset="utf-16"',
      "application/json;charset=windows-1252",
    ]) {
      const res = await post([latin1], { contentType, contentLength: true });
      expect([res.status, res.body.error], contentType).to.deep.equal([
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      ]);
      expect(res.body.detail).to.match(/^charset ".+" is not accepted: bodies are UTF-8/);
    }
    expect(seen).to.deep.equal([]);
    for (const [i, contentType] of [
      "application/json; charset=utf-8",
      "application/json;charset=UTF-8",
      'application/json; charset="utf-8"',
      "application/json; charset=utf8",
      "application/json; foo=bar",
    ].entries()) {
      // Another body each: the same one signed at the same instant is a replay.
      const res = await post([jsonBody(`café ${i}`)], { contentType, contentLength: true });
      expect([res.status, res.body.name], contentType).to.deep.equal([202, `café ${i}`]);
    }
  });

  it("should accept exactly 1 MiB sent without Content-Length", async () => {
    const padding = MAX_BODY_BYTES - jsonBody("").byteLength;
    const body = jsonBody("y".repeat(padding));
    expect(body.byteLength).to.equal(MAX_BODY_BYTES);
    const res = await post(split(body, 65_536));
    expect(res.status).to.equal(202);
    expect(res.body.bytes).to.equal(MAX_BODY_BYTES);
  });

  it("should refuse a streamed body past 1 MiB with 413 before reaching the route, and keep serving", async () => {
    const body = jsonBody("z".repeat(MAX_BODY_BYTES));
    const res = await post(split(body, 65_536));
    expect(res.status).to.equal(413);
    expect(res.body.error).to.equal("PAYLOAD_TOO_LARGE");
    expect(seen).to.deep.equal([]);
    const next = await post([jsonBody("after the refusal")], { contentLength: true });
    expect(next.status).to.equal(202);
    expect(next.body.name).to.equal("after the refusal");
  });
});
