import { expect } from "chai";
import { responseHmacOf } from "../../../relayer/integrations/client.ts";
import { Wallet } from "ethers";
import {
  fetchPayableOrders,
  settleOrders,
  settlementKey,
  type PayableOrder,
} from "../../../relayer/integrations/orders.ts";
import { recipientsFromSchema } from "../../../relayer/workflows/schemas.ts";
import type { RecipientsFrom } from "../../../relayer/model/workflow.ts";
import { startCrm, startPaymentGateway, type StandIn } from "../../fixtures/standins/index.ts";
import {
  entry,
  HMAC_KEY,
  JWT_SECRET,
  openIntegrationWorld,
  rejection,
  type IntegrationWorld,
} from "./world.ts";

const WALLETS = [Wallet.createRandom().address, Wallet.createRandom().address];
const ORDERS_25 = [
  {
    id: "ord_2001",
    customer: "acme",
    amount: "12.50",
    currency: "USDC",
    status: "unpaid",
    wallet: WALLETS[0]!.toLowerCase(),
  },
  {
    id: "ord_2002",
    customer: "globex",
    amount: "80",
    currency: "USDC",
    status: "paid",
    wallet: WALLETS[1]!,
  },
  {
    id: "ord_2003",
    customer: "initech",
    amount: "3.000001",
    currency: "USDC",
    status: "unpaid",
    wallet: WALLETS[1]!,
  },
];
const SPEC: RecipientsFrom = {
  integration: "crm",
  path: "/crm/orders",
  query: { status: "unpaid" },
  id: "id",
  address: "wallet",
  amount: "amount",
  asset: "currency",
  maxOrders: 200,
};

