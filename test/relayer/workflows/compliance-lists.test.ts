import { expect } from "chai";
import type { ChainSet } from "../../../relayer/chains/index.ts";
import { runExecution, type EngineDeps } from "../../../relayer/execution/index.ts";
import { insertExecution } from "../../../relayer/executions/store.ts";
import { newExecutionId } from "../../../relayer/model/ids.ts";
import { normaliseWorkflow } from "../../../relayer/workflows/normalise.ts";
import { insertSchedule } from "../../../relayer/workflows/schedules.ts";
import { fireSchedule, workflowCatalogue } from "../../../relayer/workflows/service.ts";
import { RECIPIENT_A } from "../../fixtures/catalogue.ts";
import {
  newClient,
  openDevnetChains,
  rowCounts,
  startWorkflowService,
  type Client,
  type WorkflowService,
} from "../../fixtures/workflow-service.ts";

/**
 * Compliance fails closed on a workflow's jurisdictions: intake refuses a workflow whose required
 * sanctions list is not loaded, the engine screens with exactly the required lists and stops an
 * action (before signing) when one cannot be consulted, and the report names the lists consulted.
 * Also: a cancel landing between the engine's read of a queued execution and its start wins.
 */

function multisendWorkflow(name: string, jurisdictions?: string[]) {
  return {
    name,
    actions: [
      {
        type: "multisend",
        chain: "arbitrum",
        from: "USDC",
        amount: "10",
        recipients: [{ address: RECIPIENT_A, amount: "10" }],
      },
    ],
    ...(jurisdictions ? { compliance: { jurisdictions } } : {}),
  };
}

async function executionView(svc: WorkflowService, id: string) {
  const [row] = await svc.ctx.store.query<{ state: string; error: Record<string, unknown> | null }>(
    "SELECT state, error FROM workflow_executions WHERE id = $1",
    [id],
  );
  const txs = await svc.ctx.store.query("SELECT hash FROM engine_txs WHERE execution_id = $1", [
    id,
  ]);
  const steps = await svc.ctx.store.query<{ state: string }>(
    "SELECT state FROM engine_steps WHERE execution_id = $1 AND action_index >= 0",
    [id],
  );
  const [report] = await svc.ctx.store.query<{ report: Record<string, unknown> }>(
    "SELECT report FROM engine_reports WHERE execution_id = $1",
    [id],
  );
  return { ...row!, txs, steps, report: report?.report };
}

