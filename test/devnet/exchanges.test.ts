import { expect } from "chai";
import { Contract, keccak256, parseUnits } from "ethers";
import type { ChainSet } from "../../relayer/chains/index.ts";
import { sharedDevnet } from "./fixture.ts";
import { DEVNET_ACCOUNTS } from "../../relayer/devnet/accounts.ts";
import { uniswapArtifact } from "../../relayer/devnet/artifacts.ts";
import { POOLS, SHALLOW_POOL, VENUES, poolDepthUsd } from "../../relayer/devnet/plan.ts";

/** The constant-product output with the 0.3 % fee (UniswapV2Library.getAmountOut). */
function amountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  const inWithFee = amountIn * 997n;
  return (inWithFee * reserveOut) / (reserveIn * 1000n + inWithFee);
}

/** The init code hash hard-coded in the official router's UniswapV2Library.pairFor. */
const OFFICIAL_PAIR_INIT_CODE_HASH =
  "0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f";

describe("# devnet exchanges", function () {
  let chains: ChainSet;

  before(async function () {
    chains = await sharedDevnet();
  });

  it("should deploy the official UniswapV2Pair whose init code hash the router hard-codes", function () {
    const pair = uniswapArtifact("UniswapV2Pair");
    expect(keccak256(pair.bytecode)).to.equal(OFFICIAL_PAIR_INIT_CODE_HASH);
    for (const chain of chains.list()) {
      expect(chain.deployment.extra.uniswapV2PairInitCodeHash).to.equal(
        OFFICIAL_PAIR_INIT_CODE_HASH,
      );
    }
  });

  it("should register every pool of the plan on both exchanges of every chain, at the factory's pair address", async function () {
    for (const chain of chains.list()) {
      expect(chain.deployment.pools).to.have.length(POOLS.length * 2);
      for (const pool of chain.deployment.pools) {
        const factory = chain.contract(
          pool.exchange === "uniswap" ? "UniswapFactory" : "SushiswapFactory",
        );
        const [a, b] = pool.tokens.map((s) => chain.deployment.tokens[s]!.address);
        expect(await factory.getFunction("getPair")(a, b)).to.equal(pool.pair);
      }
    }
  });

  for (const chainName of ["ethereum", "arbitrum", "polygon"] as const) {
    for (const exchange of ["uniswap", "sushiswap"] as const) {
      it(`should swap WETH for USDC through ${exchange} on ${chainName} with the x*y=k output less 0.3 %`, async function () {
        const chain = chains.byName(chainName);
        const trader = new (await import("ethers")).Wallet(
          DEVNET_ACCOUNTS[5]!.privateKey,
          chain.provider,
        );
        const weth = chain.contract("WETH", trader);
        const usdc = chain.contract("USDC", trader);
        const router = chain.contract(
          exchange === "uniswap" ? "UniswapRouter" : "SushiswapRouter",
          trader,
        );
        const pool = chain.deployment.pools.find(
          (p) => p.exchange === exchange && p.tokens.includes("WETH") && p.tokens.includes("USDC"),
        )!;
        const pair = new Contract(pool.pair, chain.abi("UniswapV2Pair"), chain.provider);
        const [r0, r1] = (await pair.getFunction("getReserves")()) as [bigint, bigint];
        const [reserveWeth, reserveUsdc] = pool.tokens[0] === "WETH" ? [r0, r1] : [r1, r0];

        // Seeded at the venue's price: ~3000 USD per WETH (skewed by a few bps per venue).
        const price = Number(reserveUsdc * 10n ** 12n) / Number(reserveWeth);
        const venuePrice = 3000 * (1 + VENUES[chainName][exchange].skewBps / 10_000);
        expect(Math.abs(price - venuePrice), `price ${price}`).to.be.below(1);

        const amountIn = parseUnits("1", 18);
        const expected = amountOut(amountIn, reserveWeth, reserveUsdc);
        expect(
          await router.getFunction("getAmountsOut")(amountIn, [
            await weth.getAddress(),
            await usdc.getAddress(),
          ]),
        ).to.deep.equal([amountIn, expected]);
        await (await weth.getFunction("approve")(await router.getAddress(), amountIn)).wait();
        const before = (await usdc.getFunction("balanceOf")(trader.address)) as bigint;
        await (
          await router.getFunction("swapExactTokensForTokens")(
            amountIn,
            expected,
            [await weth.getAddress(), await usdc.getAddress()],
            trader.address,
            2n ** 40n,
          )
        ).wait();
        expect((await usdc.getFunction("balanceOf")(trader.address)) - before).to.equal(expected);
      });
    }
  }

  it("should make the documented shallow pool refuse a large exact-output order with INSUFFICIENT_LIQUIDITY", async function () {
    const chain = chains.byName(SHALLOW_POOL.chain);
    const pool = chain.deployment.pools.find(
      (p) =>
        p.exchange === SHALLOW_POOL.exchange &&
        p.tokens.includes("WBTC") &&
        p.tokens.includes("USDC"),
    )!;
    const pair = new Contract(pool.pair, chain.abi("UniswapV2Pair"), chain.operator);
    const [r0, r1] = (await pair.getFunction("getReserves")()) as [bigint, bigint];
    const reserveWbtc = pool.tokens[0] === "WBTC" ? r0 : r1;
    const depthUsd = (Number(reserveWbtc) / 1e8) * 60_000;
    const plannedUsd = poolDepthUsd(SHALLOW_POOL.chain, SHALLOW_POOL.exchange, {
      tokens: SHALLOW_POOL.tokens,
      depthUsd: 0,
    });
    expect(Math.abs(depthUsd - plannedUsd), `depth ${depthUsd}`).to.be.below(100);
    const out = pool.tokens[0] === "WBTC" ? [reserveWbtc, 0n] : [0n, reserveWbtc];
    await expect(
      pair.getFunction("swap")(out[0], out[1], chain.operator.getAddress(), "0x"),
    ).to.be.revertedWith("UniswapV2: INSUFFICIENT_LIQUIDITY");
  });
});
