import { expect } from "chai";
import { Wallet, toQuantity } from "ethers";
import { openChains, type ChainHandle, type ChainSet } from "../../relayer/chains/index.ts";
import { DEVNET_CHAINS } from "../../relayer/devnet/chains.ts";
import { estimateCost } from "../../relayer/routing/index.ts";

/**
 * The in-process devnet's state version (DevnetEip1193.stateVersion): routing reuses the latest
 * block and fee history read while nothing went through the chain's provider that could change
 * them, and asks again after anything that could.
 */
describe("# devnet state version (in process)", function () {
  this.timeout(120_000);
  let chains: ChainSet;
  let chain: ChainHandle;
  let send: (method: string, params: unknown[]) => Promise<unknown>;
  /** JSON-RPC requests made through the chain's provider, by method. */
  const reached: string[] = [];
  const workflow = {
    actions: [{ type: "swap" as const, from: "USDC", to: "DAI", amount: "1000", slippage: 0.5 }],
  };

  before(async function () {
    // Own chain set: its mining mode and base fee change here.
    chains = await openChains({ mode: "embedded", chains: ["arbitrum"] });
    chain = chains.byName("arbitrum");
    const provider = chain.provider as unknown as {
      send(method: string, params: unknown[]): Promise<unknown>;
    };
    send = provider.send.bind(provider);
    provider.send = (method, params) => {
      reached.push(method);
      return send(method, params);
    };
  });

  after(async function () {
    await chains?.close();
  });

  const version = () => chain.stateVersion!();
  const headAndFeeReads = () =>
    reached.filter((m) => m === "eth_getBlockByNumber" || m === "eth_feeHistory").length;

  it("should expose a state version on in-process chains that reads leave unchanged", async function () {
    expect(chain.stateVersion).to.be.a("function");
    const before = version();
    expect(before).to.be.a("number");
    await chain.provider.getBlockNumber();
    await chain.provider.getBalance(Wallet.createRandom().address);
    await send("eth_feeHistory", ["0x4", "latest", [50]]);
    await send("eth_call", [{ to: Wallet.createRandom().address, data: "0x" }, "latest"]);
    expect(version()).to.equal(before);
  });

  it("should move the version on a transaction, a mined block and a base-fee change", async function () {
    let last = version()!;
    const moved = () => {
      const now = version()!;
      const changed = now !== last;
      last = now;
      return changed;
    };
    await (
      await chain.operator.sendTransaction({ to: Wallet.createRandom().address, value: 1n })
    ).wait();
    expect(moved()).to.equal(true);
    await send("evm_mine", []);
    expect(moved()).to.equal(true);
    await send("hardhat_setNextBlockBaseFeePerGas", [
      toQuantity(DEVNET_CHAINS.arbitrum.initialBaseFeePerGas),
    ]);
    expect(moved()).to.equal(true);
    await chain.faults!.raiseBaseFee(2);
    expect(moved()).to.equal(true);
    await chain.faults!.restoreBaseFee();
    expect(moved()).to.equal(true);
    // Any method that is not a known read counts as a change.
    await send("evm_snapshot", []);
    expect(moved()).to.equal(true);
  });

  it("should report no version while the RPC is down or blocks are mined on an interval", async function () {
    await chain.faults!.stopRpc();
    expect(version()).to.equal(null);
    await chain.faults!.startRpc();
    expect(version()).to.be.a("number");
    await chain.faults!.intervalMining(60_000);
    expect(version()).to.equal(null);
    await chain.faults!.resumeMining();
    expect(version()).to.be.a("number");
    // Hardhat's random interval form, [min, max] milliseconds.
    await send("evm_setIntervalMining", [[60_000, 120_000]]);
    expect(version()).to.equal(null);
    await send("evm_setIntervalMining", [0]);
    expect(version()).to.be.a("number");
  });

  it("should estimate again from the chain's reads only after its state could have changed", async function () {
    const first = await estimateCost([chain], workflow);
    const reads = headAndFeeReads();
    const again = await Promise.all([
      estimateCost([chain], workflow),
      estimateCost([chain], workflow),
    ]);
    // Nothing went through the chain since: its latest block and fee history were not asked again.
    expect(headAndFeeReads()).to.equal(reads);
    for (const e of again) expect(e).to.deep.equal(first);

    // A request that could change the chain, without a block: the next estimate reads again. (The
    // devnet pins every block's base fee to the chain's level, so a next-block base fee set this
    // way is overridden when the block is mined, and the fee history already says so.)
    await send("hardhat_setNextBlockBaseFeePerGas", [
      toQuantity(DEVNET_CHAINS.arbitrum.initialBaseFeePerGas * 50n),
    ]);
    const reread = await estimateCost([chain], workflow);
    expect(headAndFeeReads()).to.be.greaterThan(reads);
    expect(reread).to.deep.equal(first);

    // A new base fee level: the estimate follows it.
    await chain.faults!.raiseBaseFee(50);
    try {
      const pricier = await estimateCost([chain], workflow);
      expect(pricier.total_usd).to.be.greaterThan(first.total_usd);
    } finally {
      await chain.faults!.restoreBaseFee();
    }

    // A mined block is a new head: read, and the estimate is made on it.
    const height = await chain.provider.getBlockNumber();
    await send("evm_mine", []);
    const beforeMined = headAndFeeReads();
    await estimateCost([chain], workflow);
    expect(headAndFeeReads()).to.be.greaterThan(beforeMined);
    expect(await chain.provider.getBlockNumber()).to.equal(height + 1);
  });

  it("should not reuse a read while the RPC is down: the estimate fails like the chain", async function () {
    await estimateCost([chain], workflow);
    await chain.faults!.stopRpc();
    try {
      let failed: unknown;
      await estimateCost([chain], workflow).catch((err: unknown) => (failed = err));
      expect(failed, "an estimate while the chain's RPC is down").to.be.instanceOf(Error);
    } finally {
      await chain.faults!.startRpc();
    }
  });
});
