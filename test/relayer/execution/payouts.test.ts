import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { Contract, keccak256, parseUnits, toUtf8Bytes, Wallet } from "ethers";
import {
  settlementKey,
  verifyInteractionOnChain,
  type InteractionView,
} from "../../../relayer/integrations/index.ts";
import { ERC20_ABI } from "../../../relayer/routing/abis.ts";
import { tokenOf } from "../../../relayer/routing/chain.ts";
import type { ReportOrders } from "../../../relayer/report/report.ts";
import { startCrm, startPaymentGateway, type StandIn } from "../../fixtures/standins/index.ts";
import { startEngineService, type EngineService } from "../../fixtures/engine.ts";
import { RECIPIENTS_FROM_JSON, RECIPIENTS_FROM_YAML } from "../../fixtures/workflows.ts";
import { nextRun } from "../../../relayer/workflows/schedule-phrase.ts";
import { fireSchedule } from "../../../relayer/workflows/fire.ts";
import { auditReport } from "../../../relayer/audit/index.ts";
import { closeProver } from "../../../relayer/proofs/index.ts";
import { readAuditKeys } from "../../../relayer/audit/node.ts";
import { reportCid, type ReportBody, type SignedReport } from "../../../relayer/report/report.ts";
import {
  HMAC_KEY,
  JWT_SECRET,
  trustPayoutStandIns,
  writePayoutIntegrations,
} from "../integrations/world.ts";

/**
 * A CRM-fed payout through the whole relayer: the intake refuses a bad `recipients_from`, the
 * engine fetches the unpaid orders (the relayer sends X-Blockchain-Proof, checks the HMAC and the
 * schema, anchors the answer), pays them in one multisend, settles each with the payment gateway
 * exactly once, and the report lists the orders with their anchor, the settlements and what is
 * paid but not settled.
 */