describe("# compliance lists of a workflow's jurisdictions (real app, embedded devnet)", function () {
  this.timeout(240_000);
  let chains: ChainSet;
  let withLists: WorkflowService;
  let withoutLists: WorkflowService;
  let alice: Client;
  let bob: Client;

  before(async () => {
    chains = await openDevnetChains();
    withLists = await startWorkflowService(chains);
    withoutLists = await startWorkflowService(chains, undefined, { sanctionsFiles: null });
    alice = await newClient(withLists);
    bob = await newClient(withoutLists);
  });
  after(async () => {
    await withLists?.close();
    await withoutLists?.close();
    await chains?.close();
  });

  it("should refuse a US workflow with 503 SANCTIONS_LIST_UNAVAILABLE when ofac-sdn is not loaded, storing nothing", async () => {
    const before = await rowCounts(withoutLists);
    const res = await bob.request(
      "POST",
      "/v1/workflows",
      JSON.stringify(multisendWorkflow("us-run", ["US"])),
    );
    expect(res.status).to.equal(503);
    const body = (await res.json()) as { error: string; detail: string; lists: string[] };
    expect(body.error).to.equal("SANCTIONS_LIST_UNAVAILABLE");
    expect(body.lists).to.deep.equal(["ofac-sdn"]);
    expect(body.detail).to.contain("ofac-sdn").and.contain("VERIFLOW_SANCTIONS_FILES");
    expect(await rowCounts(withoutLists)).to.deep.equal(before);
  });

  it("should refuse to deploy a US workflow configuration when ofac-sdn is not loaded, storing nothing", async () => {
    const before = await rowCounts(withoutLists);
    const res = await bob.request(
      "POST",
      "/workflows/deploy",
      JSON.stringify(multisendWorkflow("us-deployed", ["US"])),
    );
    expect(res.status).to.equal(503);
    expect(((await res.json()) as { error: string }).error).to.equal("SANCTIONS_LIST_UNAVAILABLE");
    expect(await rowCounts(withoutLists)).to.deep.equal(before);
  });

  it("should record a schedule firing whose jurisdictions need a list this relayer lacks as a failed execution, queueing nothing", async () => {
    // The schedule was stored by a relayer that had the list (here: written directly into the
    // store of one started without it, as after a restart with another configuration).
    const workflow = normaliseWorkflow(
      "json",
      multisendWorkflow("us-weekly", ["US"]),
      workflowCatalogue(withoutLists.ctx),
    );
    const weekly = (svc: WorkflowService, client: Client) =>
      insertSchedule(
        svc.ctx.store,
        client.id,
        workflow.name,
        { cron: "0 9 * * 1", timezone: "UTC" },
        { workflow },
      );
    const schedule = await weekly(withoutLists, bob);
    const before = await rowCounts(withoutLists);
    const firing = await fireSchedule(withoutLists.ctx, schedule.id, "us-weekly-1");
    expect(firing.outcome).to.equal("refused");
    const after = await rowCounts(withoutLists);
    expect(after.executions).to.equal(before.executions + 1);
    expect(after.executeJobs).to.equal(before.executeJobs);
    const ex = await executionView(withoutLists, firing.executionId!);
    expect(ex.state).to.equal("failed");
    expect(ex.error!.error).to.equal("SANCTIONS_LIST_UNAVAILABLE");
    expect(String(ex.error!.detail)).to.contain("schedule firing refused").and.contain("ofac-sdn");
    // The same firing on the relayer that has the list is queued.
    const listed = await weekly(withLists, alice);
    expect((await fireSchedule(withLists.ctx, listed.id, "us-weekly-1")).outcome).to.equal(
      "queued",
    );
  });

  it("should accept a workflow without jurisdictions when no list file is loaded (oracle and loaded lists)", async () => {
    const res = await bob.request(
      "POST",
      "/v1/workflows",
      JSON.stringify(multisendWorkflow("no-jurisdictions")),
    );
    expect(res.status).to.equal(202);
  });

  it("should stop a US action before signing when ofac-sdn is missing at execution time (SANCTIONS_LIST_UNAVAILABLE)", async () => {
    // Stored as another relayer process (with the list) would have stored it; this one lacks it.
    const workflow = normaliseWorkflow(
      "json",
      multisendWorkflow("us-at-execution", ["US"]),
      workflowCatalogue(withoutLists.ctx),
    );
    const id = newExecutionId();
    await insertExecution(withoutLists.ctx.store, {
      id,
      apiKeyId: bob.id,
      workflow,
      trigger: "api",
      scheduleId: null,
      deploymentId: null,
      costEstimate: null,
    });
    expect(await runExecution(withoutLists.ctx.engine!, id)).to.equal("failed");
    const ex = await executionView(withoutLists, id);
    expect(ex.state).to.equal("failed");
    expect(ex.error!.error).to.equal("SANCTIONS_LIST_UNAVAILABLE");
    expect(String(ex.error!.detail)).to.contain("ofac-sdn");
    expect(ex.txs).to.have.length(0);
  });

  it("should run a US workflow with ofac-sdn loaded and list both consulted lists in the report", async () => {
    const res = await alice.request(
      "POST",
      "/v1/workflows",
      JSON.stringify(multisendWorkflow("us-screened", ["US"])),
    );
    expect(res.status, await res.clone().text()).to.equal(202);
    const { execution_id: id } = (await res.json()) as { execution_id: string };
    expect(await runExecution(withLists.ctx.engine!, id)).to.equal("completed");
    const ex = await executionView(withLists, id);
    const compliance = ex.report!.compliance as {
      required: string[] | null;
      consulted: string[];
      screened: { checked: string[] }[];
    };
    expect(compliance.required).to.have.members(["ofac-sdn", "chainalysis-oracle"]);
    expect(compliance.consulted).to.deep.equal(["chainalysis-oracle", "ofac-sdn"]);
    expect(compliance.screened.length).to.be.greaterThan(0);
    for (const s of compliance.screened)
      expect(s.checked).to.have.members(["ofac-sdn", "chainalysis-oracle"]);
  });

  it("should leave an execution cancelled when the cancel lands between the engine's read and its start", async () => {
    const res = await alice.request(
      "POST",
      "/v1/workflows",
      JSON.stringify(multisendWorkflow("cancel-race")),
    );
    const { execution_id: id } = (await res.json()) as { execution_id: string };
    const deps = withLists.ctx.engine!;
    // The engine's first read returns the row as it was (queued); the cancel then goes through
    // the API before the engine's next statement: exactly the race, without any timing.
    let raced = false;
    const statesAfterCancel: string[] = [];
    const store = new Proxy(deps.store, {
      get(target, prop) {
        if (prop !== "query") {
          const value = Reflect.get(target, prop, target) as unknown;
          return typeof value === "function" ? value.bind(target) : value;
        }
        return async (sql: string, params?: unknown[]) => {
          const rows = await target.query(sql, params);
          if (!raced && /^SELECT id, api_key_id, name, state/.test(sql)) {
            raced = true;
            const cancel = await alice.request("POST", `/v1/workflows/${id}/cancel`);
            expect(cancel.status).to.equal(200);
          } else if (raced) {
            // The state after every statement the engine runs once the cancel is in.
            const [now] = await target.query<{ state: string }>(
              "SELECT state FROM workflow_executions WHERE id = $1",
              [id],
            );
            statesAfterCancel.push(now!.state);
          }
          return rows;
        };
      },
    }) as EngineDeps["store"];
    expect(await runExecution({ ...deps, store }, id)).to.equal("cancelled");
    expect(raced).to.equal(true);
    const ex = await executionView(withLists, id);
    expect(ex.state).to.equal("cancelled");
    expect(statesAfterCancel).to.not.be.empty;
    expect(new Set(statesAfterCancel)).to.deep.equal(new Set(["cancelled"]));
    // Not started: nothing proven, attested or reported for it.
    expect(ex.steps).to.have.length(0);
    expect(ex.txs).to.have.length(0);
    expect(ex.report).to.equal(undefined);
  });
});
