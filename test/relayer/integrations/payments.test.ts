import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { Wallet } from "ethers";
import { runExecution } from "../../../relayer/execution/orchestrator.ts";
import type { SignedReport } from "../../../relayer/report/report.ts";
import {
  Integrations,
  parseIntegrations,
  putCredential,
  signingPublicKey,
  verifyInteractionOnChain,
  type InteractionView,
} from "../../../relayer/integrations/index.ts";
import {
  receiptAmount,
  serviceFeeRef,
  settleServiceFee,
  type PaymentReceiptView,
} from "../../../relayer/integrations/payments.ts";
import { startPaymentGateway, type StandIn } from "../../fixtures/standins/index.ts";
import {
  fundedAccount,
  normalise,
  openEngineWorld,
  silentLogger,
  submitExecution,
  type EngineWorld,
} from "../../fixtures/engine.ts";
import { JWT_SECRET } from "./world.ts";

/**
 * Payment receipts: the service fee of a completed execution is settled through the payment
 * gateway (a stand-in on 127.0.0.1, POST /payments → 201) and an ERC-7641 RevShareReceipt is issued
 * to the paying key's relayer-managed account, exactly once.
 */
describe("# payment receipts (service fee → payment gateway → RevShareReceipt)", function () {
  this.timeout(300_000);
  let world: EngineWorld;
  let gateway: StandIn;
  let integrations: Integrations;
  const masterKey = randomBytes(32);
  const apiKeyId = "key_payments";
  let account: string;

  before(async function () {
    world = await openEngineWorld();
    account = await fundedAccount(world, apiKeyId);
    await putCredential(world.store, masterKey, "gateway-jwt", JWT_SECRET);
    gateway = await startPaymentGateway({
      jwtSecret: JWT_SECRET,
      publicKey: await signingPublicKey(world.store, masterKey, "payments"),
    });
    integrations = new Integrations(
      parseIntegrations({
        integrations: {
          payments: {
            url: gateway.url,
            auth: { type: "jwt_bearer", key_vault: "local", credential_id: "gateway-jwt" },
            validation: { schema: "payments.create", version: "1.0", strict: true },
            retry: { attempts: 3, backoff: "fibonacci", initial_delay: "5ms" },
          },
        },
        payments: { integration: "payments", service_fee: "2.50", currency: "USDC" },
      }),
      { store: world.store, chains: world.chains, masterKey, logger: silentLogger },
    );
    world.deps.apiInteractions = (id) => integrations.forReport(id);
    world.deps.settle = (input) => integrations.settle(input);
  });
  after(async function () {
    await gateway?.close();
    await world?.close();
  });

  const receiptContract = () =>
    world.chains
      .list()
      .find((c) => c.deployment.contracts.RevShareReceipt)!
      .contract("RevShareReceipt");

  it("should settle the fee of a completed execution through the gateway (201) and issue a receipt to the key's account, listed in the report", async function () {
    const receipt = receiptContract();
    const before = (await receipt.getFunction("balanceOf")(account)) as bigint;
    const workflow = normalise(world, {
      name: "paid",
      actions: [
        {
          type: "multisend",
          chain: "arbitrum",
          from: "USDC",
          amount: "5",
          recipients: [{ address: Wallet.createRandom().address, amount: "5" }],
        },
      ],
    });
    const id = await submitExecution(world, apiKeyId, workflow);
    expect(await runExecution(world.deps, id)).to.equal("completed");
    expect(gateway.hits).to.have.length(1);
    expect(gateway.hits[0]!.signatureValid).to.equal(true);
    expect(gateway.hits[0]!.headers["idempotency-key"]).to.equal(serviceFeeRef(id));

    const ref = serviceFeeRef(id);
    expect(await receipt.getFunction("isReceipted")(ref)).to.equal(true);
    expect((await receipt.getFunction("balanceOf")(account)) as bigint).to.equal(
      before + receiptAmount("2.50"),
    );
    const [row] = await world.store.query<{ report: SignedReport }>(
      "SELECT report FROM engine_reports WHERE execution_id = $1",
      [id],
    );
    const report = row!.report;
    const paid = report.payment_receipt as PaymentReceiptView;
    expect(paid).to.include({
      payment_ref: ref,
      amount: "2.50",
      currency: "USDC",
      recipient: account,
    });
    const events = await receipt.queryFilter(receipt.filters.ReceiptIssued!(account, ref));
    expect(events).to.have.length(1);
    expect(events[0]!.transactionHash).to.equal(paid.receipt.tx_hash);
    // The payment interaction is anchored and listed like every other one.
    const listed = report.api_interactions as InteractionView[];
    const payment = listed.find((i) => i.integration === "payments")!;
    expect(payment).to.include({ method: "POST", http_status: 201, status: "anchored" });
    const chain = world.chains.list().find((c) => c.chainId === payment.chain_id)!;
    expect(
      (await verifyInteractionOnChain(chain.contract("ProofRegistry"), payment)).valid,
    ).to.equal(true);
  });

  it("should settle and receipt exactly once across a restart: no second payment, no second receipt (duplicate paymentRef refused on chain)", async function () {
    const receipt = receiptContract();
    const executionId = `wf_payment_restart_${Date.now()}`;
    const input = { executionId, apiKeyId };
    gateway.hits.length = 0;
    // The first run dies after the gateway settled the payment, before the receipt: the row says
    // settled. Simulate with the gateway call alone.
    const first = await integrations.settle(input);
    const balance = (await receipt.getFunction("balanceOf")(account)) as bigint;
    await world.store.query(
      "UPDATE integration_payments SET state = 'settled', receipt_tx = NULL WHERE payment_ref = $1",
      [first!.payment_ref],
    );
    const again = await integrations.settle(input);
    expect(again!.receipt.tx_hash).to.equal(first!.receipt.tx_hash);
    expect(gateway.hits).to.have.length(1);
    expect((await receipt.getFunction("balanceOf")(account)) as bigint).to.equal(balance);
    expect(
      await receipt.queryFilter(receipt.filters.ReceiptIssued!(null, first!.payment_ref)),
    ).to.have.length(1);

    // A request lost after the gateway settled it: the re-sent request carries the same
    // Idempotency-Key, and the gateway answers the same payment.
    const lost = `wf_payment_lost_${Date.now()}`;
    const ref = serviceFeeRef(lost);
    const settled = await settleServiceFee(
      { store: world.store, client: integrations.client("payments"), chains: world.chains },
      { executionId: lost, recipient: account, amount: "1.00", currency: "USDC" },
    );
    await world.store.query(
      "UPDATE integration_payments SET state = 'requested' WHERE payment_ref = $1",
      [ref],
    );
    const resent = await settleServiceFee(
      { store: world.store, client: integrations.client("payments"), chains: world.chains },
      { executionId: lost, recipient: account, amount: "1.00", currency: "USDC" },
    );
    expect(resent.gateway_payment_id).to.equal(settled.gateway_payment_id);
    expect(resent.receipt.tx_hash).to.equal(settled.receipt.tx_hash);

    const operator = world.chains
      .list()
      .find((c) => c.deployment.contracts.RevShareReceipt)!.operator!;
    await expect(
      receipt.connect(operator).getFunction("issueReceipt")(account, 1n, ref),
    ).to.be.revertedWithCustomError(receipt, "RevShareReceiptDuplicatePaymentRef");
  });

  it("should issue no receipt when the gateway refuses the payment, and keep the row to retry", async function () {
    const executionId = `wf_payment_refused_${Date.now()}`;
    gateway.failNext(402);
    let error: unknown;
    try {
      await integrations.settle({ executionId, apiKeyId });
    } catch (err) {
      error = err;
    }
    expect((error as { code?: string }).code).to.equal("INTEGRATION_REQUEST_REFUSED");
    const ref = serviceFeeRef(executionId);
    expect(await receiptContract().getFunction("isReceipted")(ref)).to.equal(false);
    const [row] = await world.store.query<{ state: string }>(
      "SELECT state FROM integration_payments WHERE payment_ref = $1",
      [ref],
    );
    expect(row!.state).to.equal("requested");
  });
});
