import { expect } from "chai";
import { Contract, parseUnits } from "ethers";
import { accountWallet, ensureAccount, fundFromDevnet } from "../../../relayer/accounts/index.ts";
import type { SwapAgent, SwapResult } from "../../../relayer/agents/index.ts";
import { AgentError } from "../../../relayer/errors/index.ts";
import { ERC20_ABI, ROUTER_ABI } from "../../../relayer/routing/abis.ts";
import { nativeSymbol } from "../../../relayer/routing/chain.ts";
import { poolMoves } from "../../../relayer/execution/pool-moves.ts";
import { checkReferencePrice } from "../../../relayer/routing/reference.ts";
import { processLocks, type NamedLocks } from "../../../relayer/store/locks.ts";
import { devnetFunder, polygonSwapAgent, useEngineWorld } from "../../fixtures/engine.ts";

/**
 * The swap agent's pool sequencer (relayer/agents/swap.ts): concurrent swaps through one pool, with
 * and without it, and a third party trading the pool between a sequenced quote and its send.
 */
/** Explicit fees for the third-party trader (above the devnet's pinned base fee). */
const FEES = { maxFeePerGas: 60n * 10n ** 9n, maxPriorityFeePerGas: 2n * 10n ** 9n };

describe("# swap agent: pool sequencer (embedded devnet)", function () {
  this.timeout(300_000);
  const world = useEngineWorld();
  const SWAPS = 12;
  let run = 0;
  const keys: Record<string, string[]> = {};
  // Funded first: the devnet funder's fee estimate can fall behind the pinned base fee once the
  // swaps have mined blocks.
  before(async function () {
    keys.unseq = await fundedKeys("key_unseq", SWAPS);
    keys.seq = await fundedKeys("key_seq", SWAPS);
    keys.market = await fundedKeys("key_market", 1);
  });

  /** Locks that let every holder in at once, after all arrived: all quote against one state. */
  function together(holders: number): NamedLocks {
    let arrived = 0;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    return {
      async hold(_names, fn) {
        if (++arrived === holders) open();
        await gate;
        return fn();
      },
    };
  }

  function agent(
    apiKeyId: string,
    poolLocks: NamedLocks,
    afterQuote?: () => Promise<void>,
  ): Promise<SwapAgent> {
    return polygonSwapAgent(world, apiKeyId, {
      executionId: `wf_seq_${apiKeyId}_${run++}`,
      poolLocks,
      ...(afterQuote ? { afterQuote } : {}),
    });
  }

  async function fundedKeys(prefix: string, n: number): Promise<string[]> {
    const polygon = world.chains.byName("polygon");
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = `${prefix}_${i}`;
      const { account } = await ensureAccount(world.store, world.cipher, id);
      await fundFromDevnet(polygon, devnetFunder(polygon), account.address, {
        [nativeSymbol(polygon)]: "1",
        USDC: "1000",
      });
      ids.push(id);
    }
    return ids;
  }

  const swap = (a: SwapAgent) =>
    a.execute({
      action: "swap",
      params: { from: "USDC", to: "WETH", amount: "150", slippage_bps: 50, dex: "sushiswap" },
    });

  async function burst(keys: string[], locks: NamedLocks) {
    const agents = await Promise.all(keys.map((k) => agent(k, locks)));
    return Promise.allSettled(agents.map(swap));
  }

  it("should fail some of 12 concurrent swaps quoted against one pool state (what the sequencer prevents)", async function () {
    const outcomes = await burst(keys.unseq!, together(SWAPS));
    const failed = outcomes.filter((o) => o.status === "rejected");
    expect(failed.length).to.be.greaterThan(0);
    for (const f of failed) {
      expect((f as PromiseRejectedResult).reason).to.be.instanceOf(AgentError);
      expect(((f as PromiseRejectedResult).reason as AgentError).code).to.equal(
        "SLIPPAGE_EXCEEDED",
      );
    }
  });

  it("should complete 12 concurrent swaps through the same pool when sequenced, each at its quote", async function () {
    const outcomes = await burst(keys.seq!, processLocks());
    const rejected = outcomes.filter((o) => o.status === "rejected");
    expect(rejected.map((r) => String((r as PromiseRejectedResult).reason))).to.deep.equal([]);
    const results = outcomes.map((o) => (o as PromiseFulfilledResult<SwapResult>).value);
    for (const r of results) {
      expect(r.amount_out).to.equal(r.quoted_out);
      expect(r.metrics.slippage_used_bps).to.equal(0);
      // Its own impact only (alone on the pool it met), not the burst's.
      expect(r.metrics.price_impact_bps!).to.be.lessThan(25);
    }
    const quoteBlocks = results.map((r) => r.quote_block!);
    expect(new Set(quoteBlocks).size).to.equal(SWAPS);
    // The burst moved the pool, and its own swaps did not trip the reference price: each was
    // checked with the earlier ones taken out. Without taking them out, the same pool is far off.
    for (const r of results) expect(r.reference![0]!.deviation_bps).to.be.lessThan(5);
    expect(Math.max(...results.map((r) => r.reference![0]!.own_moves))).to.be.at.least(SWAPS - 1);
    const polygon = world.chains.byName("polygon");
    const pair = results[0]!.reference![0]!.pair;
    const head = await polygon.provider.getBlockNumber();
    const own = poolMoves(world.store, 3_600);
    const withOwn = await checkReferencePrice(polygon, pair, head, own);
    const none = { record: async () => {}, since: async () => [] };
    const without = await checkReferencePrice(polygon, pair, head, none);
    expect(withOwn.deviationBps).to.be.lessThan(5);
    expect(without.deviationBps).to.be.greaterThan(100);
    expect(without.passed).to.equal(true === without.deviationBps <= without.maxDeviationBps);
  });

  it("should fail cleanly, naming the market, when a third party trades the pool between the quote and the send", async function () {
    const polygon = world.chains.byName("polygon");
    const [key] = keys.market!;
    const trader = devnetFunder(polygon);
    const router = polygon.deployment.exchanges.sushiswap!.router;
    const usdc = polygon.deployment.tokens.USDC!.address;
    const weth = polygon.deployment.tokens.WETH!.address;
    const a = await agent(key!, processLocks(), async () => {
      // Another trader buys WETH with 3,000 USDC on the same pool: the price moves ~5%.
      const amount = parseUnits("3000", 6);
      await (
        await new Contract(usdc, ERC20_ABI, trader).getFunction("approve")(router, amount)
      ).wait();
      await (
        await new Contract(router, ROUTER_ABI, trader).getFunction("swapExactTokensForTokens")(
          amount,
          0n,
          [usdc, weth],
          await trader.getAddress(),
          2n ** 40n,
          FEES,
        )
      ).wait();
    });
    let error: unknown;
    await swap(a).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(AgentError);
    const body = (error as AgentError).toBody();
    expect(body.error).to.equal("SLIPPAGE_EXCEEDED");
    expect(body.cause).to.equal("market");
    expect(body.detail).to.match(/the market moved/);
    expect(body.moved_pools).to.have.length(1);
    // Refused before sending: no swap in the journal.
    const txs = await world.store.query<{ kind: string }>(
      "SELECT kind FROM engine_txs WHERE sender = $1 AND kind = 'swap'",
      [(await accountWallet(world.store, world.cipher, key!)).address],
    );
    expect(txs).to.deep.equal([]);
  });
});
