import { expect } from "chai";
import { network } from "hardhat";
import { Contract, MaxUint256, parseUnits, type Signer, type TransactionRequest } from "ethers";
import {
  estimateCost,
  quoteSwapCandidates,
  ReserveReader,
} from "../../../relayer/routing/index.ts";
import { ROUTER_ABI } from "../../../relayer/routing/abis.ts";
import type { RoutingChain } from "../../../relayer/routing/chain.ts";
import { deployUniswapWorld } from "../../fixtures/uniswap.ts";

/**
 * Routing reads chains through per-block snapshots (`relayer/routing/snapshot.ts`): decisions on
 * the same block share their contract reads, concurrent identical reads are made once, and a new
 * block is always read afresh.
 */
describe("# routing reads per block", function () {
  this.timeout(120_000);
  let chain: RoutingChain;
  let trader: Signer;
  let calls = 0;

  before(async function () {
    const conn = await network.create("ethereum");
    trader = (await conn.ethers.getSigners())[0]!;
    const provider = conn.ethers.provider;
    chain = await deployUniswapWorld(
      "ethereum",
      31337,
      trader,
      provider,
      ["USDC", "DAI"],
      [
        { exchange: "uniswap", a: "WETH", b: "USDC", amountA: "1000", amountB: "3000000" },
        { exchange: "uniswap", a: "USDC", b: "DAI", amountA: "5000000", amountB: "5000000" },
        { exchange: "uniswap", a: "WETH", b: "DAI", amountA: "1000", amountB: "3000000" },
      ],
    );
    // Count the eth_calls routing makes through this provider.
    const call = provider.call.bind(provider);
    provider.call = (tx: TransactionRequest) => {
      calls++;
      return call(tx);
    };
  });

  const quote = () =>
    quoteSwapCandidates([chain], { from: "USDC", to: "DAI", amount: "1000" }, new ReserveReader());

  const mine = () =>
    (chain.provider as unknown as { send(m: string, p: unknown[]): Promise<unknown> }).send(
      "evm_mine",
      [],
    );

  async function routerOut(path: string[], amountIn: bigint): Promise<bigint> {
    const router = new Contract(chain.deployment.exchanges.uniswap!.router, ROUTER_ABI, trader);
    const amounts = (await router.getFunction("getAmountsOut")(amountIn, path)) as bigint[];
    return amounts[amounts.length - 1]!;
  }

  it("should read each pool once per block, however many decisions quote on it", async function () {
    calls = 0;
    const first = await quote();
    const readsOfOneDecision = calls;
    expect(readsOfOneDecision).to.be.greaterThan(0);
    const again = await Promise.all([quote(), quote(), quote(), quote()]);
    expect(calls).to.equal(readsOfOneDecision);
    for (const candidates of again) {
      expect(candidates.map((c) => c.amountOut)).to.deep.equal(first.map((c) => c.amountOut));
    }
  });

  it("should make concurrent identical reads once (single flight)", async function () {
    await mine(); // a new block: nothing is cached for it yet
    calls = 0;
    await Promise.all([quote(), quote(), quote()]);
    const concurrent = calls;
    await mine();
    calls = 0;
    await quote();
    expect(concurrent).to.equal(calls);
  });

  it("should serve an identical estimate again on the same state, and recompute when fees change", async function () {
    const workflow = {
      actions: [{ type: "swap", from: "USDC", to: "DAI", amount: "250", slippageBps: 50 }],
    };
    await mine();
    const first = await estimateCost([chain], workflow);
    calls = 0;
    const again = await Promise.all([
      estimateCost([chain], workflow),
      estimateCost([chain], workflow),
    ]);
    expect(calls).to.equal(0);
    for (const e of again) expect(e).to.deep.equal(first);
    // The next block's base fee changes without a block (Hardhat): the estimate follows it.
    const send = (chain.provider as unknown as { send(m: string, p: unknown[]): Promise<unknown> })
      .send;
    await send.call(chain.provider, "hardhat_setNextBlockBaseFeePerGas", [
      "0x" + (50n * 10n ** 9n).toString(16),
    ]);
    const pricier = await estimateCost([chain], workflow);
    expect(pricier.total_usd).to.be.greaterThan(first.total_usd);
  });

  it("should quote a new block's reserves once a transaction changed them", async function () {
    const before = await quote();
    const direct = before.find((c) => c.path.length === 2)!;
    expect(direct.amountOut).to.equal(await routerOut(direct.pathAddresses, direct.amountIn));
    // A large USDC → DAI swap moves the pool (and mines a block).
    const router = new Contract(chain.deployment.exchanges.uniswap!.router, ROUTER_ABI, trader);
    const usdc = new Contract(
      chain.deployment.tokens.USDC!.address,
      ["function approve(address,uint256) returns (bool)"],
      trader,
    );
    await (await usdc.getFunction("approve")(await router.getAddress(), MaxUint256)).wait();
    await (
      await router.getFunction("swapExactTokensForTokens")(
        parseUnits("500000", 18),
        0n,
        direct.pathAddresses,
        await trader.getAddress(),
        2n ** 40n,
      )
    ).wait();
    const after = (await quote()).find((c) => c.path.length === 2)!;
    expect(after.amountOut).to.be.lessThan(direct.amountOut);
    expect(after.amountOut).to.equal(await routerOut(direct.pathAddresses, direct.amountIn));
  });
});
