import { expect } from "chai";
import {
  newApiKey,
  signedRequest,
  startInProcessRelayer,
  type InProcessRelayer,
} from "../../fixtures/relayer.ts";

describe("# Bearer requests count in their own rate bucket", function () {
  this.timeout(120_000);
  let relayer: InProcessRelayer;

  before(async () => {
    relayer = await startInProcessRelayer({ label: "bearer-bucket" });
  });
  after(async () => {
    await relayer?.close();
  });

  it("should stop Bearer requests at the tier's rate while signed requests of the same key go on", async () => {
    const client = await newApiKey(relayer.ctx, "free");
    const limit = relayer.ctx.limits.free.requestsPerMinute;
    const bearer = () =>
      relayer.app.request("/v1/compliance/specs", {
        headers: { Authorization: `Bearer ${client.key}` },
      });
    for (let i = 0; i < limit; i++) {
      const res = await bearer();
      expect(res.status, `Bearer request ${i}`).to.equal(200);
    }
    const over = await bearer();
    expect(over.status).to.equal(429);
    expect(((await over.json()) as { error: string }).error).to.equal("RATE_LIMITED");
    // The key holder's signed requests still have their whole budget.
    const signed = await signedRequest(relayer.app, client, "GET", "/v1/compliance/specs");
    expect(signed.status).to.equal(200);
    expect(signed.headers.get("x-ratelimit-remaining")).to.equal(String(limit - 1));
  });
});
