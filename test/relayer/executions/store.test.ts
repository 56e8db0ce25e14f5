import { expect } from "chai";
import { Wallet } from "ethers";
import {
  acquireLease,
  complianceAlerts,
  findExecution,
  findReport,
  finishStep,
  insertExecution,
  insertReport,
  loadExecution,
  loadSteps,
  markRunning,
  orphanedExecutions,
  recordAlert,
  releaseLease,
  requestCancel,
  setExecution,
  startStep,
} from "../../../relayer/executions/store.ts";
import type { SignedReport } from "../../../relayer/report/report.ts";
import type { Workflow } from "../../../relayer/model/workflow.ts";
import { newExecutionId } from "../../../relayer/model/ids.ts";
import { bridgeStepResult, riskEvaluation } from "../../fixtures/results.ts";
import { openTestStore } from "../../fixtures/engine.ts";

const WORKFLOW: Workflow = {
  modelVersion: 1,
  name: "repository",
  format: "json",
  actions: [
    {
      index: 0,
      type: "bridge",
      from: "DAI",
      amount: "100",
      input: "explicit",
      destination: "polygon",
      fallbackChains: [],
    },
  ],
  compliance: { jurisdictions: [], taxForms: [], sanctionsLists: [] },
  fallbackChains: [],
  riskThreshold: 0.7,
  gasStrategy: "eco",
};

describe("# executions repository (workflow_executions and the engine's tables, PGlite)", function () {
  let store: Awaited<ReturnType<typeof openTestStore>>;
  beforeEach(async function () {
    store = await openTestStore();
  });
  afterEach(async function () {
    await store.close();
  });

  async function queued(apiKeyId = "key_a"): Promise<string> {
    const id = newExecutionId();
    await insertExecution(store, {
      id,
      apiKeyId,
      workflow: WORKFLOW,
      trigger: "api",
      costEstimate: { total_usd: 1, gas_breakdown: { arbitrum: 1 } },
    });
    return id;
  }

  it("should read an inserted execution back typed, to its key only", async function () {
    const id = await queued();
    const row = await findExecution(store, "key_a", id);
    expect(row).to.deep.include({ id, state: "queued", stage: "validate", cancelRequested: false });
    expect(row!.workflow).to.deep.equal(WORKFLOW);
    expect(row!.costEstimate).to.deep.equal({ total_usd: 1, gas_breakdown: { arbitrum: 1 } });
    expect(await findExecution(store, "key_b", id)).to.equal(null);
  });

  it("should run a queued execution once marked running, and never a cancelled one", async function () {
    const running = await queued();
    expect(await markRunning(store, running)).to.equal(true);
    expect((await loadExecution(store, running))!.state).to.equal("running");
    // Cancelling a running execution only requests it: the engine stops before the next action.
    expect(await requestCancel(store, "key_a", running)).to.deep.equal({
      cancelled: true,
      state: "running",
    });
    expect((await loadExecution(store, running))!.cancelRequested).to.equal(true);

    const cancelled = await queued();
    expect(await requestCancel(store, "key_a", cancelled)).to.deep.equal({
      cancelled: true,
      state: "cancelled",
    });
    expect(await markRunning(store, cancelled)).to.equal(false);
    expect(await requestCancel(store, "key_b", cancelled)).to.equal(null);
    await setExecution(store, running, {
      state: "failed",
      stage: "report",
      error: { error: "NO_ROUTE", detail: "x" },
    });
    expect(await requestCancel(store, "key_a", running)).to.deep.equal({
      cancelled: false,
      state: "failed",
    });
    expect((await findExecution(store, "key_a", running))!.error).to.deep.equal({
      error: "NO_ROUTE",
      detail: "x",
    });
  });

  it("should keep a step's typed result, risk and error, and refuse a stored result that does not parse", async function () {
    const id = await queued();
    await startStep(store, id, 0, "BridgeAgent", "arbitrum", null, {
      asset: "DAI",
      amount: "100",
      previous: null,
    });
    const result = bridgeStepResult();
    await finishStep(store, id, 0, "completed", { result, risk: riskEvaluation(0.2) });
    const step = (await loadSteps(store, id)).get(0)!;
    expect(step.state).to.equal("completed");
    expect(step.result).to.deep.equal(result);
    expect(step.risk!.score).to.equal(0.2);

    await store.query(
      `UPDATE engine_steps SET result = result - 'dest_tx' WHERE execution_id = $1 AND action_index = 0`,
      [id],
    );
    const err = await loadSteps(store, id).catch((e: unknown) => e);
    expect(String(err)).to.match(/engine_steps .*#0 result does not parse/);
  });

  it("should let one owner hold a lease until it expires or is released, and list runs it orphaned", async function () {
    const id = await queued();
    await markRunning(store, id);
    expect(await orphanedExecutions(store)).to.deep.equal([id]);
    expect(await acquireLease(store, id, 30, "worker-a")).to.equal(true);
    expect(await acquireLease(store, id, 30, "worker-b")).to.equal(false);
    expect(await orphanedExecutions(store)).to.deep.equal([]);
    await releaseLease(store, id, "worker-b"); // not the owner: nothing happens
    expect(await acquireLease(store, id, 30, "worker-b")).to.equal(false);
    await store.query("UPDATE engine_leases SET expires_at = now() - interval '1 second'");
    expect(await orphanedExecutions(store)).to.deep.equal([id]);
    expect(await acquireLease(store, id, 30, "worker-b")).to.equal(true);
    await releaseLease(store, id, "worker-b");
    expect(await acquireLease(store, id, 30, "worker-a")).to.equal(true);
  });

  it("should keep the first report of an execution and its alerts in order", async function () {
    const id = await queued();
    const address = Wallet.createRandom().address;
    await recordAlert(
      store,
      id,
      0,
      { address, sanctioned: true, sources: ["ofac-sdn"], checked: ["ofac-sdn"] },
      "recipient",
    );
    const alerts = await complianceAlerts(store, id);
    expect(alerts).to.have.length(1);
    expect(alerts[0]).to.deep.include({
      action_index: 0,
      address,
      role: "recipient",
      sources: ["ofac-sdn"],
    });
    const report = { artifact_id: "bafy-first", signer: "0x1", signature: "0x2" } as SignedReport;
    await insertReport(store, id, report, "bafy-signed-first");
    await insertReport(store, id, { ...report, artifact_id: "bafy-second" }, "bafy-signed-second");
    expect((await findReport(store, id))!.cid).to.equal("bafy-first");
    expect((await findReport(store, id))!.signed_cid).to.equal("bafy-signed-first");
  });
});