describe("# orders from the CRM paid and settled (recipients_from, POST /payments exactly once)", function () {
  this.timeout(240_000);
  let world: IntegrationWorld;
  let crm: StandIn;
  let gateway: StandIn;

  before(async function () {
    world = await openIntegrationWorld();
    crm = await startCrm({ jwtSecret: JWT_SECRET, hmacKey: HMAC_KEY, orders: ORDERS_25 });
    gateway = await startPaymentGateway({ jwtSecret: JWT_SECRET });
  });
  after(async function () {
    await crm?.close();
    await gateway?.close();
    await world?.close();
  });
  beforeEach(function () {
    crm.hits.length = 0;
    gateway.hits.length = 0;
    crm.override(null);
  });

  const build = async () => {
    const integrations = world.build({
      integrations: {
        crm: entry(
          crm.url,
          {},
          {
            version: "2.5",
            response_hmac: { key_vault: "local", credential_id: "crm-hmac" },
            blockchain_anchor: { interval: "1h" },
          },
        ),
        payments: entry(
          gateway.url,
          { retry: { attempts: 5, backoff: "fibonacci", initial_delay: "5ms", max_delay: "20ms" } },
          {
            schema: "payments.create",
            version: "1.0",
          },
        ),
      },
    });
    crm.setPublicKey(await world.publicKey("crm"));
    gateway.setPublicKey(await world.publicKey("payments"));
    return integrations;
  };
  const context = (executionId: string) => ({ executionId, actionIndex: 0, asset: "USDC" });

  it("should read recipients_from in its one form (JSON and YAML share it), refusing unknown keys and bad fields", function () {
    const wire = {
      integration: "crm",
      path: "/crm/orders",
      query: { status: "unpaid" },
      address: "wallet",
      amount: "amount",
      asset: "currency",
    };
    expect(recipientsFromSchema.parse(wire)).to.deep.include({ id: "id", address: "wallet" });
    for (const bad of [
      { ...wire, extra: 1 },
      { ...wire, path: "crm/orders" },
      { ...wire, address: "wallet-address" },
      { integration: "crm", path: "/crm/orders" },
    ])
      expect(recipientsFromSchema.safeParse(bad).success, JSON.stringify(bad)).to.equal(false);
  });

  it("should ask the CRM with X-Blockchain-Proof, check its HMAC and schema, anchor the interaction under the execution, and build the orders", async function () {
    const integrations = await build();
    const fetched = await fetchPayableOrders(
      integrations.client("crm"),
      SPEC,
      context("wf_orders_1"),
    );
    expect(crm.hits).to.have.length(1);
    expect(crm.hits[0]!.headers["x-blockchain-proof"]).to.equal("true");
    expect(crm.hits[0]!.target).to.equal("/v2/crm/orders?status=unpaid");
    expect(fetched.schemaVersion).to.equal("2.5");
    expect(fetched.orders).to.deep.equal([
      { id: "ord_2001", address: WALLETS[0], amount: "12.50", asset: "USDC" },
      { id: "ord_2003", address: WALLETS[1], amount: "3.000001", asset: "USDC" },
    ]);
    const [row] = await world.store.query<{ execution_id: string; mode: string }>(
      "SELECT execution_id, mode FROM integration_interactions WHERE id = $1",
      [fetched.interactionId],
    );
    expect(row).to.deep.equal({ execution_id: "wf_orders_1", mode: "batch" });
  });

  it("should check the HMAC over the data as the CRM sent it (its fields' order), not as the schema parsed it", async function () {
    const integrations = await build();
    const unpaid = ORDERS_25.filter((o) => o.status === "unpaid");
    // The same orders, fields in another order than the schema's.
    const sent = unpaid.map(({ wallet, status, amount, currency, customer, id }) => ({
      wallet,
      status,
      amount,
      currency,
      customer,
      id,
    }));
    crm.override(() => ({ status: 200, body: { data: sent, hmac: responseHmac(sent) } }));
    const fetched = await fetchPayableOrders(
      integrations.client("crm"),
      SPEC,
      context("wf_orders_hmac"),
    );
    expect(fetched.orders.map((o) => o.id)).to.deep.equal(["ord_2001", "ord_2003"]);
    // An HMAC of the same orders in the schema's field order is not an HMAC of what was sent.
    crm.override(() => ({ status: 200, body: { data: sent, hmac: responseHmac(unpaid) } }));
    const err = await rejection(
      fetchPayableOrders(integrations.client("crm"), SPEC, context("wf_orders_hmac")),
    );
    expect(err.code).to.equal("INTEGRATION_RESPONSE_SIGNATURE_INVALID");
  });

  it("should refuse the whole answer when one order does not fit (bad wallet, zero amount, another asset, twice), or when the HMAC fails", async function () {
    const integrations = await build();
    const answer = (data: unknown[]) => {
      crm.override(() => ({
        status: 200,
        body: {
          data,
          hmac: responseHmac(data),
        },
      }));
    };
    const base = ORDERS_25[0]!;
    const cases: Array<[Record<string, string>[], string]> = [
      [[{ ...base, amount: "0.00" }], "amount is not a decimal amount greater than 0"],
      [[{ ...base, currency: "DAI" }], "order ord_2001 is in DAI, the multisend pays USDC"],
      [[base, base], "order ord_2001 is listed twice"],
    ];
    for (const [data, message] of cases) {
      answer(data);
      const err = await rejection(
        fetchPayableOrders(integrations.client("crm"), SPEC, context("wf_orders_2")),
      );
      expect(err.code).to.equal("INTEGRATION_ORDERS_INVALID");
      expect(err.message).to.include(message).and.include("no order of this answer was used");
    }
    // More orders than max_orders: none is used (one payout transaction pays them all or none).
    crm.override(null);
    const capped = await rejection(
      fetchPayableOrders(
        integrations.client("crm"),
        { ...SPEC, maxOrders: 1 },
        context("wf_orders_2"),
      ),
    );
    expect(capped.code).to.equal("INTEGRATION_ORDERS_INVALID");
    expect(capped.message).to.include("lists 2 orders, more than max_orders 1");
    // A wallet that is not an address fails the pinned schema before the mapping.
    answer([{ ...base, wallet: "0x1234" }]);
    expect(
      (
        await rejection(
          fetchPayableOrders(integrations.client("crm"), SPEC, context("wf_orders_2")),
        )
      ).code,
    ).to.equal("INTEGRATION_SCHEMA_MISMATCH");
    crm.override(() => ({ status: 200, body: { data: ORDERS_25, hmac: "0".repeat(64) } }));
    expect(
      (
        await rejection(
          fetchPayableOrders(integrations.client("crm"), SPEC, context("wf_orders_2")),
        )
      ).code,
    ).to.equal("INTEGRATION_RESPONSE_SIGNATURE_INVALID");
  });

  it("should settle each paid order once with its derived idempotency key, and pay nothing twice across a restart", async function () {
    const orders: PayableOrder[] = [
      { id: "ord_2001", address: WALLETS[0]!, amount: "12.50", asset: "USDC" },
      { id: "ord_2003", address: WALLETS[1]!, amount: "3.000001", asset: "USDC" },
    ];
    const first = await build();
    const result = await settleOrders(
      { store: world.store, client: first.client("payments") },
      { executionId: "wf_settle_1", orders, currency: "USDC" },
    );
    expect(result.unsettled).to.deep.equal([]);
    expect(result.settled.map((s) => s.order_id)).to.deep.equal(["ord_2001", "ord_2003"]);
    expect(gateway.hits.map((h) => h.headers["idempotency-key"])).to.deep.equal([
      settlementKey("wf_settle_1", "ord_2001"),
      settlementKey("wf_settle_1", "ord_2003"),
    ]);
    expect(settlementKey("wf_settle_1", "ord_2001")).to.not.equal(
      settlementKey("wf_settle_2", "ord_2001"),
    );

    // A restarted process (new clients, same database): nothing is paid again.
    const restarted = await build();
    const again = await settleOrders(
      { store: world.store, client: restarted.client("payments") },
      { executionId: "wf_settle_1", orders, currency: "USDC" },
    );
    expect(again.settled).to.deep.equal(result.settled);
    expect(gateway.hits).to.have.length(2);
  });

  it("should re-send a payment whose answer a crash lost with the same key, so the gateway answers the payment it made", async function () {
    const integrations = await build();
    const order: PayableOrder = {
      id: "ord_2001",
      address: WALLETS[0]!,
      amount: "12.50",
      asset: "USDC",
    };
    const key = settlementKey("wf_settle_crash", order.id);
    // The crash: the request reached the gateway (which paid), the row still says requested.
    await world.store.query(
      "INSERT INTO integration_order_settlements (settlement_key, execution_id, order_id, amount, currency) VALUES ($1, 'wf_settle_crash', $2, '12.50', 'USDC')",
      [key, order.id],
    );
    const lost = await integrations.client("payments").call<{ id: string }>({
      method: "POST",
      path: "/payments",
      body: { amount: "12.50", currency: "USDC", reference: key, order_id: order.id },
      headers: { "Idempotency-Key": key },
    });
    const result = await settleOrders(
      { store: world.store, client: integrations.client("payments") },
      { executionId: "wf_settle_crash", orders: [order], currency: "USDC" },
    );
    expect(result.settled[0]!.gateway_payment_id).to.equal(lost.data.id);
  });

  it("should retry a failing settlement per the critical policy (5 attempts), list the order as paid but not settled, and settle it on the next run", async function () {
    const integrations = await build();
    const order: PayableOrder = {
      id: "ord_2003",
      address: WALLETS[1]!,
      amount: "3.000001",
      asset: "USDC",
    };
    gateway.failNext(503, 5);
    const failed = await settleOrders(
      { store: world.store, client: integrations.client("payments") },
      { executionId: "wf_settle_fail", orders: [order], currency: "USDC" },
    );
    expect(gateway.hits).to.have.length(5);
    expect(failed.settled).to.deep.equal([]);
    expect(failed.unsettled).to.have.length(1);
    expect(failed.unsettled[0]).to.include({ order_id: "ord_2003" });
    expect(failed.unsettled[0]!.error).to.include("INTEGRATION_UNAVAILABLE");
    const [row] = await world.store.query<{ state: string; attempts: number }>(
      "SELECT state, attempts FROM integration_order_settlements WHERE execution_id = 'wf_settle_fail'",
    );
    expect(row).to.deep.equal({ state: "failed", attempts: 1 });

    const next = await settleOrders(
      { store: world.store, client: integrations.client("payments") },
      { executionId: "wf_settle_fail", orders: [order], currency: "USDC" },
    );
    expect(next.settled.map((s) => s.order_id)).to.deep.equal(["ord_2003"]);
    expect(gateway.hits).to.have.length(6);
  });
});

function responseHmac(data: unknown): string {
  return responseHmacOf(HMAC_KEY, data).toString("hex");
}
