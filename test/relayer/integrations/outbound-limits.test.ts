import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { IntegrationError } from "../../../relayer/integrations/index.ts";
import { MAX_RESPONSE_BYTES } from "../../../relayer/integrations/errors.ts";
import { startCrm, type StandIn } from "../../fixtures/standins/index.ts";
import {
  entry,
  HMAC_KEY,
  JWT_SECRET,
  openIntegrationWorld,
  type IntegrationWorld,
} from "./world.ts";

/**
 * Outbound calls are bounded: a redirect is never followed (the signed request and its JWT stay
 * with the configured system) and an answer above MAX_RESPONSE_BYTES is not read. Either way
 * nothing is recorded, so nothing is published on chain.
 */
describe("# outbound integration calls: no redirects, bounded answers", function () {
  this.timeout(120_000);
  let world: IntegrationWorld;
  let crm: StandIn;
  let elsewhere: Server;
  let elsewhereUrl: string;
  const elsewhereHits: string[] = [];

  before(async function () {
    world = await openIntegrationWorld();
    crm = await startCrm({ jwtSecret: JWT_SECRET, hmacKey: HMAC_KEY });
    elsewhere = createServer((req, res) => {
      elsewhereHits.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"data":[],"hmac":"00"}');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  });
  after(async function () {
    await crm?.close();
    await new Promise<void>((resolve) =>
      elsewhere ? elsewhere.close(() => resolve()) : resolve(),
    );
    await world?.close();
  });

  const interactions = async () =>
    Number(
      (
        await world.store.query<{ n: string }>("SELECT count(*) AS n FROM integration_interactions")
      )[0]!.n,
    );

  async function refusal(p: Promise<unknown>): Promise<IntegrationError> {
    try {
      await p;
    } catch (err) {
      expect(err).to.be.instanceOf(IntegrationError);
      return err as IntegrationError;
    }
    throw new Error("expected a refusal");
  }

  it("should refuse a redirect without following it, recording nothing", async function () {
    const integrations = world.build({ integrations: { crm: entry(crm.url) } });
    crm.setPublicKey(await world.publicKey("crm"));
    const before = await interactions();
    for (const status of [301, 302, 307, 308]) {
      crm.failNext(status, 1, { Location: `${elsewhereUrl}/steal` });
      const err = await refusal(
        integrations.client("crm").call({
          method: "GET",
          path: "/crm/orders",
          query: { status: "unpaid" },
          headers: { "X-Blockchain-Proof": "true" },
        }),
      );
      expect(err.code).to.equal("INTEGRATION_REDIRECT_REFUSED");
      expect(err.status).to.equal(status);
    }
    expect(elsewhereHits).to.deep.equal([]);
    expect(await interactions()).to.equal(before);
  });

  it(`should refuse an answer above ${MAX_RESPONSE_BYTES} bytes unread, recording and anchoring nothing`, async function () {
    const integrations = world.build({ integrations: { crm: entry(crm.url) } });
    crm.setPublicKey(await world.publicKey("crm"));
    const before = await interactions();
    crm.override(() => ({
      status: 200,
      body: null,
      raw: `{"data":"${"x".repeat(MAX_RESPONSE_BYTES)}"}`,
    }));
    try {
      const err = await refusal(
        integrations.client("crm").call({
          method: "GET",
          path: "/crm/orders",
          headers: { "X-Blockchain-Proof": "true" },
        }),
      );
      expect(err.code).to.equal("INTEGRATION_RESPONSE_TOO_LARGE");
    } finally {
      crm.override(null);
    }
    expect(await interactions()).to.equal(before);
    // An answer within the bound still goes through (and is anchored).
    const ok = await integrations.client("crm").call({
      method: "GET",
      path: "/crm/orders",
      query: { status: "unpaid" },
      headers: { "X-Blockchain-Proof": "true" },
    });
    expect(ok.status).to.equal(200);
    expect(await interactions()).to.equal(before + 1);
  });
});
