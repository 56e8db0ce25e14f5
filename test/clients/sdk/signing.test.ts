import { expect } from "chai";
import { signedTarget, signPayloadV2, verifyHmac } from "../../../relayer/auth/hmac.ts";
import { hmacSigning, signingClock, signRequest } from "../../../clients/sdk/index.ts";

const CREDS = { apiKey: "vfk_test_signing", signingSecret: "s".repeat(32) };

/** Whether `request` carries a version 2 signature by `secret` for its own method, target and body. */
async function verifies(request: Request, secret: string): Promise<boolean> {
  const body = new Uint8Array(await request.clone().arrayBuffer());
  const url = new URL(request.url);
  return verifyHmac([secret], request.headers.get("X-SVC-Signature") ?? "", (s) =>
    signPayloadV2(
      s,
      signedTarget(request.method, url.pathname + url.search),
      request.headers.get("X-SVC-Timestamp") ?? "",
      body,
    ),
  );
}

describe("# SDK signing", function () {
  describe("# signingClock", function () {
    it("should follow the clock when it moves and step one past the last stamp when it does not", function () {
      let now = 1_700_000_000_000;
      const stamp = signingClock(() => now);
      expect([stamp(), stamp(), stamp()]).to.deep.equal([now, now + 1, now + 2]);
      now += 10;
      expect(stamp()).to.equal(now);
    });

    it("should never repeat or go back when the clock is set back", function () {
      let now = 1_700_000_000_000;
      const stamp = signingClock(() => now);
      const first = stamp();
      now -= 60_000;
      const after = [stamp(), stamp()];
      expect(after).to.deep.equal([first + 1, first + 2]);
    });

    it("should keep one sequence per clock", function () {
      const now = () => 1_700_000_000_000;
      const a = signingClock(now);
      const b = signingClock(now);
      expect([a(), a(), b()]).to.deep.equal([now(), now() + 1, now()]);
    });
  });

  describe("# signRequest", function () {
    it("should sign with the stamp given, over the method, target and body", async function () {
      const request = new Request("http://127.0.0.1:1/v1/workflows?limit=5", {
        method: "POST",
        body: '{"name":"w"}',
        headers: { "Content-Type": "application/json" },
      });
      const signed = await signRequest(request, CREDS, 1_700_000_000_123);
      expect(signed.headers.get("X-SVC-Timestamp")).to.equal("1700000000123");
      expect(signed.headers.get("X-SVC-Key")).to.equal(CREDS.apiKey);
      expect(await verifies(signed, CREDS.signingSecret)).to.equal(true);
      expect(await verifies(signed, "t".repeat(32))).to.equal(false);
      expect(await signed.text()).to.equal('{"name":"w"}');
    });
  });

  describe("# hmacSigning", function () {
    it("should give identical requests signed at once distinct stamps and signatures, each valid", async function () {
      const middleware = hmacSigning(CREDS);
      const signed = (await Promise.all(
        Array.from({ length: 20 }, () =>
          middleware.onRequest!({
            request: new Request("http://127.0.0.1:1/v1/workflows?limit=5"),
          } as never),
        ),
      )) as Request[];
      const stamps = signed.map((r) => r.headers.get("X-SVC-Timestamp"));
      const signatures = signed.map((r) => r.headers.get("X-SVC-Signature"));
      expect(new Set(stamps).size).to.equal(20);
      expect(new Set(signatures).size).to.equal(20);
      for (const r of signed) expect(await verifies(r, CREDS.signingSecret)).to.equal(true);
    });
  });
});
