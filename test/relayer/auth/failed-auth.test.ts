import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { expect } from "chai";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { DEFAULT_FAILED_AUTH_PER_MINUTE } from "../../../relayer/auth/failures.ts";
import { newApiKey, startInProcessRelayer, type InProcessRelayer } from "../../fixtures/relayer.ts";

/** Over a real socket: the limit is per source address, which only a network peer has. */
describe("# failed authentications per source address", function () {
  this.timeout(120_000);
  let relayer: InProcessRelayer;
  let server: ServerType;
  let base: string;

  before(async () => {
    relayer = await startInProcessRelayer({ label: "failed-auth" });
    server = serve({ fetch: relayer.app.fetch, hostname: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await relayer?.close();
  });

  it(`should answer 429 AUTH_TOO_MANY_FAILURES after ${DEFAULT_FAILED_AUTH_PER_MINUTE} failures in a minute, before looking at the request`, async () => {
    const client = await newApiKey(relayer.ctx, "enterprise");
    const guess = (i: number) =>
      fetch(`${base}/v1/workflows`, {
        headers: signedHeaders(`vfk_guess_${i}`, "not-the-secret", ""),
      });
    for (let i = 0; i < DEFAULT_FAILED_AUTH_PER_MINUTE; i++) {
      const res = await guess(i);
      expect(res.status, `attempt ${i}`).to.equal(401);
      await res.body?.cancel();
    }
    const blocked = await guess(DEFAULT_FAILED_AUTH_PER_MINUTE);
    expect(blocked.status).to.equal(429);
    expect(Number(blocked.headers.get("retry-after"))).to.be.within(1, 60);
    const body = (await blocked.json()) as { error: string; detail: string };
    expect(body.error).to.equal("AUTH_TOO_MANY_FAILURES");
    // Even a correctly signed request from that address waits for the window to end.
    const valid = await fetch(`${base}/v1/workflows`, {
      headers: signedHeaders(client.key, client.secret, ""),
    });
    expect(valid.status).to.equal(429);
    await valid.body?.cancel();
  });
});
