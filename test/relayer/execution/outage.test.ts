import { expect } from "chai";
import { Wallet } from "ethers";
import { ensureAccount } from "../../../relayer/accounts/index.ts";
import type { EngineStore } from "../../../relayer/accounts/store.ts";
import { findReport, requestCancel, waitingReports } from "../../../relayer/executions/index.ts";
import { homeChain } from "../../../relayer/execution/finalize.ts";
import type { ChainHandle } from "../../../relayer/chains/index.ts";
import { runExecution } from "../../../relayer/execution/orchestrator.ts";
import type { RoutingChain } from "../../../relayer/routing/chain.ts";
import { JOB_NAMES } from "../../../relayer/queue/index.ts";
import { TxJournal } from "../../../relayer/transactions/journal.ts";
import {
  balanceOf,
  devnetFunder,
  normalise,
  startEngineService,
  submitExecution,
  units,
  useEngineWorld,
  type EngineService,
} from "../../fixtures/engine.ts";
import { eventually } from "../../fixtures/platform.ts";

/**
 * A chain's RPC that drops for a while (devnet fault: every request refused, chain state kept):
 * the engine waits for it up to the outage window, with exactly one transaction per step; past the
 * window the action fails with CHAIN_UNAVAILABLE and nothing of it was sent.
 */
/** The JSON-RPC `send` of a devnet chain's provider (an ethers BrowserProvider over EDR). */
function jsonRpcOf(chain: RoutingChain): {
  send(method: string, params: unknown[]): Promise<unknown>;
} {
  return chain.provider as unknown as { send(method: string, params: unknown[]): Promise<unknown> };
}

/**
 * Stops `chain`'s RPC at its first request once `when()` holds, back after `outageMs` (or only at
 * `end()`, which also stops watching).
 */
function outageOnce(
  chain: ChainHandle,
  when: () => Promise<boolean>,
  outageMs: number | null,
): { began(): boolean; end(): Promise<void> } {
  const rpc = jsonRpcOf(chain);
  const send = rpc.send.bind(rpc);
  let began = false;
  let restart: NodeJS.Timeout | undefined;
  rpc.send = async (method, params) => {
    if (!began && (await when())) {
      began = true;
      await chain.faults!.stopRpc();
      if (outageMs !== null) restart = setTimeout(() => void chain.faults!.startRpc(), outageMs);
    }
    return send(method, params);
  };
  return {
    began: () => began,
    async end() {
      rpc.send = send;
      clearTimeout(restart);
      await chain.faults!.startRpc();
    },
  };
}

/** Whether `sql` (with the execution id as $1) finds a row: a moment to start an outage at. */
const rowFound = (store: Pick<EngineStore, "query">, sql: string, id: string) => async () =>
  (await store.query(sql, [id])).length > 0;

/** Once the first action's step is stored completed. */
const firstStepCompleted = (store: Pick<EngineStore, "query">, id: string) =>
  rowFound(
    store,
    "SELECT 1 FROM engine_steps WHERE execution_id = $1 AND action_index = 0 AND state = 'completed'",
    id,
  );

/** Two multisends of 10 USDC pinned to polygon, one recipient each. */
function twoPolygonMultisends(name: string) {
  const recipients = [Wallet.createRandom().address, Wallet.createRandom().address];
  const document = {
    name,
    actions: recipients.map((address) => ({
      type: "multisend",
      chain: "polygon",
      from: "USDC",
      amount: "10",
      recipients: [{ address, amount: "10" }],
    })),
  };
  return { document, recipients };
}

