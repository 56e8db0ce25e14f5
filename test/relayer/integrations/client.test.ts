import { expect } from "chai";
import { recoverAddress, Wallet, type JsonRpcApiProvider } from "ethers";
import { DEFAULT_RETRY, CRITICAL_RETRY } from "../../../relayer/config/integrations.ts";
import {
  interactionDigest,
  interactionDomain,
  textHash,
} from "../../../relayer/integrations/anchor.ts";
import { gatewayAddress } from "../../../relayer/integrations/breaker.ts";
import { verifyInteractionOnChain } from "../../../relayer/integrations/index.ts";
import { reserveToken } from "../../../relayer/integrations/rate-limit.ts";
import { retryDelays } from "../../../relayer/integrations/retry.ts";
import { signingMessage } from "../../../relayer/integrations/signer.ts";
import { startCrm, startPaymentGateway, type StandIn } from "../../fixtures/standins/index.ts";
import {
  entry,
  HMAC_KEY,
  increaseTime,
  JWT_SECRET,
  openIntegrationWorld,
  type IntegrationWorld,
  rejection,
} from "./world.ts";

describe("# external REST integrations: client, signer, retries, breaker, anchoring", function () {
  this.timeout(240_000);
  let world: IntegrationWorld;
  let crm: StandIn;
  let payments: StandIn;

  before(async function () {
    world = await openIntegrationWorld();
    crm = await startCrm({ jwtSecret: JWT_SECRET, hmacKey: HMAC_KEY });
    payments = await startPaymentGateway({ jwtSecret: JWT_SECRET });
  });
  after(async function () {
    await crm?.close();
    await payments?.close();
    await world?.close();
  });
  beforeEach(function () {
    crm.hits.length = 0;
    payments.hits.length = 0;
    crm.override(null);
  });

  const crmDoc = (
    extra: Record<string, unknown> = {},
    validation: Record<string, unknown> = {},
  ) => ({
    integrations: {
      crm: entry(crm.url, extra, {
        response_hmac: { key_vault: "local", credential_id: "crm-hmac" },
        ...validation,
      }),
    },
  });
  const interactions = async (integration: string) =>
    world.store.query<{ id: string; anchor_state: string }>(
      "SELECT id, anchor_state FROM integration_interactions WHERE integration = $1 ORDER BY id",
      [integration],
    );

  it("should build the signer message as <METHOD>:<PATH>:<hex of body bytes>", function () {
    expect(signingMessage("post", "/v2/payments", new TextEncoder().encode('{"a":1}'))).to.equal(
      "POST:/v2/payments:7b2261223a317d",
    );
    expect(signingMessage("GET", "/v2/crm/orders?status=unpaid", null)).to.equal(
      "GET:/v2/crm/orders?status=unpaid:",
    );
  });

  it("should call the CRM signed, with a JWT and the proof header, verify its HMAC, and anchor the interaction at once (records, APILogged, signer from the chain)", async function () {
    const integrations = world.build(crmDoc());
    crm.setPublicKey(await world.publicKey("crm"));
    const result = await integrations.client("crm").call<{ data: Array<{ id: string }> }>({
      method: "GET",
      path: "/crm/orders",
      query: { status: "unpaid" },
      headers: { "X-Blockchain-Proof": "true" },
    });
    expect(result.status).to.equal(200);
    expect(result.data.data.map((o) => o.id)).to.deep.equal(["ord_1001", "ord_1003"]);
    expect(crm.hits).to.have.length(1);
    expect(crm.hits[0]!.target).to.equal("/v2/crm/orders?status=unpaid");
    expect(crm.hits[0]!.signatureValid).to.equal(true);
    expect(crm.hits[0]!.jwtValid).to.equal(true);

    const [row] = await world.store.query<Record<string, string>>(
      "SELECT * FROM integration_interactions WHERE id = $1",
      [result.interactionId],
    );
    expect(row!.anchor_state).to.equal("anchored");
    expect(row!.endpoint).to.match(
      new RegExp(`^GET ${crm.url}/crm/orders\\?status=unpaid#veriflow-interaction=[0-9a-f-]{36}$`),
    );
    expect(row!.endpoint_hash).to.equal(textHash(row!.endpoint!));
    expect(row!.response_hash).to.equal(textHash(row!.response!));

    const chain = world.chains.list().find((c) => c.deployment.contracts.ProofRegistry)!;
    const registry = chain.contract("ProofRegistry");
    const record = (await registry.getFunction("records")(row!.request_id)) as [
      string,
      string,
      bigint,
    ];
    expect(record[0]).to.equal(row!.endpoint_hash);
    expect(record[1]).to.equal(row!.response_hash);
    const events = await registry.queryFilter(registry.filters.APILogged!(row!.request_id));
    expect(events).to.have.length(1);
    const signer = recoverAddress(
      interactionDigest(
        interactionDomain(chain.chainId, row!.registry!),
        row!.endpoint_hash!,
        row!.response_hash!,
      ),
      row!.signature!,
    );
    expect(signer).to.equal(await chain.operator!.getAddress());
    const check = await verifyInteractionOnChain(registry, {
      registry: row!.registry!,
      endpoint_hash: row!.endpoint_hash!,
      response_hash: row!.response_hash!,
      observed_at: Number(row!.observed_at),
      mode: "immediate",
      request_id: row!.request_id!,
      batch: null,
    });
    expect(check).to.include({ valid: true, signer });
    // A record with another response hash does not verify.
    const forged = await verifyInteractionOnChain(registry, {
      registry: row!.registry!,
      endpoint_hash: row!.endpoint_hash!,
      response_hash: textHash("forged"),
      observed_at: 0,
      mode: "immediate",
      request_id: row!.request_id!,
      batch: null,
    });
    expect(forged.valid).to.equal(false);
  });

  it("should anchor the same request twice in one block under two request ids (the interaction id in the endpoint text)", async function () {
    const integrations = world.build(crmDoc());
    crm.setPublicKey(await world.publicKey("crm"));
    const chain = world.chains.list().find((c) => c.deployment.contracts.ProofRegistry)!;
    const provider = chain.provider as unknown as JsonRpcApiProvider;
    const call = () =>
      integrations.client("crm").call({
        method: "GET",
        path: "/crm/orders",
        query: { status: "unpaid" },
        headers: { "X-Blockchain-Proof": "true" },
      });
    await provider.send("evm_setAutomine", [false]);
    const pending = Promise.all([call(), call()]);
    let settled = false;
    void pending.finally(() => (settled = true)).catch(() => {});
    let results: Array<{ interactionId: number }>;
    try {
      // Both logs wait in the pool (the calls first reach the CRM), then one block includes them.
      const deadline = Date.now() + 60_000;
      for (;;) {
        const block = (await provider.send("eth_getBlockByNumber", ["pending", false])) as {
          transactions: string[];
        };
        if (block.transactions.length >= 2) break;
        if (Date.now() > deadline)
          throw new Error("the two logs never waited in the pool together");
        await new Promise((r) => setTimeout(r, 50));
      }
      await provider.send("evm_mine", []);
      results = await pending;
    } finally {
      await provider.send("evm_setAutomine", [true]);
      // Whatever happened, leave no transaction behind in the pool for the next tests.
      while (!settled) {
        await provider.send("evm_mine", []);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const rows = await world.store.query<{
      endpoint: string;
      request_id: string;
      block_number: string;
      anchor_state: string;
    }>(
      "SELECT endpoint, request_id, block_number, anchor_state FROM integration_interactions WHERE id = ANY($1) ORDER BY id",
      [results.map((r) => r.interactionId)],
    );
    expect(rows.map((r) => r.anchor_state)).to.deep.equal(["anchored", "anchored"]);
    expect(rows[0]!.block_number).to.equal(rows[1]!.block_number);
    expect(rows[0]!.endpoint).to.not.equal(rows[1]!.endpoint);
    expect(rows[0]!.request_id).to.not.equal(rows[1]!.request_id);
  });

  it("should refuse a CRM answer whose HMAC does not verify (the data is not used)", async function () {
    const integrations = world.build(crmDoc());
    crm.override(() => ({
      status: 200,
      body: { data: [], hmac: "0".repeat(64) },
    }));
    const err = await rejection(
      integrations
        .client("crm")
        .call({ method: "GET", path: "/crm/orders", headers: { "X-Blockchain-Proof": "true" } }),
    );
    expect(err.code).to.equal("INTEGRATION_RESPONSE_SIGNATURE_INVALID");
  });

  it("should surface a crypto failure of the signer as a typed error and send nothing", async function () {
    const integrations = world.build({
      integrations: {
        payments: entry(payments.url, {}, { schema: "payments.create", version: "1.0" }),
      },
    });
    await world.publicKey("payments");
    const before = (await interactions("payments")).length;
    // The stored key blob no longer decrypts (tampered at rest).
    await world.store.query(
      "UPDATE integration_secrets SET blob = 'v1.AAAA.BBBB.CCCC' WHERE id = 'signing:payments'",
    );
    const err = await rejection(
      integrations
        .client("payments")
        .call({ method: "POST", path: "/payments", body: { amount: "1" } }),
    );
    expect(err.code).to.equal("INTEGRATION_SIGNING_FAILED");
    expect(err.message).to.include("nothing was sent");
    expect(payments.hits).to.have.length(0);
    expect((await interactions("payments")).length).to.equal(before);
    await world.store.query("DELETE FROM integration_secrets WHERE id = 'signing:payments'");
  });

  it("should retry a 503 per the policy (exponential delays as computed) and succeed on the third attempt", async function () {
    const integrations = world.build(crmDoc());
    crm.setPublicKey(await world.publicKey("crm"));
    crm.failNext(503, 2);
    const result = await integrations.client("crm").call({
      method: "GET",
      path: "/crm/orders",
      headers: { "X-Blockchain-Proof": "true" },
    });
    expect(result.status).to.equal(200);
    expect(crm.hits).to.have.length(3);
    // Delays: initial × 2^(n-1) capped at max_delay; default policy 3 attempts, max 10 s.
    expect(retryDelays({ ...DEFAULT_RETRY, initialDelayMs: 5, maxDelayMs: 50 })).to.deep.equal([
      5, 10,
    ]);
    expect(retryDelays(DEFAULT_RETRY)).to.deep.equal([200, 400]);
    expect(retryDelays({ ...DEFAULT_RETRY, attempts: 8 })).to.deep.equal([
      200, 400, 800, 1600, 3200, 6400, 10_000,
    ]);
  });

  it("should retry the critical policy 5 times with Fibonacci delays on >= 500 and network errors", async function () {
    expect(retryDelays(CRITICAL_RETRY)).to.deep.equal([200, 200, 400, 600]);
    const integrations = world.build(
      crmDoc({
        retry: {
          attempts: 5,
          backoff: "fibonacci",
          initial_delay: "2ms",
          conditions: ["status >= 500", "network_error"],
        },
      }),
    );
    crm.failNext(500, 4);
    const result = await integrations.client("crm").call({
      method: "GET",
      path: "/crm/orders",
      headers: { "X-Blockchain-Proof": "true" },
    });
    expect(result.status).to.equal(200);
    expect(crm.hits).to.have.length(5);
  });

  it("should not retry a 4xx and record the refused interaction", async function () {
    const integrations = world.build(crmDoc());
    const before = (await interactions("crm")).length;
    crm.failNext(422);
    const err = await rejection(
      integrations
        .client("crm")
        .call({ method: "GET", path: "/crm/orders", headers: { "X-Blockchain-Proof": "true" } }),
    );
    expect(err.code).to.equal("INTEGRATION_REQUEST_REFUSED");
    expect(err.status).to.equal(422);
    expect(crm.hits).to.have.length(1);
    const rows = await interactions("crm");
    expect(rows.length).to.equal(before + 1);
    expect(rows.at(-1)!.anchor_state).to.equal("anchored");
  });

  it("should answer a 401 with a clear rotate-the-credential error, without retrying", async function () {
    const integrations = world.build(
      {
        integrations: {
          crm: {
            ...entry(crm.url),
            auth: { type: "jwt_bearer", key_vault: "env", credential_id: "CRM_JWT" },
          },
        },
      },
      { env: { CRM_JWT: "a-stale-credential-0123456789" } },
    );
    const err = await rejection(
      integrations
        .client("crm")
        .call({ method: "GET", path: "/crm/orders", headers: { "X-Blockchain-Proof": "true" } }),
    );
    expect(err.code).to.equal("INTEGRATION_UNAUTHORIZED");
    expect(err.message).to.match(/rotate the credential CRM_JWT/);
    expect(err.message).to.not.include("a-stale-credential");
    expect(crm.hits).to.have.length(1);
    expect(crm.hits[0]!.jwtValid).to.equal(false);
  });

  it("should refuse a response off the pinned schema (strict) with a typed error", async function () {
    const integrations = world.build(crmDoc());
    crm.override(() => ({
      status: 200,
      body: {
        data: [
          { id: "x", customer: "y", amount: "1", currency: "USD", status: "unpaid", extra: 1 },
        ],
        hmac: "0".repeat(64),
      },
    }));
    const err = await rejection(
      integrations
        .client("crm")
        .call({ method: "GET", path: "/crm/orders", headers: { "X-Blockchain-Proof": "true" } }),
    );
    expect(err.code).to.equal("INTEGRATION_SCHEMA_MISMATCH");
    expect(err.message).to.include("crm.orders@2.4 (strict)");
  });

  it("should space requests by the token bucket (rps, burst), one token per attempt", async function () {
    await world.store.query("DELETE FROM integration_rate_buckets");
    const limit = { rps: 2, burst: 3 };
    const waits: number[] = [];
    for (let i = 0; i < 5; i++)
      waits.push(await reserveToken(world.store, "bucket-unit", limit, 0));
    expect(waits).to.deep.equal([0, 0, 0, 500, 1000]);
    expect(await reserveToken(world.store, "bucket-unit", limit, 1000)).to.equal(500);
    // Refilled at rps up to the burst, never beyond.
    expect(await reserveToken(world.store, "bucket-unit", limit, 60_000)).to.equal(0);
    for (let i = 0; i < 2; i++) await reserveToken(world.store, "bucket-unit", limit, 60_000);
    expect(await reserveToken(world.store, "bucket-unit", limit, 60_000)).to.equal(500);

    const slept: number[] = [];
    const t0 = Date.now(); // a frozen clock: no token comes back
    const integrations = world.build(
      {
        integrations: {
          payments: entry(payments.url, {}, { schema: "payments.create", version: "1.0" }),
        },
      },
      { clock: () => t0, sleep: async (ms) => void slept.push(ms) },
    );
    payments.setPublicKey(await world.publicKey("payments"));
    // Payment gateway default (spec Limits): 25 rps, burst 100.
    expect(integrations.client("payments").config.rateLimit).to.deep.equal({ rps: 25, burst: 100 });
    const bucket = integrations.client("payments").config.rateLimit!;
    for (let i = 0; i < 101; i++) {
      const w = await reserveToken(world.store, "payments", bucket, t0);
      if (w > 0) slept.push(w);
    }
    expect(slept).to.deep.equal([40]);
    slept.length = 0;
    // A retried call takes a token per attempt: 503 then 201 = two more tokens (80 ms, 120 ms).
    payments.failNext(503);
    const paid = await integrations.client("payments").call({
      method: "POST",
      path: "/payments",
      body: { amount: "5", currency: "USDC", reference: "r1" },
    });
    expect(paid.status).to.equal(201);
    expect(slept).to.deep.equal([80, 120]);
    expect(payments.hits).to.have.length(2);
    expect(payments.hits[1]!.signatureValid).to.equal(true);
    await world.store.query("DELETE FROM integration_rate_buckets");
  });

  it("should report failures on chain, open the circuit after more than 10, refuse calls while OPEN, and close after the cooldown", async function () {
    const integrations = world.build({
      integrations: {
        crm: entry(crm.url, { retry: { attempts: 1, backoff: "exponential" } }),
      },
    });
    const client = integrations.client("crm");
    const gateway = gatewayAddress(client.config);
    const chain = world.chains.list().find((c) => c.deployment.contracts.CircuitBreakerGateway)!;
    const breaker = chain.contract("CircuitBreakerGateway");
    const call = () =>
      client.call({
        method: "GET",
        path: "/crm/orders",
        headers: { "X-Blockchain-Proof": "true" },
      });
    for (let i = 1; i <= 10; i++) {
      crm.failNext(503);
      const err = await rejection(call());
      expect(err.code).to.equal("INTEGRATION_UNAVAILABLE");
    }
    expect(Number(await breaker.getFunction("failureCount")(gateway))).to.equal(10);
    expect(await breaker.getFunction("isOpen")(gateway)).to.equal(false);
    crm.failNext(503);
    const eleventh = await rejection(call());
    expect(eleventh.message).to.include("circuit OPEN");
    expect(await breaker.getFunction("isOpen")(gateway)).to.equal(true);

    const hits = crm.hits.length;
    const refused = await rejection(call());
    expect(refused.code).to.equal("INTEGRATION_CIRCUIT_OPEN");
    expect(crm.hits.length).to.equal(hits);

    await increaseTime(chain, Number(await breaker.getFunction("cooldown")()) + 1);
    expect(await breaker.getFunction("isOpen")(gateway)).to.equal(false);
    const ok = await call();
    expect(ok.status).to.equal(200);
    expect(crm.hits.length).to.equal(hits + 1);
  });

  it("should route around an OPEN circuit to the configured fallback (the primary sees no request)", async function () {
    const replica = await startCrm({ jwtSecret: JWT_SECRET, hmacKey: HMAC_KEY });
    try {
      const gateway = Wallet.createRandom().address;
      const integrations = world.build({
        integrations: {
          crm: entry(
            crm.url,
            { fallback: "crm_replica", circuit_breaker: { gateway } },
            {
              response_hmac: { key_vault: "local", credential_id: "crm-hmac" },
            },
          ),
          crm_replica: entry(
            replica.url,
            {},
            {
              response_hmac: { key_vault: "local", credential_id: "crm-hmac" },
            },
          ),
        },
      });
      replica.setPublicKey(await world.publicKey("crm_replica"));
      const chain = world.chains.list().find((c) => c.deployment.contracts.CircuitBreakerGateway)!;
      const breaker = chain.contract("CircuitBreakerGateway", chain.operator);
      const threshold = Number(await breaker.getFunction("threshold")());
      for (let i = 0; i <= threshold; i++)
        await (await breaker.getFunction("recordFailure")(gateway)).wait();
      await (await breaker.getFunction("trigger")(gateway)).wait();
      const result = await integrations.client("crm").call({
        method: "GET",
        path: "/crm/orders",
        headers: { "X-Blockchain-Proof": "true" },
      });
      expect(result.integration).to.equal("crm_replica");
      expect(crm.hits).to.have.length(0);
      expect(replica.hits).to.have.length(1);
      expect(replica.hits[0]!.signatureValid).to.equal(true);
    } finally {
      await replica.close();
    }
  });

  it("should anchor interval-batched interactions as one Merkle root whose proofs verify on chain, exactly once across a restart", async function () {
    let now = Date.now();
    const doc = {
      integrations: {
        orders: entry(
          crm.url,
          {},
          {
            response_hmac: { key_vault: "local", credential_id: "crm-hmac" },
            blockchain_anchor: { interval: "1h", contract: "ProofRegistry" },
          },
        ),
      },
    };
    const integrations = world.build(doc, { clock: () => now });
    crm.setPublicKey(await world.publicKey("orders"));
    for (const status of ["unpaid", "paid", "unpaid"]) {
      await integrations.client("orders").call({
        method: "GET",
        path: "/crm/orders",
        query: { status },
        headers: { "X-Blockchain-Proof": "true" },
      });
    }
    const chain = world.chains.list().find((c) => c.deployment.contracts.ProofRegistry)!;
    const registry = chain.contract("ProofRegistry");
    const batchesBefore = Number(await registry.getFunction("batchCount")());
    expect(await integrations.anchorDue()).to.deep.equal([]); // not an hour old yet
    expect((await interactions("orders")).every((r) => r.anchor_state === "pending")).to.equal(
      true,
    );

    now += 3_600_000;
    const anchored = await integrations.anchorDue();
    expect(anchored).to.have.length(1);
    expect(Number(await registry.getFunction("batchCount")())).to.equal(batchesBefore + 1);

    // A restarted process (new Integrations over the same database) anchors nothing twice.
    const restarted = world.build(doc, { clock: () => now + 7_200_000 });
    expect(await restarted.anchorDue()).to.deep.equal([]);
    expect(Number(await registry.getFunction("batchCount")())).to.equal(batchesBefore + 1);

    const ids = (await interactions("orders")).map((r) => Number(r.id));
    const { listInteractions } = await import("../../../relayer/integrations/anchor.ts");
    const views = await listInteractions(world.store, { ids });
    expect(views).to.have.length(3);
    for (const v of views) {
      expect(v.status).to.equal("anchored");
      expect(v.batch!.batch_id).to.equal(batchesBefore + 1);
      const check = await verifyInteractionOnChain(registry, v);
      expect(check.valid).to.equal(true);
      expect(
        await registry.getFunction("verifyInteraction")(
          v.batch!.root,
          v.batch!.proof,
          v.endpoint_hash,
          v.response_hash,
          v.observed_at + 1,
        ),
      ).to.equal(false);
    }
  });

  it("should anchor once an immediate interaction a crash left pending, on the next run", async function () {
    const integrations = world.build(crmDoc());
    const chain = world.chains.list().find((c) => c.deployment.contracts.ProofRegistry)!;
    const registry = chain.contract("ProofRegistry");
    const { recordInteraction, anchorTarget } =
      await import("../../../relayer/integrations/anchor.ts");
    // The process died between storing the response and anchoring it.
    const id = await recordInteraction(world.store, {
      integration: "crm",
      method: "GET",
      endpoint: `GET ${crm.url}/crm/orders?crash=1`,
      response: '{"data":[],"hmac":"00"}',
      httpStatus: 200,
      observedAt: Math.floor(Date.now() / 1000),
      mode: "immediate",
      target: anchorTarget(world.chains.list(), { contract: "ProofRegistry" }),
    });
    // Within the grace period a live call may still be anchoring it: the job leaves it.
    await integrations.anchorDue();
    expect(
      (
        await world.store.query<{ anchor_state: string }>(
          "SELECT anchor_state FROM integration_interactions WHERE id = $1",
          [id],
        )
      )[0]!.anchor_state,
    ).to.equal("pending");
    await integrations.anchorDue({ graceSeconds: 0 });
    await world.build(crmDoc()).anchorDue({ graceSeconds: 0 });
    const [row] = await world.store.query<{ request_id: string; anchor_state: string }>(
      "SELECT request_id, anchor_state FROM integration_interactions WHERE id = $1",
      [id],
    );
    expect(row!.anchor_state).to.equal("anchored");
    expect(await registry.queryFilter(registry.filters.APILogged!(row!.request_id))).to.have.length(
      1,
    );
    const txs = await world.store.query("SELECT hash FROM engine_txs WHERE execution_id = $1", [
      `api_${id}`,
    ]);
    expect(txs).to.have.length(1);
  });
});