describe("# CRM-fed payouts in the engine (recipients_from → multisend → POST /payments)", function () {
  this.timeout(300_000);
  let dir: string;
  let service: EngineService;
  let crm: StandIn;
  let gateway: StandIn;
  const wallets = [0, 1, 2].map(() => Wallet.createRandom().address);
  const orders = [
    { id: "ord_1", customer: "acme", amount: "12.5", currency: "USDC", status: "unpaid" },
    { id: "ord_2", customer: "globex", amount: "80", currency: "USDC", status: "paid" },
    { id: "ord_3", customer: "initech", amount: "3.25", currency: "USDC", status: "unpaid" },
    { id: "ord_4", customer: "umbrella", amount: "40", currency: "USDC", status: "unpaid" },
  ].map((o, i) => ({ ...o, wallet: wallets[i % 3]! }));

  before(async function () {
    dir = await mkdtemp(path.join(os.tmpdir(), "vf-payouts-"));
    crm = await startCrm({ jwtSecret: JWT_SECRET, hmacKey: HMAC_KEY, orders });
    gateway = await startPaymentGateway({ jwtSecret: JWT_SECRET });
    const file = path.join(dir, "integrations.json");
    await writePayoutIntegrations(file, { crm, gateway });
    service = await startEngineService({ env: { VERIFLOW_INTEGRATIONS: file } });
    await trustPayoutStandIns(service.ctx, { crm, gateway });
  });
  after(async function () {
    await service?.close();
    // The audit's proof verification runs on snarkjs' threads: stop them.
    await closeProver();
    await crm?.close();
    await gateway?.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(function () {
    crm.hits.length = 0;
    gateway.hits.length = 0;
    crm.override(null);
  });

  const executions = async () =>
    Number(
      (
        await service.ctx.store.query<{ n: string }>(
          "SELECT count(*)::text AS n FROM workflow_executions",
        )
      )[0]!.n,
    );
  const payout = (patch: (a: Record<string, unknown>) => void = () => {}) => {
    const body = structuredClone(RECIPIENTS_FROM_JSON) as {
      schedule?: string;
      timezone?: string;
      actions: Record<string, unknown>[];
    };
    delete body.schedule;
    delete body.timezone;
    body.actions[0]!.amount = "500";
    patch(body.actions[0]!);
    return JSON.stringify(body);
  };
  type View = {
    state: string;
    error: { error: string; detail: string } | null;
    report: { report: Record<string, unknown> } | null;
  };
  async function run(key: Awaited<ReturnType<EngineService["newKey"]>>, body: string) {
    const submitted = await service.request(key, "POST", "/v1/workflows", body);
    expect(submitted.status, await submitted.clone().text()).to.equal(202);
    const { execution_id: id } = (await submitted.json()) as { execution_id: string };
    for (;;) {
      const view = (await (
        await service.request(key, "GET", `/v1/workflows/${id}`)
      ).json()) as View;
      if (["completed", "failed", "cancelled"].includes(view.state)) return { id, view };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  /** The gateway's order settlements (the service fee is a payment without an order). */
  const settlementHits = () =>
    gateway.hits.filter((h) => (JSON.parse(h.body || "{}") as { order_id?: string }).order_id);
  const usdc = () => {
    const chain = service.chains.list().find((c) => c.name === "arbitrum")!;
    return new Contract(tokenOf(chain, "USDC").address, ERC20_ABI, chain.provider);
  };
  const balances = () =>
    Promise.all(wallets.map((w) => usdc().getFunction("balanceOf")(w) as Promise<bigint>));

  it("should refuse an unknown integration and a bad field name with 400 {error, detail} and store nothing", async function () {
    const key = await service.newKey();
    const before = await executions();
    for (const [patch, path] of [
      [
        (a: Record<string, unknown>) =>
          ((a.recipients_from as { integration: string }).integration = "payments"),
        "actions.0.recipients_from.integration",
      ],
      [
        (a: Record<string, unknown>) =>
          ((a.recipients_from as { amount: string }).amount = "amount due"),
        "actions.0.recipients_from.amount",
      ],
    ] as const) {
      const res = await service.request(key, "POST", "/v1/workflows", payout(patch));
      expect(res.status).to.equal(400);
      const body = (await res.json()) as {
        error: string;
        detail: string;
        issues: { path: string }[];
      };
      expect(body.error).to.equal("VALIDATION_FAILED");
      expect(body.detail).to.be.a("string").and.not.equal("");
      expect(body.issues.map((i) => i.path)).to.include(path);
    }
    expect(await executions()).to.equal(before);
    expect(crm.hits).to.have.length(0);
  });

  it("should fetch the unpaid orders with X-Blockchain-Proof, pay them in one multisend, settle each once, and report orders, anchors and settlements", async function () {
    const key = await service.newKey();
    const before = await balances();
    const { id, view } = await run(key, payout());
    expect(view.state, JSON.stringify(view.error)).to.equal("completed");

    expect(crm.hits).to.have.length(1);
    expect(crm.hits[0]!.headers["x-blockchain-proof"]).to.equal("true");
    expect(crm.hits[0]!.signatureValid).to.equal(true);
    expect(crm.hits[0]!.target).to.equal("/v2/crm/orders?status=unpaid");

    // Paid on chain: ord_1 (12.5) and ord_4 (40) to wallet 0, ord_3 (3.25) to wallet 2.
    const after = await balances();
    expect(after[0]! - before[0]!).to.equal(parseUnits("52.5", 6));
    expect(after[1]! - before[1]!).to.equal(0n);
    expect(after[2]! - before[2]!).to.equal(parseUnits("3.25", 6));

    const unpaid = ["ord_1", "ord_3", "ord_4"];
    expect(settlementHits().map((h) => h.headers["idempotency-key"])).to.deep.equal(
      unpaid.map((o) => settlementKey(id, o)),
    );
    const report = view.report!.report;
    const section = report.orders as ReportOrders;
    expect(section.unsettled).to.deep.equal([]);
    expect(section.settlements.map((s) => s.order_id)).to.deep.equal(unpaid);
    expect(section.used).to.have.length(1);
    const used = section.used[0]!;
    expect(used.orders.map((o) => [o.id, o.amount])).to.deep.equal([
      ["ord_1", "12.5"],
      ["ord_3", "3.25"],
      ["ord_4", "40"],
    ]);
    // The response as received hashes to the anchored response hash, and lists these orders.
    expect(keccak256(toUtf8Bytes(used.response!))).to.equal(used.response_hash);
    const listed = (JSON.parse(used.response!) as { data: { id: string }[] }).data.map((o) => o.id);
    expect(listed).to.deep.equal(unpaid);
    // Its anchor is the interaction's, and every interaction (fetch, settlements) verifies on chain.
    const interactions = report.api_interactions as InteractionView[];
    expect((used.anchor as InteractionView).id).to.equal(used.interaction_id);
    expect(interactions.map((i) => i.id)).to.include.members([
      used.interaction_id,
      ...section.settlements.map((s) => s.interaction_id),
    ]);
    for (const i of interactions) {
      const chain = service.chains.list().find((c) => c.chainId === i.chain_id)!;
      const check = await verifyInteractionOnChain(chain.contract("ProofRegistry"), i);
      expect(check.valid, check.reason).to.equal(true);
    }
    // Proved: the payout's one circuit slot holds the multisend transaction and its total.
    expect(report.zk_proof, String(report.proof_note)).to.be.a("string");
    const claim = report.claim as { actions: Array<{ recipient_amounts?: string[] }> };
    expect(claim.actions[0]!.recipient_amounts).to.deep.equal([parseUnits("55.75", 6).toString()]);
    // The auditor re-derives the orders from the anchored answer and finds them paid on chain; a
    // report whose orders differ from the anchored answer (re-signed by the relayer) fails.
    const env = { chains: service.chains.list(), ...(await readAuditKeys()) };
    const genuine = view.report!.report as unknown as SignedReport;
    const verdict = await auditReport(genuine, env);
    expect(verdict.ok, JSON.stringify(verdict.checks.filter((c) => !c.ok))).to.equal(true);
    const forged = structuredClone(genuine) as SignedReport;
    forged.orders!.used[0]!.orders[1]!.address = Wallet.createRandom().address;
    const { artifact_id: _a, signer: _s, signature: _g, ...body } = forged;
    const operator = service.chains
      .list()
      .find((c) => c.chainId === genuine.relayer.chain_id)!.operator!;
    const cid = await reportCid(body);
    const resigned = {
      ...(body as ReportBody),
      artifact_id: cid,
      signer: await operator.getAddress(),
      signature: await operator.signMessage(cid),
    };
    const failedChecks = (await auditReport(resigned, env)).checks
      .filter((c) => !c.ok)
      .map((c) => `${c.id}: ${c.reason}`);
    expect(failedChecks.join("\n")).to.include("the report's orders are not the anchored answer's");
    // The multisend step's result carries the orders it paid.
    const action = (
      report.actions as Array<{ result: { recipients: unknown[]; orders: unknown } }>
    )[0]!;
    expect(action.result.recipients).to.have.length(3);
    expect(action.result.orders).to.deep.include({ interaction_id: used.interaction_id });
  });

  it("should list the orders paid on chain but not settled when the gateway keeps failing after the critical policy's 5 attempts", async function () {
    const key = await service.newKey();
    gateway.failNext(503, 5);
    const { id, view } = await run(key, payout());
    expect(view.state).to.equal("completed");
    const section = view.report!.report.orders as ReportOrders;
    // The first order's five attempts all failed; the next orders settled.
    expect(
      settlementHits()
        .slice(0, 5)
        .map((h) => h.headers["idempotency-key"]),
    ).to.deep.equal(Array(5).fill(settlementKey(id, "ord_1")));
    expect(section.unsettled.map((u) => u.order_id)).to.deep.equal(["ord_1"]);
    expect(section.unsettled[0]!.error).to.be.a("string").and.not.equal("");
    expect(section.settlements.map((s) => s.order_id)).to.deep.equal(["ord_3", "ord_4"]);
    const [row] = await service.ctx.store.query<{ state: string; attempts: number }>(
      "SELECT state, attempts FROM integration_order_settlements WHERE settlement_key = $1",
      [settlementKey(id, "ord_1")],
    );
    expect(row).to.deep.equal({ state: "failed", attempts: 1 });
  });

  it("should pay nothing when the orders exceed the budget, or the answer fails its HMAC", async function () {
    const key = await service.newKey();
    const before = await balances();
    const over = await run(
      key,
      payout((a) => (a.amount = "50")),
    );
    expect(over.view.state).to.equal("failed");
    expect(over.view.error!.error).to.equal("ORDERS_OVER_BUDGET");
    crm.override(() => ({ status: 200, body: { data: [], hmac: "0".repeat(64) } }));
    const forged = await run(key, payout());
    expect(forged.view.state).to.equal("failed");
    expect(forged.view.error!.error).to.equal("INTEGRATION_RESPONSE_SIGNATURE_INVALID");
    expect(await balances()).to.deep.equal(before);
    expect(settlementHits()).to.have.length(0);
  });

  it("should run 'every Friday at 17:00 CET pay unpaid orders' when the scheduler fires it, once per firing", async function () {
    const key = await service.newKey();
    const yaml = RECIPIENTS_FROM_YAML.replace("amount: 5000", "amount: 500");
    // Deployed: the schedule is registered without a run now.
    const deployed = await service.request(key, "POST", "/workflows/deploy", yaml, {
      "Content-Type": "application/yaml",
    });
    expect(deployed.status, await deployed.clone().text()).to.equal(201);
    const { schedule } = (await deployed.json()) as {
      schedule: { id: string; cron: string; timezone: string; phrase: string };
    };
    expect(crm.hits).to.have.length(0);
    expect(schedule).to.deep.include({
      cron: "0 17 * * 5",
      timezone: "Europe/Berlin",
      phrase: "every Friday at 17:00 CET",
    });
    // The scheduler's clock, driven: 17:00 Berlin civil time, winter (UTC+1) and summer (UTC+2).
    const row = { cron: schedule.cron, timezone: schedule.timezone };
    expect(nextRun(row, new Date("2026-11-26T12:00:00Z"))).to.equal("2026-11-27T16:00:00.000Z");
    expect(nextRun(row, new Date("2026-11-27T16:00:00Z"))).to.equal("2026-12-04T16:00:00.000Z");
    expect(nextRun(row, new Date("2026-07-01T00:00:00Z"))).to.equal("2026-07-03T15:00:00.000Z");
    const [cron] = await service.ctx.queue.boss.getSchedules("workflow.schedule", schedule.id);
    expect(cron).to.include({ cron: "0 17 * * 5", timezone: "Europe/Berlin" });

    // The firing pg-boss sends at that time.
    const before = await balances();
    const fired = await fireSchedule(service.ctx, schedule.id, "friday-2026-11-27");
    expect(fired.outcome).to.equal("queued");
    const id = fired.executionId!;
    let view: View;
    for (;;) {
      view = (await (await service.request(key, "GET", `/v1/workflows/${id}`)).json()) as View;
      if (["completed", "failed", "cancelled"].includes(view.state)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(view.state, JSON.stringify(view.error)).to.equal("completed");
    const after = await balances();
    expect(after[0]! - before[0]!).to.equal(parseUnits("52.5", 6));
    const section = view.report!.report.orders as ReportOrders;
    expect(section.settlements.map((s) => s.order_id)).to.deep.equal(["ord_1", "ord_3", "ord_4"]);
    expect(settlementHits().map((h) => h.headers["idempotency-key"])).to.deep.equal(
      ["ord_1", "ord_3", "ord_4"].map((o) => settlementKey(id, o)),
    );
    // The same firing delivered again creates nothing.
    expect((await fireSchedule(service.ctx, schedule.id, "friday-2026-11-27")).outcome).to.equal(
      "duplicate",
    );
    expect(crm.hits).to.have.length(1);
  });
});
