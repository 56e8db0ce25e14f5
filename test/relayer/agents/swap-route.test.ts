import { expect } from "chai";
import { accountWallet, ensureAccount, fundFromDevnet } from "../../../relayer/accounts/index.ts";
import type { SwapAgent } from "../../../relayer/agents/index.ts";
import { AgentError } from "../../../relayer/errors/index.ts";
import { nativeSymbol } from "../../../relayer/routing/chain.ts";
import { ReserveReader } from "../../../relayer/routing/pools.ts";
import { quoteSwapCandidates } from "../../../relayer/routing/quote.ts";
import { InsufficientLiquidityError } from "../../../relayer/routing/errors.ts";
import { selectRoute } from "../../../relayer/routing/select.ts";
import { devnetFunder, polygonSwapAgent, useEngineWorld } from "../../fixtures/engine.ts";

/**
 * The swap agent's route (relayer/agents/swap.ts): chosen among its own chain's candidates, the
 * other chains quoted only to name an alternative when none of its own fits.
 */
describe("# swap agent: route on its chain (embedded devnet)", function () {
  this.timeout(300_000);
  const world = useEngineWorld();
  let run = 0;

  async function agentFor(apiKeyId: string): Promise<SwapAgent> {
    const polygon = world.chains.byName("polygon");
    const { account } = await ensureAccount(world.store, world.cipher, apiKeyId);
    await fundFromDevnet(polygon, devnetFunder(polygon), account.address, {
      [nativeSymbol(polygon)]: "1",
      USDC: "1000",
      WBTC: "1",
    });
    return polygonSwapAgent(world, apiKeyId, { executionId: `wf_route_${apiKeyId}_${run++}` });
  }

  /** Counts the JSON-RPC requests made to every chain but polygon while `fn` runs. */
  async function requestsElsewhere(fn: () => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    const restore: Array<() => void> = [];
    for (const chain of world.chains.list()) {
      if (chain.name === "polygon") continue;
      const provider = chain.provider as typeof chain.provider & {
        send(method: string, params: unknown[]): Promise<unknown>;
      };
      const send = provider.send;
      provider.send = (method, params) => {
        seen.push(`${chain.name}:${method}`);
        return send.call(provider, method, params);
      };
      restore.push(() => (provider.send = send));
    }
    try {
      await fn();
    } finally {
      for (const undo of restore) undo();
    }
    return seen;
  }

  it("should swap on its chain without quoting the other chains", async function () {
    const agent = await agentFor("key_route_own");
    let result: Awaited<ReturnType<SwapAgent["execute"]>> | undefined;
    const elsewhere = await requestsElsewhere(async () => {
      result = await agent.execute({
        action: "swap",
        params: { from: "USDC", to: "WETH", amount: "100", slippage_bps: 100 },
      });
    });
    expect(result!.chain).to.equal("polygon");
    expect(BigInt(result!.tx_hashes.length)).to.be.greaterThan(0n);
    expect(elsewhere).to.deep.equal([]);
  });

  it("should name the alternative of every chain's quotes when its own chain lacks the liquidity", async function () {
    const agent = await agentFor("key_route_shallow");
    const params = { from: "WBTC", to: "USDC", amount: "1", slippage_bps: 100, dex: "sushiswap" };
    let error: unknown;
    const elsewhere = await requestsElsewhere(() =>
      agent.execute({ action: "swap", params }).catch((e: unknown) => (error = e)),
    );
    expect(error).to.be.instanceOf(AgentError);
    const body = (error as AgentError).toBody();
    expect(body.error).to.equal("INSUFFICIENT_LIQUIDITY");
    // The other chains were quoted for the error, and it names what a quote of all of them names.
    expect(elsewhere.length).to.be.greaterThan(0);
    const all = await quoteSwapCandidates(
      world.chains.list(),
      {
        from: "WBTC",
        to: "USDC",
        amount: "1",
        account: await (
          await accountWallet(world.store, world.cipher, "key_route_shallow")
        ).getAddress(),
      },
      new ReserveReader(),
    );
    let expected: unknown;
    try {
      selectRoute(all, { chains: ["polygon"], dex: "sushiswap" }, "swap");
    } catch (e) {
      expected = e;
    }
    expect(expected).to.be.instanceOf(InsufficientLiquidityError);
    expect(body.alternative).to.deep.equal((expected as InsufficientLiquidityError).alternative);
    expect(body.detail).to.match(/has the liquidity/);
    // Refused before anything was signed.
    const txs = await world.store.query("SELECT 1 FROM engine_txs WHERE execution_id LIKE $1", [
      "wf_route_key_route_shallow_%",
    ]);
    expect(txs).to.deep.equal([]);
  });
});
