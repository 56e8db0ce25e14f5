import { expect } from "chai";
import { Wallet } from "ethers";
import { accountWallet } from "../../../relayer/accounts/index.ts";
import { oracleScreen, SwapAgent } from "../../../relayer/agents/index.ts";
import { AgentError } from "../../../relayer/errors/index.ts";
import { DEVNET_SANCTIONED } from "../../../relayer/devnet/accounts.ts";
import { runExecution } from "../../../relayer/execution/orchestrator.ts";
import { TxJournal } from "../../../relayer/transactions/journal.ts";
import { poolMoves } from "../../../relayer/execution/pool-moves.ts";
import { DEFAULT_REFERENCE_POLICY } from "../../../relayer/routing/reference.ts";
import { processLocks } from "../../../relayer/store/locks.ts";
import {
  balanceOf,
  normalise,
  useEngineWorld,
  submitExecution,
  units,
} from "../../fixtures/engine.ts";

interface StepView {
  action_index: number;
  state: string;
  chain: string;
  fallback_from: string | null;
  result: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
}

describe("# execution engine errors (embedded devnet)", function () {
  this.timeout(300_000);
  const apiKeyId = "key_errors";
  const world = useEngineWorld(apiKeyId);

  async function execution(id: string) {
    const [row] = await world.store.query<{ state: string; error: Record<string, unknown> | null }>(
      "SELECT state, error FROM workflow_executions WHERE id = $1",
      [id],
    );
    const steps = await world.store.query<StepView>(
      "SELECT action_index, state, chain, fallback_from, result, error FROM engine_steps WHERE execution_id = $1 AND action_index >= 0 ORDER BY action_index",
      [id],
    );
    const txs = await new TxJournal(world.store).list(id);
    const [report] = await world.store.query<{ report: Record<string, unknown> }>(
      "SELECT report FROM engine_reports WHERE execution_id = $1",
      [id],
    );
    return { ...row!, steps, txs, report: report?.report };
  }

  it("should fail with INSUFFICIENT_LIQUIDITY on the shallow pool and name an alternative with the liquidity", async function () {
    const polygon = world.chains.byName("polygon");
    const before = await balanceOf(polygon, "WBTC", world.account);
    const workflow = normalise(world, {
      name: "shallow",
      actions: [
        {
          type: "swap",
          chain: "polygon",
          dex: "sushiswap",
          from: "WBTC",
          to: "USDC",
          amount: "1",
          slippage: 1,
        },
      ],
    });
    const id = await submitExecution(world, apiKeyId, workflow);
    expect(await runExecution(world.deps, id)).to.equal("failed");
    const ex = await execution(id);
    expect(ex.error!.error).to.equal("INSUFFICIENT_LIQUIDITY");
    expect(ex.error!.retry_in).to.be.a("number").greaterThan(0);
    expect(String(ex.error!.detail)).to.match(
      /(uniswap|sushiswap) on (ethereum|arbitrum|polygon) has the liquidity/,
    );
    expect(ex.error!.alternative).to.have.keys(["chain", "exchange"]);
    expect(ex.txs).to.have.length(0);
    expect(await balanceOf(polygon, "WBTC", world.account)).to.equal(before);
  });

  it("should refuse a sanctioned recipient: SANCTIONED_ADDRESS, alert recorded, nothing sent", async function () {
    const sanctioned = DEVNET_SANCTIONED[0]!.address;
    const clean = Wallet.createRandom().address;
    const arbitrum = world.chains.byName("arbitrum");
    const workflow = normalise(world, {
      name: "sanctioned",
      actions: [
        {
          type: "multisend",
          chain: "arbitrum",
          from: "USDC",
          amount: "200",
          recipients: [
            { address: clean, amount: "100" },
            { address: sanctioned, amount: "100" },
          ],
        },
      ],
    });
    const before = await balanceOf(arbitrum, "USDC", world.account);
    const id = await submitExecution(world, apiKeyId, workflow);
    expect(await runExecution(world.deps, id)).to.equal("failed");
    const ex = await execution(id);
    expect(ex.error!.error).to.equal("SANCTIONED_ADDRESS");
    expect(ex.txs).to.have.length(0);
    expect(await balanceOf(arbitrum, "USDC", world.account)).to.equal(before);
    expect(await balanceOf(arbitrum, "USDC", clean)).to.equal(0n);
    const alerts = await world.store.query<{ address: string; role: string; sources: string[] }>(
      "SELECT address, role, sources FROM engine_compliance_alerts WHERE execution_id = $1",
      [id],
    );
    expect(alerts).to.have.length(1);
    expect(alerts[0]!.address).to.equal(sanctioned);
    expect(alerts[0]!.role).to.equal("recipient");
    expect(alerts[0]!.sources).to.include("chainalysis-oracle");
    expect((ex.report!.compliance as { alerts: unknown[] }).alerts).to.have.length(1);
  });

  it("should move an action to the fallback chain when its chain's RPC is down", async function () {
    const arbitrum = world.chains.byName("arbitrum");
    const polygon = world.chains.byName("polygon");
    const workflow = normalise(world, {
      name: "fallback",
      actions: [
        {
          type: "swap",
          chain: "arbitrum",
          from: "USDC",
          to: "WETH",
          amount: "100",
          slippage: 1,
          fallback_chains: ["polygon"],
        },
      ],
    });
    const before = await balanceOf(polygon, "USDC", world.account);
    const id = await submitExecution(world, apiKeyId, workflow);
    await arbitrum.faults!.stopRpc();
    try {
      const state = await runExecution(world.deps, id);
      expect(state, JSON.stringify((await execution(id)).error)).to.equal("completed");
    } finally {
      await arbitrum.faults!.startRpc();
    }
    const ex = await execution(id);
    expect(ex.steps[0]!.chain).to.equal("polygon");
    expect(ex.steps[0]!.fallback_from).to.equal("arbitrum");
    expect(before - (await balanceOf(polygon, "USDC", world.account))).to.equal(
      units(polygon, "USDC", "100"),
    );
    const actions = ex.report!.actions as Array<{ chain: string; fallback_from: string }>;
    expect(actions[0]!.fallback_from).to.equal("arbitrum");
  });

  it("should move an action to the fallback chain when the base fee is above the cap", async function () {
    const ethereum = world.chains.byName("ethereum");
    const workflow = normalise(world, {
      name: "congested",
      actions: [
        {
          type: "swap",
          chain: "ethereum",
          from: "USDC",
          to: "DAI",
          amount: "50",
          slippage: 1,
          fallback_chains: ["arbitrum"],
        },
      ],
    });
    const id = await submitExecution(world, apiKeyId, workflow);
    await ethereum.faults!.raiseBaseFee(50); // 20 gwei → 1000 gwei, above the 300 gwei cap
    try {
      expect(await runExecution(world.deps, id)).to.equal("completed");
    } finally {
      await ethereum.faults!.restoreBaseFee();
    }
    const ex = await execution(id);
    expect(ex.steps[0]!.chain).to.equal("arbitrum");
    expect(ex.steps[0]!.fallback_from).to.equal("ethereum");
  });

  it("should stop with RiskThresholdExceededError and report the partial completion", async function () {
    const workflow = normalise(world, {
      name: "risky",
      risk_threshold: 0.1,
      actions: [
        {
          type: "swap",
          chain: "polygon",
          dex: "uniswap",
          from: "USDC",
          to: "WETH",
          amount: "40000",
          slippage: 5,
        },
        {
          type: "multisend",
          recipients: [{ address: Wallet.createRandom().address, amount: "100%" }],
        },
      ],
    });
    const id = await submitExecution(world, apiKeyId, workflow);
    expect(await runExecution(world.deps, id)).to.equal("failed");
    const ex = await execution(id);
    expect(ex.error!.error).to.equal("RISK_THRESHOLD_EXCEEDED");
    expect(ex.steps).to.have.length(1);
    expect(ex.steps[0]!.state).to.equal("failed");
    // The swap itself ran (the risk engine scores results): its hash is in the partial report.
    expect(ex.txs.some((t) => t.slot === "swap" && t.state === "confirmed")).to.equal(true);
    expect(ex.report!.completed_actions).to.deep.equal([]);
    expect(ex.report!.not_run).to.deep.equal([1]);
    const risk = (
      ex.report!.actions as Array<{ risk: { score: number; metrics: Record<string, number> } }>
    )[0]!.risk;
    expect(risk.score).to.be.greaterThan(0.1);
    expect(risk.metrics.price_impact).to.be.greaterThan(0.1);
  });

  describe("# OUT_OF_GAS", function () {
    async function swapAgent(executionId: string, maxGasRetries?: number) {
      const wallet = await accountWallet(world.store, world.cipher, apiKeyId);
      const memo = new Map<string, unknown>();
      return new SwapAgent(
        { chain_id: world.chains.byName("arbitrum").chainId },
        {
          chains: world.chains,
          account: wallet,
          journal: new TxJournal(world.store),
          executionId,
          actionIndex: 0,
          screen: oracleScreen,
          maxGasRetries,
          poolLocks: processLocks(),
          ownMoves: poolMoves(world.store, 3_600),
          referencePolicy: DEFAULT_REFERENCE_POLICY,
          memo: async <T>(key: string, compute: () => Promise<T>) => {
            if (!memo.has(key)) memo.set(key, await compute());
            return memo.get(key) as T;
          },
        },
      );
    }

    it("should raise a too-low gas limit by 1.4 and retry until the swap lands", async function () {
      const agent = await swapAgent("wf_oog_retry");
      const result = await agent.execute({
        action: "swap",
        params: { from: "USDC", to: "DAI", amount: "10", slippage_bps: 100, gas_limit: 60_000n },
      });
      const swaps = result.txs.filter((t) => t.kind === "swap");
      expect(swaps.length).to.be.greaterThan(1);
      expect(swaps.slice(0, -1).every((t) => t.status === "reverted")).to.equal(true);
      expect(swaps.at(-1)!.status).to.equal("confirmed");
      for (let i = 1; i < swaps.length; i++) {
        expect(BigInt(swaps[i]!.gasLimit)).to.equal((BigInt(swaps[i - 1]!.gasLimit) * 140n) / 100n);
      }
      expect(result.metrics.out_of_gas_retries).to.equal(swaps.length - 1);
      expect(Number(result.amount_out)).to.be.greaterThan(9);
    });

    it("should give up with OUT_OF_GAS after the bounded retries", async function () {
      const agent = await swapAgent("wf_oog_bounded", 1);
      let error: unknown;
      try {
        await agent.execute({
          action: "swap",
          params: { from: "USDC", to: "DAI", amount: "10", slippage_bps: 100, gas_limit: 40_000n },
        });
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(AgentError);
      expect((error as AgentError).code).to.equal("OUT_OF_GAS");
      const txs = await new TxJournal(world.store).list("wf_oog_bounded");
      expect(txs.filter((t) => t.kind === "swap").map((t) => t.state)).to.deep.equal([
        "reverted",
        "reverted",
      ]);
    });
  });
});
