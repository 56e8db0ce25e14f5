import { expect } from "chai";
import type { ChainSet } from "../../../relayer/chains/index.ts";
import { runExecution, type EngineDeps } from "../../../relayer/execution/index.ts";
import { insertExecution } from "../../../relayer/executions/store.ts";
import { newExecutionId } from "../../../relayer/model/ids.ts";
import { normaliseWorkflow } from "../../../relayer/workflows/normalise.ts";
import { insertSchedule } from "../../../relayer/workflows/schedules.ts";
import { fireSchedule } from "../../../relayer/workflows/fire.ts";
import { workflowCatalogue } from "../../../relayer/workflows/prepare.ts";
import type { JsonRpcApiProvider } from "ethers";
import { CONTRACT_NAMES } from "../../../relayer/deployments/index.ts";
import { DEVNET_SANCTIONED } from "../../../relayer/devnet/accounts.ts";
import { RECIPIENT_A } from "../../fixtures/catalogue.ts";
import {
  newClient,
  openDevnetChains,
  rowCounts,
  startWorkflowService,
  type Client,
  type WorkflowService,
} from "../../fixtures/workflow-service.ts";
import { SIGNED_V2 } from "../../fixtures/relayer.ts";

/**
 * Compliance fails closed on a workflow's jurisdictions and on oracles that do not answer: intake refuses a workflow whose required
 * sanctions list is not loaded, the engine screens with exactly the required lists and stops an
 * action (before signing) when one cannot be consulted, and the report names the lists consulted.
 * Also: a cancel landing between the engine's read of a queued execution and its start wins.
 */

/** On the shipped OFAC snapshot (ofac-sdn), not on the devnet oracles. */
const TORNADO_ROUTER = "0x8589427373D6D84E98730D7795D8f6f8731FDA16";
/** PUSH1 0 PUSH1 0 REVERT: an oracle contract whose every call reverts. */
const REVERTING = "0x60006000fd";

