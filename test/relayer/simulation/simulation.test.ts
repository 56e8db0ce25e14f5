import { expect } from "chai";
import { Contract, MaxUint256, parseUnits, Wallet, type BrowserProvider } from "ethers";
import { openChains, type ChainSet } from "../../../relayer/chains/index.ts";
import { DEVNET_ACCOUNTS } from "../../../relayer/devnet/accounts.ts";
import { getAmountOut } from "../../../relayer/routing/amm.ts";
import { getAmountIn } from "../../../relayer/simulation/sandwich.ts";
import {
  simulateTransaction,
  simulationChain,
  type SimulationChain,
} from "../../../relayer/simulation/simulate.ts";
import { simulateRequestSchema, type SimulateResult } from "../../../relayer/simulation/schema.ts";

/**
 * Simulation against the embedded devnet (real EDR chain, the official Uniswap V2 contracts, the
 * devnet's tokens and pools): the dry run must leave the chain untouched and agree with what the
 * same transaction does when it is then sent.
 */
describe("# transaction simulation", function () {
  this.timeout(300_000);
  let chains: ChainSet;
  let chain: SimulationChain;
  let victim: Wallet;
  let attacker: Wallet;
  let router: Contract;
  let usdc: Contract;
  let weth: Contract;
  let send: (method: string, params: unknown[]) => Promise<unknown>;

  const DEADLINE = 2n ** 40n;

  before(async function () {
    chains = await openChains({ mode: "embedded", chains: ["ethereum"] });
    const handle = chains.byName("ethereum");
    chain = simulationChain(handle);
    const provider = handle.provider as BrowserProvider;
    send = (method, params) => provider.send(method, params);
    victim = new Wallet(DEVNET_ACCOUNTS[5]!.privateKey, provider);
    attacker = new Wallet(DEVNET_ACCOUNTS[6]!.privateKey, provider);
    router = handle.contract("UniswapRouter");
    usdc = handle.contract("USDC");
    weth = handle.contract("WETH");
    for (const who of [victim, attacker]) {
      for (const token of [usdc, weth]) {
        await (
          await (token.connect(who) as Contract).getFunction("approve")(
            await router.getAddress(),
            MaxUint256,
          )
        ).wait();
      }
    }
  });

  after(async function () {
    await chains?.close();
  });

  async function reserves(): Promise<{ usdc: bigint; weth: bigint }> {
    const pair = wethUsdcPair();
    return {
      usdc: (await usdc.getFunction("balanceOf")(pair)) as bigint,
      weth: (await weth.getFunction("balanceOf")(pair)) as bigint,
    };
  }

  function wethUsdcPair(): string {
    return chain.deployment.pools.find(
      (p) => p.exchange === "uniswap" && p.tokens.includes("WETH") && p.tokens.includes("USDC"),
    )!.pair;
  }

  async function victimSwap(amountIn: bigint, slippageBps: bigint) {
    const r = await reserves();
    const quoted = getAmountOut(amountIn, r.usdc, r.weth);
    const minOut = (quoted * (10_000n - slippageBps)) / 10_000n;
    const data = router.interface.encodeFunctionData("swapExactTokensForTokens", [
      amountIn,
      minOut,
      [await usdc.getAddress(), await weth.getAddress()],
      await victim.getAddress(),
      DEADLINE,
    ]);
    return {
      request: { from: await victim.getAddress(), to: await router.getAddress(), data },
      minOut,
      quoted,
    };
  }

  function simulate(
    txData: Record<string, unknown>,
    mode?: "trace" | "call",
    blockCount?: number,
  ): Promise<SimulateResult> {
    const parsed = simulateRequestSchema.parse({
      chain_id: 31337,
      tx_data: txData,
      block_count: blockCount,
    });
    return simulateTransaction(chain, parsed, { mode });
  }

  function changeOf(result: SimulateResult, holder: string, token: string): bigint {
    const entry = result.balance_changes.find(
      (b) => b.address.toLowerCase() === holder.toLowerCase(),
    );
    const change = entry?.changes.find((c) => c.token.toLowerCase() === token.toLowerCase());
    return BigInt(change?.delta ?? "0");
  }

  it("should predict the exact gas and token balance changes of a swap, then match its real execution", async function () {
    const { request } = await victimSwap(parseUnits("10000", 6), 100n);
    const blockBefore = await chain.provider.getBlockNumber();
    const result = await simulate(request);
    expect(result.mode).to.equal("trace");
    expect(result.success).to.equal(true);
    expect(result.revert).to.equal(null);
    // The dry run left no trace.
    expect(await chain.provider.getBlockNumber()).to.equal(blockBefore);

    const victimAddress = await victim.getAddress();
    const pair = wethUsdcPair();
    const before = {
      victimUsdc: (await usdc.getFunction("balanceOf")(victimAddress)) as bigint,
      victimWeth: (await weth.getFunction("balanceOf")(victimAddress)) as bigint,
      pairUsdc: (await usdc.getFunction("balanceOf")(pair)) as bigint,
    };
    const receipt = await (
      await victim.sendTransaction({ to: request.to, data: request.data })
    ).wait();
    expect(Number(receipt!.gasUsed)).to.equal(result.gas_used);
    const after = {
      victimUsdc: (await usdc.getFunction("balanceOf")(victimAddress)) as bigint,
      victimWeth: (await weth.getFunction("balanceOf")(victimAddress)) as bigint,
      pairUsdc: (await usdc.getFunction("balanceOf")(pair)) as bigint,
    };
    expect(changeOf(result, victimAddress, await usdc.getAddress())).to.equal(
      after.victimUsdc - before.victimUsdc,
    );
    expect(changeOf(result, victimAddress, await weth.getAddress())).to.equal(
      after.victimWeth - before.victimWeth,
    );
    expect(changeOf(result, pair, await usdc.getAddress())).to.equal(
      after.pairUsdc - before.pairUsdc,
    );
    const sender = result.balance_changes.find((b) => b.role === "sender")!;
    expect(sender.changes.map((c) => c.symbol)).to.have.members(["USDC", "WETH"]);
    expect(
      result.balance_changes.some((b) => b.role === "counterparty" && b.address === pair),
    ).to.equal(true);
  });

  it("should give the same outcome in call mode, with eth_estimateGas as an upper bound and router-derived changes", async function () {
    const { request } = await victimSwap(parseUnits("2000", 6), 100n);
    const exact = await simulate(request, "trace");
    const called = await simulate(request, "call");
    expect(called.mode).to.equal("call");
    expect(called.success).to.equal(true);
    expect(called.balance_changes_source).to.equal("router-return");
    expect(called.gas_used!).to.be.at.least(exact.gas_used!);
    const victimAddress = await victim.getAddress();
    for (const token of [await usdc.getAddress(), await weth.getAddress()]) {
      expect(changeOf(called, victimAddress, token)).to.equal(
        changeOf(exact, victimAddress, token),
      );
    }
  });

  it("should report a reverting swap with its decoded reason, in both modes", async function () {
    const { request } = await victimSwap(parseUnits("1000", 6), 0n);
    // Ask for one more wei than the pool can give.
    const args = router.interface.decodeFunctionData("swapExactTokensForTokens", request.data);
    const data = router.interface.encodeFunctionData("swapExactTokensForTokens", [
      args[0],
      (args[1] as bigint) + 1n,
      args[2],
      args[3],
      args[4],
    ]);
    for (const mode of ["trace", "call"] as const) {
      const result = await simulate({ ...request, data }, mode);
      expect(result.success).to.equal(false);
      expect(result.revert!.kind).to.equal("error");
      expect(result.revert!.reason).to.equal("UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT");
      // The trace measures the gas a reverting transaction burns; a plain call cannot.
      if (mode === "trace") expect(result.gas_used).to.be.greaterThan(21_000);
      else expect(result.gas_used).to.equal(null);
      expect(result.mev.applicable).to.equal(false);
    }
  });

  it("should decode custom errors with the deployment's ABIs", async function () {
    const victimAddress = await victim.getAddress();
    const balance = (await usdc.getFunction("balanceOf")(victimAddress)) as bigint;
    const overdraw = usdc.interface.encodeFunctionData("transfer", [
      await attacker.getAddress(),
      balance + 1n,
    ]);
    const token = await simulate({
      from: victimAddress,
      to: await usdc.getAddress(),
      data: overdraw,
    });
    expect(token.success).to.equal(false);
    expect(token.revert!.kind).to.equal("custom");
    expect(token.revert!.error!.name).to.equal("ERC20InsufficientBalance");
    expect(token.revert!.error!.args).to.deep.equal({
      sender: victimAddress,
      balance: balance.toString(),
      needed: (balance + 1n).toString(),
    });

    const oracle = chain.contract("SanctionsOracle");
    const listing = oracle.interface.encodeFunctionData("addToSanctionsList", [[victimAddress]]);
    const denied = await simulate({
      from: victimAddress,
      to: await oracle.getAddress(),
      data: listing,
    });
    expect(denied.revert!.reason).to.equal(`OwnableUnauthorizedAccount(account=${victimAddress})`);
  });

  it("should rate a swap with a loose minimum-out as sandwichable and match a sandwich executed on chain", async function () {
    const { request, minOut, quoted } = await victimSwap(parseUnits("50000", 6), 300n);
    const result = await simulate(request, undefined, 12);
    const mev = result.mev;
    expect(mev.applicable).to.equal(true);
    expect(mev.block_count).to.equal(12);
    expect(mev.window.to_block - mev.window.from_block).to.equal(11);
    expect(mev.swap!.expected).to.equal(quoted.toString());
    const sandwich = mev.sandwich!;
    expect(sandwich.symbol).to.equal("USDC");
    expect(BigInt(sandwich.max_profit) > 0n).to.equal(true);
    expect(sandwich.max_profit_usd).to.be.greaterThan(0);
    expect(["medium", "high"]).to.include(mev.risk);

    const attackerAddress = await attacker.getAddress();
    const asAttacker = router.connect(attacker) as Contract;
    const path = [await usdc.getAddress(), await weth.getAddress()];

    // One step past the computed bound, the victim's swap reverts: the bound is tight.
    const snapshot = await send("evm_snapshot", []);
    await (
      await asAttacker.getFunction("swapExactTokensForTokens")(
        BigInt(sandwich.max_front_run) + 1n,
        0n,
        path,
        attackerAddress,
        DEADLINE,
      )
    ).wait();
    const victimTooLate = await simulate(request, "call");
    expect(victimTooLate.success).to.equal(false);
    expect(victimTooLate.revert!.reason).to.equal("UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT");
    await send("evm_revert", [snapshot]);

    // The sandwich itself: front-run, victim, back-run, one block each.
    const usdcBefore = (await usdc.getFunction("balanceOf")(attackerAddress)) as bigint;
    const wethBefore = (await weth.getFunction("balanceOf")(attackerAddress)) as bigint;
    await (
      await asAttacker.getFunction("swapExactTokensForTokens")(
        BigInt(sandwich.front_run_in),
        0n,
        path,
        attackerAddress,
        DEADLINE,
      )
    ).wait();
    const bought = ((await weth.getFunction("balanceOf")(attackerAddress)) as bigint) - wethBefore;
    expect(bought).to.equal(BigInt(sandwich.front_run_out));
    const victimWethBefore = (await weth.getFunction("balanceOf")(
      await victim.getAddress(),
    )) as bigint;
    await (await victim.sendTransaction({ to: request.to, data: request.data })).wait();
    const victimGot =
      ((await weth.getFunction("balanceOf")(await victim.getAddress())) as bigint) -
      victimWethBefore;
    expect(victimGot >= minOut).to.equal(true);
    expect((quoted - victimGot).toString()).to.equal(sandwich.victim_loss);
    await (
      await asAttacker.getFunction("swapExactTokensForTokens")(
        bought,
        0n,
        [...path].reverse(),
        attackerAddress,
        DEADLINE,
      )
    ).wait();
    const realised =
      ((await usdc.getFunction("balanceOf")(attackerAddress)) as bigint) - usdcBefore;

    // Stated tolerance: 0.1% of the estimate (the model uses the pool's own integer math, so it is exact here).
    const estimate = BigInt(sandwich.max_profit);
    const diff = realised > estimate ? realised - estimate : estimate - realised;
    expect(diff * 1000n <= estimate).to.equal(
      true,
      `realised ${realised} vs estimated ${estimate}`,
    );
  });

  it("should bound an exact-out swap's sandwich by its maximum input and match the executed sandwich", async function () {
    const r = await reserves();
    const amountOut = parseUnits("5", 18);
    const quotedIn = getAmountIn(amountOut, r.usdc, r.weth)!;
    const amountInMax = (quotedIn * 10_200n) / 10_000n; // 2% tolerance
    const path = [await usdc.getAddress(), await weth.getAddress()];
    const data = router.interface.encodeFunctionData("swapTokensForExactTokens", [
      amountOut,
      amountInMax,
      path,
      await victim.getAddress(),
      DEADLINE,
    ]);
    const result = await simulate({
      from: await victim.getAddress(),
      to: await router.getAddress(),
      data,
    });
    expect(result.success).to.equal(true);
    const sandwich = result.mev.sandwich!;
    expect(result.mev.swap).to.include({
      amount_out: amountOut.toString(),
      amount_in_max: amountInMax.toString(),
      expected: quotedIn.toString(),
    });

    const attackerAddress = await attacker.getAddress();
    const asAttacker = router.connect(attacker) as Contract;
    const usdcBefore = (await usdc.getFunction("balanceOf")(attackerAddress)) as bigint;
    await (
      await asAttacker.getFunction("swapExactTokensForTokens")(
        BigInt(sandwich.front_run_in),
        0n,
        path,
        attackerAddress,
        DEADLINE,
      )
    ).wait();
    const victimUsdcBefore = (await usdc.getFunction("balanceOf")(
      await victim.getAddress(),
    )) as bigint;
    await (await victim.sendTransaction({ to: await router.getAddress(), data })).wait();
    const victimPaid =
      victimUsdcBefore -
      ((await usdc.getFunction("balanceOf")(await victim.getAddress())) as bigint);
    expect(victimPaid <= amountInMax).to.equal(true);
    expect((victimPaid - quotedIn).toString()).to.equal(sandwich.victim_loss);
    await (
      await asAttacker.getFunction("swapExactTokensForTokens")(
        BigInt(sandwich.front_run_out),
        0n,
        [...path].reverse(),
        attackerAddress,
        DEADLINE,
      )
    ).wait();
    const realised =
      ((await usdc.getFunction("balanceOf")(attackerAddress)) as bigint) - usdcBefore;
    const estimate = BigInt(sandwich.max_profit);
    const diff = realised > estimate ? realised - estimate : estimate - realised;
    expect(diff * 1000n <= estimate).to.equal(
      true,
      `realised ${realised} vs estimated ${estimate}`,
    );
  });

  it("should rate a swap with a tight minimum-out as low or no risk", async function () {
    const { request } = await victimSwap(parseUnits("100", 6), 1n);
    const result = await simulate(request);
    expect(["none", "low"]).to.include(result.mev.risk);
    expect(BigInt(result.mev.sandwich?.victim_loss ?? "0") * 10_000n).to.be.lessThanOrEqual(
      BigInt(result.mev.swap!.expected) * 1n,
    );
  });

  it("should report native value moved by the transaction and its internal calls", async function () {
    const path = [await weth.getAddress(), await usdc.getAddress()];
    const value = parseUnits("1", 18);
    const data = router.interface.encodeFunctionData("swapExactETHForTokens", [
      0n,
      path,
      await victim.getAddress(),
      DEADLINE,
    ]);
    const result = await simulate({
      from: await victim.getAddress(),
      to: await router.getAddress(),
      data,
      value: value.toString(),
    });
    expect(result.success).to.equal(true);
    // The router forwards the ether to WETH (an internal call): sender −1 ETH, WETH +1 ETH, router net 0.
    expect(changeOf(result, await victim.getAddress(), "native")).to.equal(-value);
    expect(changeOf(result, await weth.getAddress(), "native")).to.equal(value);
    expect(changeOf(result, await router.getAddress(), "native")).to.equal(0n);
    expect(changeOf(result, await victim.getAddress(), await usdc.getAddress()) > 0n).to.equal(
      true,
    );
    expect(result.mev.swap!.function).to.equal("swapExactETHForTokens");
  });

  it("should mark a plain transfer as not applicable to MEV", async function () {
    const data = usdc.interface.encodeFunctionData("transfer", [await attacker.getAddress(), 5n]);
    const result = await simulate({
      from: await victim.getAddress(),
      to: await usdc.getAddress(),
      data,
    });
    expect(result.success).to.equal(true);
    expect(result.mev).to.include({ applicable: false, risk: "none" });
    expect(changeOf(result, await attacker.getAddress(), await usdc.getAddress())).to.equal(5n);
  });
});
