import { Agent, request } from "node:https";
import { expect } from "chai";
import { Wallet } from "ethers";
import { gatewayAddress } from "../../../relayer/integrations/breaker.ts";
import { verifyInteractionOnChain } from "../../../relayer/integrations/index.ts";
import { listInteractions } from "../../../relayer/integrations/anchor.ts";
import { exchange } from "../../../relayer/integrations/exchange.ts";
import { encodeMtlsCredential } from "../../../relayer/integrations/mtls.ts";
import { enableIntegration } from "../../../relayer/integrations/health.ts";
import { putCredential } from "../../../relayer/integrations/vault.ts";
import {
  createMtlsAuthority,
  startCrm,
  type MtlsAuthority,
  type StandIn,
} from "../../fixtures/standins/index.ts";
import { createTestCa, type IssuedCertificate } from "../../fixtures/standins/pki.ts";
import {
  entry,
  HMAC_KEY,
  openIntegrationWorld,
  type IntegrationWorld,
  rejection,
} from "./world.ts";

/** A raw HTTPS request to the stand-in (what a client other than the relayer would send). */
function rawRequest(
  url: string,
  agent: Agent,
  headers: Record<string, string> = {},
): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    const req = request(url, { method: "GET", agent, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on("error", (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end();
  });
}

const CLIENT_ID = "veriflow-relayer";

describe("# oauth2_mtls integrations: client credentials over mutual TLS, certificate-bound tokens", function () {
  this.timeout(240_000);
  let world: IntegrationWorld;
  let authority: MtlsAuthority;
  let crm: StandIn;
  let relayerCert: IssuedCertificate;
  let secondCert: IssuedCertificate;
  let strangerCert: IssuedCertificate;

  const store = (credentialId: string, cert: IssuedCertificate, clientId = CLIENT_ID) =>
    putCredential(
      world.store,
      world.masterKey,
      credentialId,
      encodeMtlsCredential({ clientId, cert: cert.cert, key: cert.key }),
    );

  /** The CRM over oauth2_mtls (its private CA trusted through `auth.ca`). */
  const crmDoc = (
    credentialId = "crm-mtls",
    extra: Record<string, unknown> = {},
    auth: Record<string, unknown> = {},
  ) => ({
    integrations: {
      crm: {
        ...entry(crm.url, extra, {
          response_hmac: { key_vault: "local", credential_id: "crm-hmac" },
        }),
        auth: {
          type: "oauth2_mtls",
          key_vault: "local",
          credential_id: credentialId,
          token_url: crm.tokenUrl,
          scope: "orders.read",
          ca: authority.ca.cert,
          ...auth,
        },
      },
    },
  });
  const orders = { method: "GET", path: "/crm/orders", headers: { "X-Blockchain-Proof": "true" } };
  const interactionCount = async () =>
    Number(
      (
        await world.store.query<{ n: string }>(
          "SELECT count(*) AS n FROM integration_interactions WHERE integration = 'crm'",
        )
      )[0]!.n,
    );

  before(async function () {
    world = await openIntegrationWorld();
    authority = await createMtlsAuthority();
    authority.registerClient(CLIENT_ID, CLIENT_ID);
    relayerCert = await authority.ca.issueClient(CLIENT_ID);
    secondCert = await authority.ca.issueClient(CLIENT_ID);
    // Same subject, another CA: the stand-in must refuse it in the handshake.
    strangerCert = await (await createTestCa("Other CA")).issueClient(CLIENT_ID);
    await store("crm-mtls", relayerCert);
    crm = await startCrm({ mtls: authority, hmacKey: HMAC_KEY });
    crm.setPublicKey(await world.publicKey("crm"));
  });
  after(async function () {
    await crm?.close();
    await world?.close();
  });
  beforeEach(function () {
    crm.hits.length = 0;
    authority.tokenRequests.length = 0;
  });

  it("should fetch one certificate-bound token (client_credentials, form-encoded, over mTLS), reuse it across calls, and anchor each interaction", async function () {
    const client = world.build(crmDoc()).client("crm");
    const results = [];
    for (let i = 0; i < 3; i++)
      results.push(await client.call<{ data: Array<{ id: string }> }>(orders as never));
    expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200]);
    expect(results[0]!.data.data.map((o) => o.id)).to.deep.equal([
      "ord_1001",
      "ord_1002",
      "ord_1003",
    ]);

    expect(authority.tokenRequests).to.have.length(1);
    expect(authority.tokenRequests[0]).to.deep.include({
      clientId: CLIENT_ID,
      grantType: "client_credentials",
      scope: "orders.read",
      contentType: "application/x-www-form-urlencoded",
      thumbprint: relayerCert.thumbprint,
      status: 200,
    });
    const token = authority.tokens.at(-1)!;
    expect(token.cnf["x5t#S256"]).to.equal(relayerCert.thumbprint);
    expect(crm.hits).to.have.length(3);
    for (const hit of crm.hits) {
      expect(hit.tokenValid).to.equal(true);
      expect(hit.signatureValid).to.equal(true);
      expect(hit.headers.authorization).to.equal(`Bearer ${token.accessToken}`);
    }

    const views = await listInteractions(world.store, {
      ids: results.map((r) => r.interactionId),
    });
    expect(views).to.have.length(3);
    const chain = world.chains.list().find((c) => c.deployment.contracts.ProofRegistry)!;
    for (const v of views) {
      expect(v).to.include({ integration: "crm", status: "anchored", mode: "immediate" });
      expect(v.endpoint).to.match(
        new RegExp(`^GET ${crm.url}/crm/orders#veriflow-interaction=[0-9a-f-]{36}$`),
      );
      const check = await verifyInteractionOnChain(chain.contract("ProofRegistry"), v);
      expect(check.valid, check.reason).to.equal(true);
    }
  });

  it("should make one token request for concurrent first calls (single flight)", async function () {
    const client = world.build(crmDoc()).client("crm");
    const results = await Promise.all(
      Array.from({ length: 5 }, () => client.call(orders as never)),
    );
    expect(results.every((r) => r.status === 200)).to.equal(true);
    expect(authority.tokenRequests).to.have.length(1);
    expect(crm.hits).to.have.length(5);
    expect(new Set(crm.hits.map((h) => h.headers.authorization)).size).to.equal(1);
  });

  it("should request a new token shortly before expires_in runs out, without a refused call", async function () {
    let now = Date.now();
    const client = world.build(crmDoc(), { clock: () => now }).client("crm");
    await client.call(orders as never);
    now += (authority.lifetimeSeconds - 60) * 1000; // still inside the lifetime, outside the margin
    await client.call(orders as never);
    expect(authority.tokenRequests).to.have.length(1);
    now += 45_000; // within 30 s of expiry
    await client.call(orders as never);
    expect(authority.tokenRequests).to.have.length(2);
    expect(crm.hits.map((h) => h.tokenValid)).to.deep.equal([true, true, true]);
    expect(crm.hits[2]!.headers.authorization).to.not.equal(crm.hits[0]!.headers.authorization);
  });

  it("should answer a revoked token's 401 with one new token and one retry, recording only the answered call (the credential not suspect: the refused token was a cached one)", async function () {
    const integrations = world.build(crmDoc());
    const client = integrations.client("crm");
    await client.call(orders as never);
    authority.revokeAll();
    const before = await interactionCount();
    const result = await client.call(orders as never);
    expect(result.status).to.equal(200);
    expect(authority.tokenRequests).to.have.length(2);
    expect(crm.hits.map((h) => h.tokenValid)).to.deep.equal([true, false, true]);
    expect(await interactionCount()).to.equal(before + 1);
    expect(await integrations.health.state("crm")).to.deep.equal({ state: "enabled" });
  });

  it("should stop at a second 401 with the rotate error, after exactly one token refresh, and mark the credential suspect by its certificate thumbprint", async function () {
    const integrations = world.build(crmDoc());
    const client = integrations.client("crm");
    crm.failNext(401, 2);
    const err = await rejection(client.call(orders as never));
    expect(err.code).to.equal("INTEGRATION_UNAUTHORIZED");
    expect(err.status).to.equal(401);
    expect(err.message).to.include("401 Unauthorized again with a newly issued access token");
    expect(err.message).to.include("rotate the credential crm-mtls");
    expect(authority.tokenRequests).to.have.length(2);
    expect(crm.hits).to.have.length(2);
    for (const t of authority.tokens) expect(err.message).to.not.include(t.accessToken);
    expect(err.message).to.not.include("PRIVATE KEY");
    expect(err.message).to.include("the credential is suspect (1 of 3");
    expect(await integrations.health.state("crm")).to.include({ state: "suspect" });
    const [alert] = await integrations.health.listAlerts("crm");
    expect(alert!.kind).to.equal("credential_suspect");
    expect(alert!.detail).to.match(/fingerprint x5t#S256 [A-Za-z0-9_-]{43}/);
    expect(alert!.detail).to.not.include("PRIVATE KEY");
    await enableIntegration(world.store, "crm");
  });

  it("should surface a client certificate from another CA as INTEGRATION_TLS_FAILED: no token, no API request, nothing anchored, no breaker report", async function () {
    await store("crm-stranger", strangerCert);
    const client = world.build(crmDoc("crm-stranger")).client("crm");
    const chain = world.chains.list().find((c) => c.deployment.contracts.CircuitBreakerGateway)!;
    const breaker = chain.contract("CircuitBreakerGateway");
    const gateway = gatewayAddress(client.config);
    const failures = Number(await breaker.getFunction("failureCount")(gateway));
    const before = await interactionCount();
    const err = await rejection(client.call(orders as never));
    expect(err.code).to.equal("INTEGRATION_TLS_FAILED");
    expect(err.message).to.match(/token endpoint: the server .*refused the client certificate/);
    expect(err.message).to.not.include("PRIVATE KEY");
    expect(authority.tokenRequests).to.have.length(0);
    expect(crm.hits).to.have.length(0);
    expect(await interactionCount()).to.equal(before);
    expect(Number(await breaker.getFunction("failureCount")(gateway))).to.equal(failures);
  });

  it("should surface a handshake without a client certificate as INTEGRATION_TLS_FAILED (the server's alert named)", async function () {
    const agent = new Agent({ ca: authority.ca.cert });
    try {
      const err = await rejection(
        exchange("crm", agent, new URL(crm.tokenUrl), {
          method: "POST",
          headers: {},
          body: "grant_type=client_credentials",
          timeoutMs: 5_000,
          what: "token endpoint",
        }),
      );
      expect(err.code).to.equal("INTEGRATION_TLS_FAILED");
      expect(err.message).to.include(
        "token endpoint: the server refused the TLS handshake (alert: certificate required)",
      );
      expect(authority.tokenRequests).to.have.length(0);
    } finally {
      agent.destroy();
    }
  });

  it("should refuse a server whose certificate does not chain to auth.ca (or the default roots)", async function () {
    const doc = crmDoc();
    delete (doc.integrations.crm.auth as { ca?: string }).ca;
    const before = await interactionCount();
    const err = await rejection(
      world
        .build(doc)
        .client("crm")
        .call(orders as never),
    );
    expect(err.code).to.equal("INTEGRATION_TLS_FAILED");
    expect(err.message).to.include(
      "token endpoint: the server's certificate is not trusted (SELF_SIGNED_CERT_IN_CHAIN): set auth.ca",
    );
    expect(authority.tokenRequests).to.have.length(0);
    expect(await interactionCount()).to.equal(before);
  });

  it("should have the stand-in refuse a token presented with another certificate (RFC 8705 binding), and use a rotated certificate with a token of its own", async function () {
    const client = world.build(crmDoc()).client("crm");
    await client.call(orders as never);
    const bound = authority.tokens.at(-1)!;
    const ordersUrl = `${crm.url}/crm/orders`;
    const asSecond = new Agent({
      cert: secondCert.cert,
      key: secondCert.key,
      ca: authority.ca.cert,
    });
    const asRelayer = new Agent({
      cert: relayerCert.cert,
      key: relayerCert.key,
      ca: authority.ca.cert,
    });
    try {
      const stolen = await rawRequest(ordersUrl, asSecond, {
        Authorization: `Bearer ${bound.accessToken}`,
      });
      expect(stolen).to.deep.equal({ status: 401 });
      expect(crm.hits.at(-1)!.tokenValid).to.equal(false);
      // Same token, its own certificate: past the token check (the stand-in then wants a signature).
      const own = await rawRequest(ordersUrl, asRelayer, {
        Authorization: `Bearer ${bound.accessToken}`,
      });
      expect(own).to.deep.equal({ status: 403 });
      expect(crm.hits.at(-1)!.tokenValid).to.equal(true);
    } finally {
      asSecond.destroy();
      asRelayer.destroy();
    }

    // The operator rotates the certificate in the vault: the next call presents the new one with
    // a token bound to it (the old token is not sent over the new certificate).
    crm.hits.length = 0;
    authority.tokenRequests.length = 0;
    await store("crm-mtls", secondCert);
    try {
      const result = await client.call(orders as never);
      expect(result.status).to.equal(200);
      expect(authority.tokenRequests).to.have.length(1);
      expect(authority.tokenRequests[0]!.thumbprint).to.equal(secondCert.thumbprint);
      expect(authority.tokens.at(-1)!.cnf["x5t#S256"]).to.equal(secondCert.thumbprint);
      expect(crm.hits.map((h) => h.tokenValid)).to.deep.equal([true]);
    } finally {
      await store("crm-mtls", relayerCert);
    }
  });

  it("should surface the token endpoint's 400 invalid_client as INTEGRATION_TOKEN_REFUSED and call nothing", async function () {
    await store("crm-unregistered", relayerCert, "unregistered-client");
    const before = await interactionCount();
    const err = await rejection(
      world
        .build(crmDoc("crm-unregistered"))
        .client("crm")
        .call(orders as never),
    );
    expect(err.code).to.equal("INTEGRATION_TOKEN_REFUSED");
    expect(err.status).to.equal(400);
    expect(err.message).to.include(
      "the token endpoint answered 400 invalid_client (client certificate not registered for this client_id)",
    );
    expect(err.message).to.include("rotate or re-register the credential crm-unregistered");
    expect(authority.tokenRequests).to.have.length(1);
    expect(crm.hits).to.have.length(0);
    expect(await interactionCount()).to.equal(before);
  });

  it("should refuse a token answer that is not a Bearer token response, without echoing it", async function () {
    const leaked = "a-mac-token-that-must-not-be-echoed-0123456789";
    authority.failNextToken(200, { access_token: leaked, token_type: "mac", expires_in: 60 });
    const err = await rejection(
      world
        .build(crmDoc())
        .client("crm")
        .call(orders as never),
    );
    expect(err.code).to.equal("INTEGRATION_TOKEN_REFUSED");
    expect(err.message).to.include("token_type must be Bearer (RFC 6750)");
    expect(err.message).to.not.include(leaked);
    authority.failNextToken(200, { token_type: "bearer", expires_in: -5 });
    const missing = await rejection(
      world
        .build(crmDoc())
        .client("crm")
        .call(orders as never),
    );
    expect(missing.message).to.include("access_token");
    expect(missing.message).to.include("expires_in must be a positive number of seconds");
    expect(crm.hits).to.have.length(0);
  });

  it("should retry a token endpoint 503 per the policy, then report INTEGRATION_UNAVAILABLE on chain with nothing anchored", async function () {
    const gateway = Wallet.createRandom().address;
    const doc = crmDoc("crm-mtls", { circuit_breaker: { gateway } });
    const client = world.build(doc).client("crm");
    const chain = world.chains.list().find((c) => c.deployment.contracts.CircuitBreakerGateway)!;
    const breaker = chain.contract("CircuitBreakerGateway");
    const before = await interactionCount();
    for (let i = 0; i < 3; i++) authority.failNextToken(503, { error: "temporarily_unavailable" });
    const err = await rejection(client.call(orders as never));
    expect(err.code).to.equal("INTEGRATION_UNAVAILABLE");
    expect(err.message).to.include("token endpoint: HTTP 503 after 3 attempt(s)");
    expect(authority.tokenRequests.map((r) => r.status)).to.deep.equal([503, 503, 503]);
    expect(crm.hits).to.have.length(0);
    expect(await interactionCount()).to.equal(before);
    expect(Number(await breaker.getFunction("failureCount")(gateway))).to.equal(1);
    // The endpoint is back: the next call gets a token and succeeds.
    expect((await client.call(orders as never)).status).to.equal(200);
  });

  it("should fail the first call clearly when the credential is missing or is not a matching certificate and key", async function () {
    const missing = await rejection(
      world
        .build(crmDoc("crm-absent"))
        .client("crm")
        .call(orders as never),
    );
    expect(missing.code).to.equal("INTEGRATION_CREDENTIAL_UNAVAILABLE");
    expect(missing.message).to.include(
      "credential crm-absent is not in the local vault (npm run integrations -- set-mtls-credential crm-absent)",
    );

    await putCredential(
      world.store,
      world.masterKey,
      "crm-mismatched",
      encodeMtlsCredential({ clientId: CLIENT_ID, cert: relayerCert.cert, key: secondCert.key }),
    );
    const mismatched = await rejection(
      world
        .build(crmDoc("crm-mismatched"))
        .client("crm")
        .call(orders as never),
    );
    expect(mismatched.code).to.equal("INTEGRATION_CREDENTIAL_UNAVAILABLE");
    expect(mismatched.message).to.include(
      "credential crm-mismatched is not an oauth2_mtls credential: key is not the private key of the first certificate of cert",
    );
    expect(mismatched.message).to.not.include("PRIVATE KEY");

    const jwtSecret = await rejection(
      world
        .build(crmDoc("standin-jwt"))
        .client("crm")
        .call(orders as never),
    );
    expect(jwtSecret.code).to.equal("INTEGRATION_CREDENTIAL_UNAVAILABLE");
    expect(jwtSecret.message).to.include("not JSON");
    expect(jwtSecret.message).to.not.include("stand-in-jwt-credential");
    expect(authority.tokenRequests).to.have.length(0);
  });
});