describe("# chain outages during an execution (embedded devnet)", function () {
  this.timeout(300_000);
  const apiKeyId = "key_outage";
  const world = useEngineWorld(apiKeyId);

  /** A multisend pinned to polygon with no fallback chain: only waiting can save it. */
  function pinnedMultisend(name: string) {
    const recipients = [Wallet.createRandom().address, Wallet.createRandom().address];
    const workflow = normalise(world, {
      name,
      actions: [
        {
          type: "multisend",
          chain: "polygon",
          from: "USDC",
          amount: "30",
          recipients: recipients.map((address) => ({ address, amount: "15" })),
        },
      ],
    });
    return { workflow, recipients };
  }

  /** The execution's journalled transactions, and those its account sent on `chain`. */
  async function journalled(executionId: string, chain = world.chains.byName("polygon")) {
    const txs = await new TxJournal(world.store).list(executionId);
    const [own] = await world.store.query<{ n: string }>(
      "SELECT count(*) AS n FROM engine_txs WHERE execution_id = $1 AND chain_id = $2 AND sender = $3",
      [executionId, chain.chainId, world.account],
    );
    const versions = await world.store.query<{ n: string }>(
      "SELECT count(*) AS n FROM engine_tx_versions v JOIN engine_txs t ON t.id = v.tx_id WHERE t.execution_id = $1",
      [executionId],
    );
    return { txs, own: Number(own!.n), versions: Number(versions[0]!.n) };
  }

  /**
   * Runs execution `id` with `chain`'s RPC stopped at its first request once `when()` holds, back
   * after `outageMs` (or only after the run). Whether the outage began, and the execution's state.
   */
  async function runWithOutage(
    chain: ChainHandle,
    when: () => Promise<boolean>,
    outageMs: number | null,
    deps: Parameters<typeof runExecution>[0],
    id: string,
  ): Promise<{ began: boolean; state: string }> {
    const outage = outageOnce(chain, when, outageMs);
    try {
      const state = await runExecution(deps, id);
      return { began: outage.began(), state };
    } finally {
      await outage.end();
    }
  }

  const holds = (sql: string, id: string) => rowFound(world.store, sql, id);

  async function execution(id: string) {
    const [row] = await world.store.query<{ state: string; error: Record<string, unknown> | null }>(
      "SELECT state, error FROM workflow_executions WHERE id = $1",
      [id],
    );
    return row!;
  }

  const nonceOf = (chain: RoutingChain) =>
    chain.provider.getTransactionCount(world.account, "latest");

  it("should wait out an outage shorter than the window and complete with one transaction per step", async function () {
    const polygon = world.chains.byName("polygon");
    const { workflow, recipients } = pinnedMultisend("short outage");
    const id = await submitExecution(world, apiKeyId, workflow);
    const nonceBefore = await nonceOf(polygon);
    await polygon.faults!.stopRpc();
    const restart = setTimeout(() => void polygon.faults!.startRpc(), 2_000);
    let state: string;
    try {
      state = await runExecution({ ...world.deps, chainOutageWindowSeconds: 60 }, id);
    } finally {
      clearTimeout(restart);
      await polygon.faults!.startRpc();
    }
    expect(state, JSON.stringify((await execution(id)).error)).to.equal("completed");
    const { txs, own, versions } = await journalled(id);
    const slots = txs.map((t) => t.slot);
    expect(slots).to.include("multisend");
    expect(new Set(slots).size).to.equal(slots.length);
    expect(txs.every((t) => t.state === "confirmed")).to.equal(true);
    expect(versions).to.equal(0);
    // Every nonce the account used on polygon is one journalled transaction: nothing else was sent.
    expect((await nonceOf(polygon)) - nonceBefore).to.equal(own);
    for (const address of recipients)
      expect(await balanceOf(polygon, "USDC", address)).to.equal(units(polygon, "USDC", "15"));
  });

  const drops = {
    "the RPC goes down for 1.5 s": "down",
    // In flight, the transaction may still be mined: waited for past the window, never failed.
    "the RPC stays down for 3 s, past a 1 s window": "down past the window",
    "the node stays up": "up",
    "the lookup of its hash fails too while the node stays up": "lookup lost",
  } as const;
  for (const [how, drop] of Object.entries(drops)) {
    it(`should wait for the same bytes when the connection drops with the broadcast and ${how}`, async function () {
      const polygon = world.chains.byName("polygon");
      const { workflow, recipients } = pinnedMultisend(`dropped broadcast, ${drop}`);
      const id = await submitExecution(world, apiKeyId, workflow);
      const nonceBefore = await nonceOf(polygon);
      // The node takes the first transaction, then the connection drops before its answer: the
      // sender cannot tell whether it was sent.
      const rpc = jsonRpcOf(polygon);
      const send = rpc.send.bind(rpc);
      const connectionLost = () =>
        Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
      let delivered: string | null = null;
      let lookupLost = drop === "lookup lost";
      let restart: NodeJS.Timeout | undefined;
      rpc.send = async (method, params) => {
        if (method === "eth_getTransactionByHash" && delivered && lookupLost) {
          lookupLost = false;
          throw connectionLost();
        }
        if (method !== "eth_sendRawTransaction" || delivered) return send(method, params);
        delivered = (await send(method, params)) as string;
        if (drop === "down" || drop === "down past the window") {
          await polygon.faults!.stopRpc();
          const outageMs = drop === "down" ? 1_500 : 3_000;
          restart = setTimeout(() => void polygon.faults!.startRpc(), outageMs);
        }
        throw connectionLost();
      };
      let state: string;
      try {
        const chainOutageWindowSeconds = drop === "down past the window" ? 1 : 60;
        state = await runExecution({ ...world.deps, chainOutageWindowSeconds }, id);
      } finally {
        rpc.send = send;
        clearTimeout(restart);
        await polygon.faults!.startRpc();
      }
      expect(state, JSON.stringify((await execution(id)).error)).to.equal("completed");
      expect(delivered).to.be.a("string");
      const { txs, own, versions } = await journalled(id);
      expect(txs.map((t) => t.hash)).to.include(delivered);
      expect(new Set(txs.map((t) => t.slot)).size).to.equal(txs.length);
      expect(txs.every((t) => t.state === "confirmed")).to.equal(true);
      expect(versions).to.equal(0);
      expect((await nonceOf(polygon)) - nonceBefore).to.equal(own);
      // Paid once: a second, different transaction for the step would have paid twice.
      for (const address of recipients)
        expect(await balanceOf(polygon, "USDC", address)).to.equal(units(polygon, "USDC", "15"));
    });
  }

  it("should wait past the window for a bridge whose deposit is mined until its destination answers", async function () {
    const polygon = world.chains.byName("polygon");
    const workflow = normalise(world, {
      name: "deposit then outage",
      actions: [
        {
          type: "bridge",
          chain: "arbitrum",
          from: "USDC",
          amount: "20",
          destination: "polygon",
          protocol: "lockmint",
        },
      ],
    });
    const id = await submitExecution(world, apiKeyId, workflow);
    const before = await balanceOf(polygon, "USDC", world.account);
    // Polygon goes down for 3 s (past a 1 s window) once the deposit is mined on arbitrum.
    const { began, state } = await runWithOutage(
      polygon,
      holds(
        "SELECT 1 FROM engine_txs WHERE execution_id = $1 AND kind = 'bridge-deposit' AND state = 'confirmed'",
        id,
      ),
      3_000,
      { ...world.deps, chainOutageWindowSeconds: 1 },
      id,
    );
    expect(began, "the outage began after the deposit").to.equal(true);
    expect(state, JSON.stringify((await execution(id)).error)).to.equal("completed");
    const { txs } = await journalled(id);
    const kinds = await world.store.query<{ kind: string; state: string }>(
      "SELECT kind, state FROM engine_txs WHERE execution_id = $1 AND kind LIKE 'bridge-%' ORDER BY id",
      [id],
    );
    expect(kinds).to.deep.equal([
      { kind: "bridge-deposit", state: "confirmed" },
      { kind: "bridge-release", state: "confirmed" },
    ]);
    expect(txs.every((t) => t.state === "confirmed")).to.equal(true);
    expect(await balanceOf(polygon, "USDC", world.account)).to.be.greaterThan(before);
  });

  it("should fail with CHAIN_UNAVAILABLE once an outage outlasts the window, with nothing sent", async function () {
    const polygon = world.chains.byName("polygon");
    const { workflow, recipients } = pinnedMultisend("long outage");
    const id = await submitExecution(world, apiKeyId, workflow);
    const nonceBefore = await nonceOf(polygon);
    await polygon.faults!.stopRpc();
    let state: string;
    const started = Date.now();
    try {
      state = await runExecution({ ...world.deps, chainOutageWindowSeconds: 2 }, id);
    } finally {
      await polygon.faults!.startRpc();
    }
    expect(state).to.equal("failed");
    // Waited the window out before failing (not a speed target: a lower bound of the design).
    expect(Date.now() - started).to.be.at.least(2_000);
    const { error } = await execution(id);
    expect(error!.error).to.equal("CHAIN_UNAVAILABLE");
    expect(error!.retry_in).to.be.a("number").greaterThan(0);
    expect(String(error!.detail)).to.match(
      /polygon.*still unreachable after the 2 s outage window/,
    );
    expect((await journalled(id)).txs).to.deep.equal([]);
    expect(await nonceOf(polygon)).to.equal(nonceBefore);
    for (const address of recipients)
      expect(await balanceOf(polygon, "USDC", address)).to.equal(0n);
  });

  it("should fail with CHAIN_UNAVAILABLE, not a revert, when the chain drops at the gas estimate past the window", async function () {
    const polygon = world.chains.byName("polygon");
    const { workflow, recipients } = pinnedMultisend("dropped at the estimate");
    const id = await submitExecution(world, apiKeyId, workflow);
    const nonceBefore = await nonceOf(polygon);
    // The RPC goes down at the agent's gas estimate: the action has started on polygon (its step
    // records the chain), nothing is signed yet.
    const rpc = jsonRpcOf(polygon);
    const send = rpc.send.bind(rpc);
    const started = async () =>
      (
        await world.store.query(
          "SELECT 1 FROM engine_steps WHERE execution_id = $1 AND action_index = 0",
          [id],
        )
      ).length > 0;
    rpc.send = async (method, params) => {
      if (method === "eth_estimateGas" && (await started())) await polygon.faults!.stopRpc();
      return send(method, params);
    };
    let state: string;
    try {
      state = await runExecution({ ...world.deps, chainOutageWindowSeconds: 1 }, id);
    } finally {
      rpc.send = send;
      await polygon.faults!.startRpc();
    }
    expect(state).to.equal("failed");
    const { error } = await execution(id);
    expect(error!.error).to.equal("CHAIN_UNAVAILABLE");
    expect(String(error!.detail)).to.match(
      /^polygon: .*RPC unavailable.* \(still unreachable after the 1 s outage window\)$/,
    );
    const [step] = await world.store.query<{ chain: string; state: string }>(
      "SELECT chain, state FROM engine_steps WHERE execution_id = $1 AND action_index = 0",
      [id],
    );
    expect(step).to.deep.equal({ chain: "polygon", state: "failed" });
    expect((await journalled(id)).txs).to.deep.equal([]);
    expect(await nonceOf(polygon)).to.equal(nonceBefore);
    for (const address of recipients)
      expect(await balanceOf(polygon, "USDC", address)).to.equal(0n);
  });

  it("should fail at once with a window of 0", async function () {
    const polygon = world.chains.byName("polygon");
    const { workflow } = pinnedMultisend("no window");
    const id = await submitExecution(world, apiKeyId, workflow);
    await polygon.faults!.stopRpc();
    let state: string;
    try {
      state = await runExecution({ ...world.deps, chainOutageWindowSeconds: 0 }, id);
    } finally {
      await polygon.faults!.startRpc();
    }
    expect(state).to.equal("failed");
    expect((await execution(id)).error!.error).to.equal("CHAIN_UNAVAILABLE");
    expect((await journalled(id)).txs).to.deep.equal([]);
  });
  /** Once the multisend's step is stored completed: the moment before the re-check before the proof. */
  const stepCompleted = (id: string) => firstStepCompleted(world.store, id);

  it("should fail CHAIN_UNAVAILABLE, unattested with its action completed, when the re-check before the proof outlasts the window", async function () {
    // Without a bound the re-check waited for the chain however long: this would time out.
    this.timeout(60_000);
    const polygon = world.chains.byName("polygon");
    const { workflow, recipients } = pinnedMultisend("re-check past the window");
    const id = await submitExecution(world, apiKeyId, workflow);
    const started = Date.now();
    // No evidence reads: the failed execution's report reads no chain (its outage is another case).
    const { began, state } = await runWithOutage(
      polygon,
      stepCompleted(id),
      null,
      { ...world.deps, evidence: undefined, chainOutageWindowSeconds: 1 },
      id,
    );
    expect(began, "the outage began after the step").to.equal(true);
    expect(state).to.equal("failed");
    expect(Date.now() - started).to.be.at.least(1_000);
    const { error } = await execution(id);
    expect(error!.error).to.equal("CHAIN_UNAVAILABLE");
    expect(error!.retry_in).to.be.a("number").greaterThan(0);
    expect(String(error!.detail)).to.match(
      /^re-check before the proof \(polygon\): .* \(still unreachable after the 1 s outage window\); not attested, and its completed actions stay completed \(their transactions are in the report\): 1 of 1$/,
    );
    const [step] = await world.store.query<{ state: string }>(
      "SELECT state FROM engine_steps WHERE execution_id = $1 AND action_index = 0",
      [id],
    );
    expect(step!.state).to.equal("completed");
    const { txs } = await journalled(id);
    expect(txs.length).to.be.greaterThan(0);
    expect(txs.every((t) => t.state === "confirmed")).to.equal(true);
    const report = (await findReport(world.store, id))!.report;
    expect(report.state).to.equal("failed");
    expect(report.error).to.deep.equal(error);
    expect(report.completed_actions).to.deep.equal([0]);
    expect(report.attestation).to.equal(null);
    for (const address of recipients)
      expect(await balanceOf(polygon, "USDC", address)).to.equal(units(polygon, "USDC", "15"));
  });

  it("should wait past the window at the re-check for a transaction it broadcast again after a reorg", async function () {
    const polygon = world.chains.byName("polygon");
    const { workflow, recipients } = pinnedMultisend("re-check resent, then outage");
    const id = await submitExecution(world, apiKeyId, workflow);
    const mark = await polygon.faults!.markFork();
    // Once the step is completed, a reorg drops its block; the re-check broadcasts the same bytes
    // again, and the RPC goes down right after that broadcast for 3 s (past a 1 s window).
    const rpc = jsonRpcOf(polygon);
    const send = rpc.send.bind(rpc);
    const completed = stepCompleted(id);
    let reorged = false;
    let resent: string | null = null;
    let restart: NodeJS.Timeout | undefined;
    rpc.send = async (method, params) => {
      if (!reorged && (await completed())) {
        reorged = true;
        await polygon.faults!.reorg(mark, 3);
      }
      if (!reorged || resent || method !== "eth_sendRawTransaction") return send(method, params);
      resent = (await send(method, params)) as string;
      await polygon.faults!.stopRpc();
      restart = setTimeout(() => void polygon.faults!.startRpc(), 3_000);
      return resent;
    };
    const started = Date.now();
    let state: string;
    try {
      state = await runExecution({ ...world.deps, chainOutageWindowSeconds: 1 }, id);
    } finally {
      rpc.send = send;
      clearTimeout(restart);
      await polygon.faults!.startRpc();
    }
    expect(resent, "the re-check broadcast the dropped transaction again").to.be.a("string");
    expect(state, JSON.stringify((await execution(id)).error)).to.equal("completed");
    expect(Date.now() - started).to.be.at.least(3_000);
    const { txs, versions } = await journalled(id);
    expect(txs.map((t) => t.hash)).to.include(resent);
    expect(txs.every((t) => t.state === "confirmed")).to.equal(true);
    expect(versions).to.equal(0);
    for (const address of recipients)
      expect(await balanceOf(polygon, "USDC", address)).to.equal(units(polygon, "USDC", "15"));
  });

  const endings = {
    // The second action, pinned to the stopped chain, fails once the window is over.
    failed: {
      error: "CHAIN_UNAVAILABLE",
      detail: /polygon.*still unreachable after the 1 s outage window/,
    },
    // Cancelled while the first action's transaction was being sent: stops before the second.
    cancelled: { error: "CANCELLED", detail: /^cancelled before action 2$/ },
  } as const;
  for (const [ending, expected] of Object.entries(endings)) {
    it(`should keep a ${ending} execution's outcome when its report's chain stays down past the window, and report once it answers`, async function () {
      const polygon = world.chains.byName("polygon");
      const { document, recipients } = twoPolygonMultisends(`report waits, ${ending}`);
      const workflow = normalise(world, document);
      const id = await submitExecution(world, apiKeyId, workflow);
      const sending = holds("SELECT 1 FROM engine_txs WHERE execution_id = $1", id);
      let cancelled = false;
      // Polygon stops once the first action is completed and stays down for the whole run: the
      // report's evidence of that action's transactions cannot be read.
      const { began, state } = await runWithOutage(
        polygon,
        async () => {
          if (ending === "cancelled" && !cancelled && (await sending())) {
            cancelled = true;
            await requestCancel(world.store, apiKeyId, id);
          }
          return stepCompleted(id)();
        },
        null,
        { ...world.deps, chainOutageWindowSeconds: 1 },
        id,
      );
      expect(began, "the outage began after the first action").to.equal(true);
      expect(state).to.equal(ending);
      const { error } = await execution(id);
      expect(error!.error).to.equal(expected.error);
      expect(String(error!.detail)).to.match(expected.detail);
      // Its outcome stands, its report waits for polygon.
      expect(await findReport(world.store, id)).to.equal(null);
      expect(await waitingReports(world.store)).to.include(id);
      expect(await balanceOf(polygon, "USDC", recipients[0]!)).to.equal(
        units(polygon, "USDC", "10"),
      );
      expect(await balanceOf(polygon, "USDC", recipients[1]!)).to.equal(0n);

      // Polygon answers again: run again (as the recovery sweep does), the report is delivered.
      expect(await runExecution({ ...world.deps, chainOutageWindowSeconds: 1 }, id)).to.equal(
        ending,
      );
      const after = await execution(id);
      expect(after.state).to.equal(ending);
      expect(after.error).to.deep.equal(error);
      const report = (await findReport(world.store, id))!.report;
      expect(report.state).to.equal(ending);
      expect(report.error).to.deep.equal(error);
      expect(report.completed_actions).to.deep.equal([0]);
      expect(report.evidence!.transactions.length).to.be.greaterThan(0);
      expect(await waitingReports(world.store)).to.not.include(id);
      expect(await balanceOf(polygon, "USDC", recipients[1]!)).to.equal(0n);
    });
  }

  /**
   * The attestation chain's RPC drops once the execution is proved (its actions done on polygon),
   * and comes back after `outageMs` (or only after the run). What the execution attested on it.
   */
  async function outageAtAttestation(name: string, outageMs: number | null, windowSeconds: number) {
    const home = world.chains.byName(homeChain(world.chains.list()).name);
    expect(home.name, "the attestation chain is not the actions' chain").to.not.equal("polygon");
    const { workflow, recipients } = pinnedMultisend(name);
    const id = await submitExecution(world, apiKeyId, workflow);
    const operator = await home.operator!.getAddress();
    const operatorNonce = await home.provider.getTransactionCount(operator, "latest");
    const { began, state } = await runWithOutage(
      home,
      holds("SELECT 1 FROM workflow_executions WHERE id = $1 AND stage = 'prove'", id),
      outageMs,
      { ...world.deps, chainOutageWindowSeconds: windowSeconds },
      id,
    );
    expect(began, "the outage began at the proof").to.equal(true);
    const attests = await world.store.query<{ hash: string; state: string }>(
      "SELECT hash, state FROM engine_txs WHERE execution_id = $1 AND kind = 'attest'",
      [id],
    );
    const sentByOperator =
      (await home.provider.getTransactionCount(operator, "latest")) - operatorNonce;
    for (const address of recipients)
      expect(await balanceOf(world.chains.byName("polygon"), "USDC", address)).to.equal(
        units(world.chains.byName("polygon"), "USDC", "15"),
      );
    const stored = await findReport(world.store, id);
    return { id, home, state, attests, sentByOperator, report: stored!.report };
  }

  it("should complete with one attestation when the attestation chain drops for less than the window", async function () {
    const { id, state, attests, sentByOperator, report } = await outageAtAttestation(
      "attestation chain down 2 s",
      2_000,
      60,
    );
    expect(state, JSON.stringify((await execution(id)).error)).to.equal("completed");
    expect(attests).to.have.length(1);
    expect(attests[0]!.state).to.equal("confirmed");
    expect(sentByOperator).to.equal(1);
    expect(report.state).to.equal("completed");
    expect(report.attestation?.tx_hash).to.equal(attests[0]!.hash);
  });

  it("should fail CHAIN_UNAVAILABLE naming the completed actions when the attestation chain outlasts the window", async function () {
    const started = Date.now();
    const { id, home, state, attests, sentByOperator, report } = await outageAtAttestation(
      "attestation chain down past the window",
      null,
      1,
    );
    expect(state).to.equal("failed");
    expect(Date.now() - started).to.be.at.least(1_000);
    const { error } = await execution(id);
    expect(error!.error).to.equal("CHAIN_UNAVAILABLE");
    expect(error!.retry_in).to.be.a("number").greaterThan(0);
    expect(String(error!.detail)).to.match(
      new RegExp(
        `^finalisation \\(attestation on ${home.name}\\): .* \\(still unreachable after the 1 s outage window\\); not attested, and its completed actions stay completed \\(their transactions are in the report\\): 1 of 1$`,
      ),
    );
    // Nothing signed for the attestation; the action stays completed, its payment in the report.
    expect(attests).to.deep.equal([]);
    expect(sentByOperator).to.equal(0);
    const [step] = await world.store.query<{ state: string }>(
      "SELECT state FROM engine_steps WHERE execution_id = $1 AND action_index = 0",
      [id],
    );
    expect(step!.state).to.equal("completed");
    expect(report.state).to.equal("failed");
    expect(report.error).to.deep.equal(error);
    expect(report.completed_actions).to.deep.equal([0]);
    expect(report.attestation).to.equal(null);
    expect(report.actions[0]!.tx_hashes.length).to.be.greaterThan(0);
  });
  /**
   * A new key's first execution, which funds its account on every chain (the devnet faucet) with
   * polygon's RPC down from the start, back after `outageMs` (or only after the run).
   */
  async function outageAtFunding(key: string, outageMs: number | null, windowSeconds: number) {
    const polygon = world.chains.byName("polygon");
    const { workflow, recipients } = pinnedMultisend(`funding, ${key}`);
    const id = await submitExecution(world, key, workflow);
    const deps = {
      ...world.deps,
      faucet: { funder: devnetFunder },
      chainOutageWindowSeconds: windowSeconds,
    };
    await polygon.faults!.stopRpc();
    const restart =
      outageMs === null ? undefined : setTimeout(() => void polygon.faults!.startRpc(), outageMs);
    let state: string;
    try {
      state = await runExecution(deps, id);
    } finally {
      clearTimeout(restart);
      await polygon.faults!.startRpc();
    }
    const { account } = await ensureAccount(world.store, world.cipher, key);
    return { id, deps, state, account, recipients, workflow };
  }

  it("should fund the account and complete when a chain drops for less than the window at the funding", async function () {
    const polygon = world.chains.byName("polygon");
    const { id, state, account, recipients } = await outageAtFunding(
      "key_funding_short",
      2_000,
      60,
    );
    expect(state, JSON.stringify((await execution(id)).error)).to.equal("completed");
    expect(account.fundedAt).to.be.an.instanceOf(Date);
    // Granted once on polygon (nothing reached it while down), the multisend's 30 USDC paid from it.
    expect(await balanceOf(polygon, "USDC", account.address)).to.equal(
      units(polygon, "USDC", "99970"),
    );
    for (const address of recipients)
      expect(await balanceOf(polygon, "USDC", address)).to.equal(units(polygon, "USDC", "15"));
  });

  it("should fail CHAIN_UNAVAILABLE with no action run when the funding outlasts the window, and fund on the next run", async function () {
    const polygon = world.chains.byName("polygon");
    const key = "key_funding_long";
    const { id, deps, state, account, recipients, workflow } = await outageAtFunding(key, null, 1);
    expect(state).to.equal("failed");
    const { error } = await execution(id);
    expect(error!.error).to.equal("CHAIN_UNAVAILABLE");
    expect(String(error!.detail)).to.match(
      /^account funding: .* \(still unreachable after the 1 s outage window\); actions completed before it: none$/,
    );
    // Not marked funded: the next run funds it.
    expect(account.fundedAt).to.equal(null);
    expect((await journalled(id)).txs).to.deep.equal([]);
    const report = (await findReport(world.store, id))!.report;
    expect(report.state).to.equal("failed");
    expect(report.not_run).to.deep.equal([0]);
    for (const address of recipients)
      expect(await balanceOf(polygon, "USDC", address)).to.equal(0n);

    const next = await submitExecution(world, key, workflow);
    expect(await runExecution(deps, next), JSON.stringify((await execution(next)).error)).to.equal(
      "completed",
    );
    for (const address of recipients)
      expect(await balanceOf(polygon, "USDC", address)).to.equal(units(polygon, "USDC", "15"));
  });
  it("should wait past the window for a completed execution's report once it has begun (its fee may be settled)", async function () {
    const polygon = world.chains.byName("polygon");
    const { workflow } = pinnedMultisend("report stage outage");
    const id = await submitExecution(world, apiKeyId, workflow);
    // No prover: the report stage follows the actions, and its evidence reads polygon's receipts.
    const { began, state } = await runWithOutage(
      polygon,
      holds("SELECT 1 FROM workflow_executions WHERE id = $1 AND stage = 'report'", id),
      2_500,
      { ...world.deps, prover: undefined, chainOutageWindowSeconds: 1 },
      id,
    );
    expect(began, "the outage began at the report").to.equal(true);
    expect(state, JSON.stringify((await execution(id)).error)).to.equal("completed");
    const report = (await findReport(world.store, id))!.report;
    expect(report.state).to.equal("completed");
    expect(report.evidence!.transactions.length).to.be.greaterThan(0);
  });
});