type Screened = {
  address: string;
  checked: string[];
  sources: string[];
  answered: { list: string; chain?: string; source?: string }[];
  routed_around: { list: string; chain: string; source: string; reason: string }[];
};

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
            const cancel = await alice.request(
              "POST",
              `/v1/workflows/${id}/cancel`,
              undefined,
              SIGNED_V2,
            );
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

  /**
   * The engine's own screening routed around an oracle that does not answer (spec 504: "verify
   * the oracle is live; route around"): the action chain's oracle reverting, another chain's RPC
   * down. Another chain's oracle or the loaded lists answer instead, a sanctioned address is still
   * caught by whichever source answered, the report's compliance record names who answered and
   * who was routed around, and with no source answering the execution fails closed before
   * anything is signed.
   */
  describe("oracles that do not answer, routed around (spec 504)", function () {
    const oracleOf = (name: string) =>
      chains.byName(name).deployment.contracts[CONTRACT_NAMES.sanctionsOracle]!.address;
    const rpc = (name: string) => chains.byName(name).provider as unknown as JsonRpcApiProvider;

    /** Runs `fn` with the named chains' oracles reverting and the named chains' RPC down. */
    async function degraded<T>(
      faults: { reverting: string[]; stopped?: string[] },
      fn: () => Promise<T>,
    ): Promise<T> {
      const saved = new Map<string, string>();
      for (const name of faults.reverting) {
        saved.set(name, await rpc(name).getCode(oracleOf(name)));
        await rpc(name).send("hardhat_setCode", [oracleOf(name), REVERTING]);
      }
      for (const name of faults.stopped ?? []) await chains.byName(name).faults!.stopRpc();
      try {
        return await fn();
      } finally {
        for (const name of faults.stopped ?? []) await chains.byName(name).faults!.startRpc();
        for (const [name, code] of saved)
          await rpc(name).send("hardhat_setCode", [oracleOf(name), code]);
      }
    }

    /**
     * Submits a multisend to `recipient` on arbitrum (every chain up: intake estimates the cost on
     * them), then runs it in the engine under `faults`; `mined` counts arbitrum's blocks meanwhile.
     */
    async function run(
      svc: WorkflowService,
      client: Client,
      workflow: ReturnType<typeof multisendWorkflow>,
      recipient: string,
      faults: { reverting: string[]; stopped?: string[] },
    ) {
      workflow.actions[0]!.recipients = [{ address: recipient, amount: "10" }];
      const res = await client.request("POST", "/v1/workflows", JSON.stringify(workflow));
      expect(res.status, await res.clone().text()).to.equal(202);
      const { execution_id: id } = (await res.json()) as { execution_id: string };
      const arbitrum = chains.byName("arbitrum").provider;
      const before = await arbitrum.getBlockNumber();
      const state = await degraded(faults, () => runExecution(svc.ctx.engine!, id));
      const mined = (await arbitrum.getBlockNumber()) - before;
      const alerts = await svc.ctx.store.query<{ address: string }>(
        "SELECT address FROM engine_compliance_alerts WHERE execution_id = $1",
        [id],
      );
      const view = await executionView(svc, id);
      const report = view.report as
        { compliance: { consulted: string[]; screened: Screened[] } } | undefined;
      return {
        ...view,
        state,
        error: view.error as { error: string; detail: string },
        report,
        alerts,
        mined,
      };
    }

    it("should complete through another chain's oracle when the action chain's oracle reverts and a third chain's RPC is down, naming each in the report", async () => {
      const ethereum = chains.byName("ethereum");
      const outcome = await run(
        withoutLists,
        bob,
        multisendWorkflow("routed-through-ethereum"),
        RECIPIENT_A,
        { reverting: ["arbitrum"], stopped: ["polygon"] },
      );
      expect(outcome.state, JSON.stringify(outcome.error)).to.equal("completed");
      expect(outcome.txs.length).to.be.greaterThan(0);
      const { consulted, screened } = outcome.report!.compliance;
      expect(consulted).to.deep.equal(["chainalysis-oracle"]);
      expect(screened.map((s) => s.address)).to.include(RECIPIENT_A);
      for (const s of screened) {
        expect(s.checked).to.deep.equal(["chainalysis-oracle"]);
        expect(s.answered).to.deep.equal([
          {
            list: "chainalysis-oracle",
            chain: "ethereum",
            source: `eip155:${ethereum.chainId}:${oracleOf("ethereum")}`,
          },
        ]);
        expect(s.routed_around.map((r) => r.chain).sort()).to.deep.equal(["arbitrum", "polygon"]);
        for (const r of s.routed_around) expect(r.reason).to.be.a("string").and.not.equal("");
      }
    });

    it("should still catch a sanctioned recipient when only another chain's oracle answers", async () => {
      const sanctioned = DEVNET_SANCTIONED[0]!.address;
      const outcome = await run(
        withoutLists,
        bob,
        multisendWorkflow("caught-elsewhere"),
        sanctioned,
        { reverting: ["arbitrum"] },
      );
      expect(outcome.state).to.equal("failed");
      expect(outcome.error!.error).to.equal("SANCTIONED_ADDRESS");
      expect(outcome.error!.detail).to.include("chainalysis-oracle");
      expect(outcome.txs).to.have.length(0);
      expect(outcome.alerts.map((a) => a.address.toLowerCase())).to.include(
        sanctioned.toLowerCase(),
      );
    });

    it("should screen with the loaded lists when no oracle answers, and catch a listed address there", async () => {
      const all = ["ethereum", "arbitrum", "polygon"];
      const clean = await run(withLists, alice, multisendWorkflow("lists-only"), RECIPIENT_A, {
        reverting: all,
      });
      expect(clean.state, JSON.stringify(clean.error)).to.equal("completed");
      for (const s of clean.report!.compliance.screened) {
        expect(s.checked).to.deep.equal(["ofac-sdn"]);
        expect(s.answered).to.deep.equal([{ list: "ofac-sdn" }]);
        expect(s.routed_around.map((r) => r.chain).sort()).to.deep.equal(all.sort());
      }
      const listed = await run(withLists, alice, multisendWorkflow("lists-catch"), TORNADO_ROUTER, {
        reverting: all,
      });
      expect(listed.state).to.equal("failed");
      expect(listed.error!.error).to.equal("SANCTIONED_ADDRESS");
      expect(listed.error!.detail).to.include("ofac-sdn");
      expect(listed.txs).to.have.length(0);
    });

    it("should fail closed with ORACLE_UNAVAILABLE when no source answers, broadcasting nothing", async () => {
      const outcome = await run(
        withoutLists,
        bob,
        multisendWorkflow("nothing-answers"),
        RECIPIENT_A,
        {
          reverting: ["ethereum", "arbitrum"],
          stopped: ["polygon"],
        },
      );
      expect(outcome.state).to.equal("failed");
      expect(outcome.error!.error).to.equal("ORACLE_UNAVAILABLE");
      expect(outcome.error!.detail)
        .to.include("no sanctions source answered")
        .and.include("ethereum")
        .and.include("polygon")
        .and.include("nothing was sent");
      expect(outcome.txs).to.have.length(0);
      expect(outcome.mined).to.equal(0);
    });

    it("should refuse a workflow whose jurisdictions require the oracle list when no oracle answers, even with the lists loaded", async () => {
      const outcome = await run(
        withLists,
        alice,
        multisendWorkflow("us-oracles-down", ["US"]),
        RECIPIENT_A,
        { reverting: ["ethereum", "arbitrum", "polygon"] },
      );
      expect(outcome.state).to.equal("failed");
      expect(outcome.error.error).to.equal("SANCTIONS_LIST_UNAVAILABLE");
      expect(outcome.error.detail)
        .to.include("no sanctions oracle answered")
        .and.include("arbitrum");
      expect(outcome.txs).to.have.length(0);
    });
  });
});
