import { expect } from "chai";
import { network } from "hardhat";
import { Contract, parseUnits, type JsonRpcProvider } from "ethers";
import {
  estimateCost,
  getAmountOut,
  InsufficientLiquidityError,
  quoteSwapCandidates,
  ReserveReader,
  selectRoute,
} from "../../../relayer/routing/index.ts";
import { ROUTER_ABI } from "../../../relayer/routing/abis.ts";
import type { RoutingChain } from "../../../relayer/routing/chain.ts";
import { deployUniswapWorld } from "../../fixtures/uniswap.ts";

describe("# routing", function () {
  this.timeout(120_000);
  let expensive: RoutingChain;
  let cheap: RoutingChain;

  before(async function () {
    const eth = await network.create("ethereum");
    const arb = await network.create("arbitrum");
    const [ethDeployer] = await eth.ethers.getSigners();
    const [arbDeployer] = await arb.ethers.getSigners();
    // ethereum: deep uniswap, shallow sushiswap; arbitrum: mid-depth uniswap only, and a WETH route.
    expensive = await deployUniswapWorld(
      "ethereum",
      31337,
      ethDeployer!,
      eth.ethers.provider,
      ["USDC", "DAI"],
      [
        { exchange: "uniswap", a: "WETH", b: "USDC", amountA: "1000", amountB: "3000000" },
        { exchange: "uniswap", a: "USDC", b: "DAI", amountA: "5000000", amountB: "5000000" },
        { exchange: "sushiswap", a: "USDC", b: "DAI", amountA: "1000", amountB: "1000" },
        { exchange: "sushiswap", a: "WETH", b: "USDC", amountA: "10", amountB: "30000" },
      ],
    );
    cheap = await deployUniswapWorld(
      "arbitrum",
      31338,
      arbDeployer!,
      arb.ethers.provider,
      ["USDC", "DAI"],
      [
        { exchange: "uniswap", a: "WETH", b: "USDC", amountA: "500", amountB: "1500000" },
        { exchange: "uniswap", a: "USDC", b: "DAI", amountA: "400000", amountB: "400000" },
        { exchange: "uniswap", a: "WETH", b: "DAI", amountA: "500", amountB: "1500000" },
      ],
    );
  });

  it("should quote exactly what the router's getAmountsOut returns", async function () {
    const candidates = await quoteSwapCandidates(
      [expensive, cheap],
      { from: "USDC", to: "DAI", amount: "1000" },
      new ReserveReader(),
    );
    // ethereum: uniswap and sushiswap direct, uniswap via WETH (sushiswap has no WETH/DAI); arbitrum: direct and via WETH
    expect(candidates.length).to.equal(4);
    for (const c of candidates) {
      const chain = c.chain === "ethereum" ? expensive : cheap;
      const router = new Contract(c.router, ROUTER_ABI, chain.provider);
      const amounts = (await router.getFunction("getAmountsOut")(
        c.amountIn,
        c.pathAddresses,
      )) as bigint[];
      expect(c.amountOut).to.equal(amounts[amounts.length - 1]);
    }
  });

  it("should apply the Uniswap V2 formula with the 0.3% fee", function () {
    expect(getAmountOut(1000n, 1_000_000n, 1_000_000n)).to.equal(
      (1000n * 997n * 1_000_000n) / (1_000_000n * 1000n + 1000n * 997n),
    );
    expect(getAmountOut(0n, 10n, 10n)).to.equal(0n);
  });

  const rpc = (c: RoutingChain) => c.provider as unknown as JsonRpcProvider;
  // Base fees decay while the fixture deploys (blocks under target): set them as the devnet configures.
  async function setBaseFees(): Promise<void> {
    await rpc(expensive).send("hardhat_setNextBlockBaseFeePerGas", [
      "0x" + (20n * 10n ** 9n).toString(16),
    ]);
    await rpc(cheap).send("hardhat_setNextBlockBaseFeePerGas", ["0x" + (10n ** 8n).toString(16)]);
  }

  it("should choose by cost: output net of gas in USD favours the cheap chain for a small order", async function () {
    await setBaseFees();
    const candidates = await quoteSwapCandidates(
      [expensive, cheap],
      { from: "USDC", to: "DAI", amount: "1000" },
      new ReserveReader(),
    );
    const best = selectRoute(candidates, { priority: "cost" }, "swap");
    expect(best.chain).to.equal("arbitrum");
    for (const c of candidates) expect(best.netUsd).to.be.at.least(c.netUsd);
    const fastest = selectRoute(candidates, { priority: "speed" }, "swap");
    expect(fastest.path.length).to.equal(2);
    expect(fastest.gasUsd).to.equal(
      Math.min(...candidates.filter((c) => c.path.length === 2).map((c) => c.gasUsd)),
    );
    const output = selectRoute(candidates, { priority: "output" }, "swap");
    expect(output.amountOut).to.equal(
      candidates.map((c) => c.amountOut).reduce((a, b) => (a > b ? a : b)),
    );
  });

  it("should honour a dex pin", async function () {
    const candidates = await quoteSwapCandidates(
      [expensive],
      { from: "USDC", to: "DAI", amount: "10", dex: "sushiswap" },
      new ReserveReader(),
    );
    expect(candidates.every((c) => c.exchange === "sushiswap")).to.equal(true);
    expect(selectRoute(candidates, { dex: "sushiswap" }, "swap").exchange).to.equal("sushiswap");
  });

  it("should raise INSUFFICIENT_LIQUIDITY naming an alternative that has the liquidity", async function () {
    const candidates = await quoteSwapCandidates(
      [expensive, cheap],
      { from: "USDC", to: "DAI", amount: "500" },
      new ReserveReader(),
    );
    let error: unknown;
    try {
      selectRoute(candidates, { dex: "sushiswap", chains: ["ethereum"] }, "swap 500 USDC");
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(InsufficientLiquidityError);
    const body = (error as InsufficientLiquidityError).toBody();
    expect(body.error).to.equal("INSUFFICIENT_LIQUIDITY");
    expect(body.retry_in).to.be.a("number").greaterThan(0);
    expect(body.detail).to.match(/has the liquidity/);
    expect((error as InsufficientLiquidityError).alternative).to.not.equal(null);
  });

  it("should estimate cost per chain from fee history, gas estimates and the native USD price", async function () {
    await setBaseFees();
    const estimate = await estimateCost([expensive, cheap], {
      actions: [
        {
          type: "convert",
          from: "USDC",
          to: "DAI",
          amount: "1000",
          priority: "cost",
        },
        {
          type: "swap",
          from: "USDC",
          to: "WETH",
          amount: "100",
          slippageBps: 100,
          chain: "ethereum",
        },
      ],
    });
    expect(Object.keys(estimate.gas_breakdown).sort()).to.deep.equal(["arbitrum", "ethereum"]);
    expect(estimate.gas_breakdown.ethereum!).to.be.greaterThan(estimate.gas_breakdown.arbitrum!);
    const sum = estimate.gas_breakdown.ethereum! + estimate.gas_breakdown.arbitrum!;
    expect(Math.abs(estimate.total_usd - sum)).to.be.lessThan(0.02);
    // ethereum's base fee is 20 gwei, ETH priced ~3000 USD by its pool: a swap (>100k gas) costs several USD.
    expect(estimate.gas_breakdown.ethereum!).to.be.greaterThan(3);
    expect(estimate.plan[0]!.chain).to.equal("arbitrum");
    expect(parseUnits(estimate.plan[0]!.outputAmount, 18)).to.be.greaterThan(0n);
  });
});