/**
 * The same wait in the whole relayer: the execution submitted over HTTP and run by the engine
 * worker the composition root starts, its report delivered by that worker's scheduled recovery
 * sweep (every half lease: a 2 s lease here, so every second) once the chain answers, with
 * nothing run by hand.
 */
describe("# a report waiting for its chain, delivered by the recovery sweep (real app, engine worker on)", function () {
  this.timeout(180_000);
  let service: EngineService;

  before(async () => {
    service = await startEngineService({
      env: { VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS: "1", VERIFLOW_ENGINE_LEASE_SECONDS: "2" },
    });
  });
  after(async () => {
    await service?.close();
  });

  it("should deliver a failed execution's report, with its state and error, once its chain answers again", async function () {
    const { store } = service.ctx;
    const polygon = service.chains.byName("polygon");
    const credentials = await service.newKey();
    const { document, recipients } = twoPolygonMultisends("report waits for the sweep");
    // Polygon stops once the first action is completed and stays down until this test restarts
    // it: the second action fails past the window, the report's evidence cannot be read.
    let id: string | undefined;
    const outage = outageOnce(
      polygon,
      async () => id !== undefined && (await firstStepCompleted(store, id)()),
      null,
    );
    let failed: { state: string; error: Record<string, unknown> };
    try {
      const response = await service.request(
        credentials,
        "POST",
        "/v1/workflows",
        JSON.stringify(document),
      );
      expect(response.status).to.equal(202);
      id = ((await response.json()) as { execution_id: string }).execution_id;
      // Ended, no worker holding it, its report waiting.
      await eventually(
        async () => ((await waitingReports(store)).includes(id!) ? true : undefined),
        "the report to wait for polygon",
      );
      expect(outage.began(), "the outage began after the first action").to.equal(true);
      const [row] = await store.query<typeof failed>(
        "SELECT state, error FROM workflow_executions WHERE id = $1",
        [id],
      );
      failed = row!;
      expect(failed.state).to.equal("failed");
      expect(failed.error.error).to.equal("CHAIN_UNAVAILABLE");
      expect(await findReport(store, id)).to.equal(null);
    } finally {
      await outage.end();
    }

    // Polygon answers again; nothing here runs the execution: the sweep's next turn does.
    const report = await eventually(
      async () => (await findReport(store, id))?.report,
      "the sweep to deliver the report",
    );
    expect(report.state).to.equal("failed");
    expect(report.error).to.deep.equal(failed.error);
    expect(report.completed_actions).to.deep.equal([0]);
    expect(report.evidence!.transactions.length).to.be.greaterThan(0);
    expect(await waitingReports(store)).to.not.include(id);
    const view = (await (
      await service.request(credentials, "GET", `/v1/workflows/${id}`)
    ).json()) as {
      state: string;
      error: unknown;
      report: { report: { state: string } } | null;
    };
    expect(view.state).to.equal("failed");
    expect(view.error).to.deep.equal(failed.error);
    expect(view.report?.report.state).to.equal("failed");
    // Its job ran once and completed: the report came from the sweep, not from a retry.
    const [job] = await store.query<{ state: string; retry_count: number }>(
      "SELECT state, retry_count FROM pgboss.job WHERE name = $1 AND data->>'executionId' = $2",
      [JOB_NAMES.workflowExecute, id],
    );
    expect(job).to.deep.equal({ state: "completed", retry_count: 0 });
    expect(await balanceOf(polygon, "USDC", recipients[0]!)).to.equal(units(polygon, "USDC", "10"));
    expect(await balanceOf(polygon, "USDC", recipients[1]!)).to.equal(0n);
  });
});
