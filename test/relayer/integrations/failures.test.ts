import { expect } from "chai";
import { Wallet } from "ethers";
import { Registry } from "prom-client";
import { gatewayAddress } from "../../../relayer/integrations/breaker.ts";
import { responseHmacOf } from "../../../relayer/integrations/client.ts";
import { enableIntegration } from "../../../relayer/integrations/health.ts";
import { DISABLE_AFTER_UNAUTHORIZED, putCredential } from "../../../relayer/integrations/index.ts";
import { parseRetryAfter } from "../../../relayer/integrations/retry.ts";
import { startCrm, type StandIn } from "../../fixtures/standins/index.ts";
import {
  entry,
  HMAC_KEY,
  JWT_SECRET,
  openIntegrationWorld,
  type IntegrationWorld,
  rejection,
} from "./world.ts";

const ORDERS = {
  method: "GET",
  path: "/crm/orders",
  headers: { "X-Blockchain-Proof": "true" },
} as const;

describe("# external REST integrations: the spec's failure handlings (429, 504, schema rollback, 401)", function () {
  this.timeout(240_000);
  let world: IntegrationWorld;
  let crm: StandIn;
  let replica: StandIn;

  before(async function () {
    world = await openIntegrationWorld();
    crm = await startCrm({ jwtSecret: JWT_SECRET, hmacKey: HMAC_KEY });
    replica = await startCrm({ jwtSecret: JWT_SECRET, hmacKey: HMAC_KEY });
  });
  after(async function () {
    await crm?.close();
    await replica?.close();
    await world?.close();
  });
  beforeEach(function () {
    crm.hits.length = 0;
    replica.hits.length = 0;
    crm.override(null);
  });

  const hmac = { response_hmac: { key_vault: "local", credential_id: "crm-hmac" } };
  /** Its own gateway per test: breaker reports of one test do not open another's circuit. */
  const crmEntry = (
    extra: Record<string, unknown> = {},
    validation: Record<string, unknown> = {},
  ) =>
    entry(
      crm.url,
      { circuit_breaker: { gateway: Wallet.createRandom().address }, ...extra },
      { ...hmac, ...validation },
    );
  const alerts = (integration: string) =>
    world.store.query<{ kind: string; detail: string }>(
      "SELECT kind, detail FROM integration_alerts WHERE integration = $1 ORDER BY id",
      [integration],
    );

  describe("## 429 Retry-After", function () {
    it("should read Retry-After as seconds or an HTTP date, and nothing else", function () {
      const now = Date.parse("2026-11-20T16:00:00Z");
      expect(parseRetryAfter("30", now)).to.equal(30_000);
      expect(parseRetryAfter(" 0 ", now)).to.equal(0);
      expect(parseRetryAfter("Fri, 20 Nov 2026 16:00:42 GMT", now)).to.equal(42_000);
      expect(parseRetryAfter("Fri, 20 Nov 2026 15:00:00 GMT", now)).to.equal(0);
      for (const bad of [undefined, null, "", "-5", "1.5", "soon", "2026-11-20"])
        expect(parseRetryAfter(bad, now), String(bad)).to.equal(null);
    });

    it("should wait the Retry-After seconds within max_delay and succeed, without reporting a failure", async function () {
      const integrations = world.build({
        integrations: {
          crm: crmEntry({
            retry: { attempts: 3, backoff: "exponential", initial_delay: "5ms", max_delay: "2s" },
          }),
        },
      });
      crm.setPublicKey(await world.publicKey("crm"));
      crm.failNext(429, 1, { "Retry-After": "1" });
      const started = Date.now();
      const result = await integrations.client("crm").call(ORDERS);
      const waited = Date.now() - started;
      expect(result.status).to.equal(200);
      expect(crm.hits).to.have.length(2);
      expect(waited).to.be.at.least(950); // the asked second, not the 5 ms backoff
      const breaker = world.chains.list()[0]!.contract("CircuitBreakerGateway");
      const gateway = gatewayAddress(integrations.client("crm").config);
      expect(Number(await breaker.getFunction("failureCount")(gateway))).to.equal(0);
    });

    it("should honour an HTTP-date Retry-After", async function () {
      const integrations = world.build({
        integrations: {
          crm: crmEntry({ retry: { attempts: 2, backoff: "exponential", max_delay: "5s" } }),
        },
      });
      crm.setPublicKey(await world.publicKey("crm"));
      // HTTP dates have whole seconds: up to 2 s from now.
      const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000).toUTCString();
      crm.failNext(429, 1, { "Retry-After": at });
      const result = await integrations.client("crm").call(ORDERS);
      expect(result.status).to.equal(200);
      expect(crm.hits).to.have.length(2);
      expect(Date.now()).to.be.at.least(Date.parse(at) - 5);
    });

    it("should refuse at once with the wait when Retry-After exceeds max_delay (one request, the 429 recorded)", async function () {
      const integrations = world.build({
        integrations: {
          crm: crmEntry({ retry: { attempts: 5, backoff: "fibonacci", max_delay: "10s" } }),
        },
      });
      crm.setPublicKey(await world.publicKey("crm"));
      crm.failNext(429, 1, { "Retry-After": "120" });
      const started = Date.now();
      const err = await rejection(integrations.client("crm").call(ORDERS));
      expect(Date.now() - started).to.be.below(5_000);
      expect(err.code).to.equal("INTEGRATION_RATE_LIMITED");
      expect(err.status).to.equal(429);
      expect(err.retryAfterMs).to.equal(120_000);
      expect(err.message)
        .to.include("asks to wait 120 s")
        .and.include("max_delay of 10 s")
        .and.include("retry after 120 s");
      expect(crm.hits).to.have.length(1);
      const [row] = await world.store.query<{ http_status: number }>(
        "SELECT http_status FROM integration_interactions WHERE integration = 'crm' ORDER BY id DESC LIMIT 1",
      );
      expect(row!.http_status).to.equal(429);
    });

    it("should give up with INTEGRATION_RATE_LIMITED once the attempts are spent on 429s", async function () {
      const integrations = world.build({
        integrations: {
          crm: crmEntry({
            retry: { attempts: 2, backoff: "exponential", initial_delay: "5ms", max_delay: "1s" },
          }),
        },
      });
      crm.setPublicKey(await world.publicKey("crm"));
      crm.failNext(429, 2); // no Retry-After: the policy's backoff
      const err = await rejection(integrations.client("crm").call(ORDERS));
      expect(err.code).to.equal("INTEGRATION_RATE_LIMITED");
      expect(err.retryAfterMs).to.equal(null);
      expect(err.message).to.include("still 429 after 2 attempt(s)");
      expect(crm.hits).to.have.length(2);
    });
  });

  describe("## 504 gateway timeout", function () {
    const replicaEntry = () =>
      entry(replica.url, { circuit_breaker: { gateway: Wallet.createRandom().address } }, hmac);

    it("should go to the fallback at once on a 504 (no retry of the primary), report the failure, and say it routed around", async function () {
      const integrations = world.build({
        integrations: {
          crm: crmEntry({ fallback: "crm_replica", retry: "critical" }),
          crm_replica: replicaEntry(),
        },
      });
      crm.setPublicKey(await world.publicKey("crm"));
      replica.setPublicKey(await world.publicKey("crm_replica"));
      crm.failNext(504, 1); // the critical policy would retry it 4 more times
      const result = await integrations.client("crm").call<{ data: unknown[] }>(ORDERS);
      expect(result.integration).to.equal("crm_replica");
      expect(result.routedAround).to.deep.equal({ integration: "crm", reason: "gateway_timeout" });
      expect(result.data.data).to.have.length(3);
      expect(crm.hits).to.have.length(1);
      expect(replica.hits).to.have.length(1);
      const breaker = world.chains.list()[0]!.contract("CircuitBreakerGateway");
      const gateway = gatewayAddress(integrations.client("crm").config);
      expect(Number(await breaker.getFunction("failureCount")(gateway))).to.equal(1);
    });

    it("should retry a 504 per the policy when there is no fallback, then fail as unavailable", async function () {
      const integrations = world.build({ integrations: { crm: crmEntry() } });
      crm.setPublicKey(await world.publicKey("crm"));
      crm.failNext(504, 3);
      const err = await rejection(integrations.client("crm").call(ORDERS));
      expect(err.code).to.equal("INTEGRATION_UNAVAILABLE");
      expect(err.status).to.equal(504);
      expect(crm.hits).to.have.length(3);
    });

    it("should refuse a configuration whose fallbacks form a cycle", function () {
      expect(() =>
        world.build({
          integrations: {
            crm: crmEntry({ fallback: "crm_replica" }),
            crm_replica: entry(replica.url, { fallback: "crm" }),
          },
        }),
      ).to.throw(/fallback forms a cycle: crm → crm_replica → crm/);
    });
  });

  describe("## schema mismatch: rollback_version", function () {
    /** An answer of the CRM's API 2.3, HMAC'd like the stand-in's. */
    const v23 = (data: unknown[]) => ({
      status: 200,
      body: { data, hmac: responseHmacOf(HMAC_KEY, data).toString("hex") },
    });

    it("should accept a 2.3 answer under the rollback version with an alert, when 2.4 is pinned", async function () {
      const registry = new Registry();
      const integrations = world.build(
        {
          integrations: {
            crm_rb: { ...crmEntry({}, { version: "2.4", rollback_version: "2.3" }) },
          },
        },
        { metrics: registry },
      );
      crm.setPublicKey(await world.publicKey("crm_rb"));
      // CRM API 2.3: orders without `currency`.
      const orders = [{ id: "ord_7", customer: "acme", amount: "10.00", status: "unpaid" }];
      crm.override(() => v23(orders));
      const result = await integrations.client("crm_rb").call<{ data: unknown[] }>(ORDERS);
      expect(result.schemaVersion).to.equal("2.3");
      expect(result.data.data).to.deep.equal(orders);
      const raised = await alerts("crm_rb");
      expect(raised).to.have.length(1);
      expect(raised[0]!.kind).to.equal("schema_rollback");
      expect(raised[0]!.detail)
        .to.include("crm.orders@2.4")
        .and.include("rollback version 2.3")
        .and.include("currency");
      expect(
        await registry.getSingleMetricAsString("veriflow_integration_alerts_total"),
      ).to.include('integration="crm_rb",kind="schema_rollback"} 1');
      // A 2.4 answer is accepted under 2.4, without an alert.
      crm.override(null);
      const current = await integrations.client("crm_rb").call(ORDERS);
      expect(current.schemaVersion).to.equal("2.4");
      expect(await alerts("crm_rb")).to.have.length(1);
    });

    it("should refuse an answer that matches neither the pinned nor the rollback version (data not used, no alert)", async function () {
      const integrations = world.build({
        integrations: { crm_rb2: crmEntry({}, { version: "2.4", rollback_version: "2.3" }) },
      });
      crm.setPublicKey(await world.publicKey("crm_rb2"));
      crm.override(() => v23([{ id: "ord_8", customer: "acme", amount: "ten", status: "unpaid" }]));
      const err = await rejection(integrations.client("crm_rb2").call(ORDERS));
      expect(err.code).to.equal("INTEGRATION_SCHEMA_MISMATCH");
      expect(err.message).to.include("crm.orders@2.4 nor the rollback version 2.3");
      expect(await alerts("crm_rb2")).to.have.length(0);
    });

    it("should refuse a 2.3 answer when no rollback version is configured", async function () {
      const integrations = world.build({
        integrations: { crm_pin: crmEntry({}, { version: "2.4" }) },
      });
      crm.setPublicKey(await world.publicKey("crm_pin"));
      crm.override(() =>
        v23([{ id: "ord_9", customer: "acme", amount: "1.00", status: "unpaid" }]),
      );
      const err = await rejection(integrations.client("crm_pin").call(ORDERS));
      expect(err.code).to.equal("INTEGRATION_SCHEMA_MISMATCH");
      expect(err.message).to.include("currency");
    });

    it("should refuse a rollback_version that is unknown or the pinned version itself", function () {
      for (const rollback of ["9.9", "2.4"])
        expect(() =>
          world.build({
            integrations: { crm: crmEntry({}, { version: "2.4", rollback_version: rollback }) },
          }),
        ).to.throw(`rollback_version "${rollback}" must be another version of crm.orders`);
    });
  });

  describe("## 401 suspect credential, disabled node", function () {
    /** The same integration (its state is shared through the database) with another credential. */
    const withCredential = (name: string, credentialId: string, metrics?: Registry) => {
      const config = entry(crm.url, { circuit_breaker: { gateway } }, hmac);
      config.auth.credential_id = credentialId;
      return world.build({ integrations: { [name]: config } }, metrics ? { metrics } : {});
    };
    const gateway = Wallet.createRandom().address;

    it("should mark the credential suspect on a 401 to a fresh JWT, disable the node after repeated 401s, refuse calls until enabled", async function () {
      const registry = new Registry();
      await putCredential(
        world.store,
        world.masterKey,
        "wrong-jwt",
        "a-credential-the-crm-does-not-know",
      );
      const integrations = withCredential("crm_auth", "wrong-jwt", registry);
      crm.setPublicKey(await world.publicKey("crm_auth"));

      const first = await rejection(integrations.client("crm_auth").call(ORDERS));
      expect(first.code).to.equal("INTEGRATION_UNAUTHORIZED");
      expect(first.message)
        .to.include("rotate the credential wrong-jwt")
        .and.include(`credential is suspect (1 of ${DISABLE_AFTER_UNAUTHORIZED}`);
      expect(await integrations.health.state("crm_auth")).to.include({
        state: "suspect",
        unauthorizedCount: 1,
      });
      expect((await alerts("crm_auth")).map((a) => a.kind)).to.deep.equal(["credential_suspect"]);
      expect(JSON.stringify(await alerts("crm_auth"))).to.not.include(
        "a-credential-the-crm-does-not-know",
      );

      for (let i = 2; i <= DISABLE_AFTER_UNAUTHORIZED; i++)
        await rejection(integrations.client("crm_auth").call(ORDERS));
      const state = await integrations.health.state("crm_auth");
      expect(state.state).to.equal("disabled");
      expect((await alerts("crm_auth")).map((a) => a.kind)).to.deep.equal([
        "credential_suspect",
        "integration_disabled",
      ]);
      expect(await registry.getSingleMetricAsString("veriflow_integration_disabled")).to.include(
        'integration="crm_auth"} 1',
      );

      // Disabled: refused with a clear error, nothing sent.
      const hits = crm.hits.length;
      const refused = await rejection(integrations.client("crm_auth").call(ORDERS));
      expect(refused.code).to.equal("INTEGRATION_DISABLED");
      expect(refused.message).to.include("npm run integrations -- enable crm_auth");
      expect(crm.hits.length).to.equal(hits);
      // Rotating the credential alone does not re-enable the node; the operator does.
      const rotated = withCredential("crm_auth", "standin-jwt", registry);
      expect((await rejection(rotated.client("crm_auth").call(ORDERS))).code).to.equal(
        "INTEGRATION_DISABLED",
      );
      expect(await enableIntegration(world.store, "crm_auth")).to.equal(true);
      const ok = await rotated.client("crm_auth").call(ORDERS);
      expect(ok.status).to.equal(200);
      expect(await integrations.health.state("crm_auth")).to.deep.equal({ state: "enabled" });
      expect(
        await registry.getSingleMetricAsString("veriflow_integration_disabled"),
      ).to.not.include("crm_auth");
    });

    it("should clear a suspect credential after a success, so only consecutive 401s disable", async function () {
      await putCredential(
        world.store,
        world.masterKey,
        "wrong-jwt-2",
        "another-credential-the-crm-refuses",
      );
      const refused = withCredential("crm_flaky", "wrong-jwt-2");
      const accepted = withCredential("crm_flaky", "standin-jwt");
      crm.setPublicKey(await world.publicKey("crm_flaky"));
      for (let round = 0; round < 2; round++) {
        for (let i = 1; i < DISABLE_AFTER_UNAUTHORIZED; i++)
          await rejection(refused.client("crm_flaky").call(ORDERS));
        expect((await refused.health.state("crm_flaky")).state).to.equal("suspect");
        await accepted.client("crm_flaky").call(ORDERS);
        expect(await accepted.health.state("crm_flaky")).to.deep.equal({ state: "enabled" });
      }
    });

    it("should route a disabled node's calls to its fallback", async function () {
      const integrations = world.build({
        integrations: {
          crm_off: crmEntry({ fallback: "crm_spare" }),
          crm_spare: entry(
            replica.url,
            { circuit_breaker: { gateway: Wallet.createRandom().address } },
            hmac,
          ),
        },
      });
      replica.setPublicKey(await world.publicKey("crm_spare"));
      await world.store.query(
        "INSERT INTO integration_states (integration, state, reason, disabled_at) VALUES ('crm_off', 'disabled', 'test', now())",
      );
      const result = await integrations.client("crm_off").call(ORDERS);
      expect(result.integration).to.equal("crm_spare");
      expect(result.routedAround).to.deep.equal({ integration: "crm_off", reason: "disabled" });
      expect(crm.hits).to.have.length(0);
    });
  });
});
