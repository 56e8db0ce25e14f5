import { expect } from "chai";
import { Wallet, parseEther } from "ethers";
import {
  isChainUnavailable,
  openChains,
  type ChainHandle,
  type ChainSet,
} from "../../relayer/chains/index.ts";
import { DEVNET_CHAINS } from "../../relayer/devnet/chains.ts";

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

describe("# devnet faults (in process)", function () {
  let chains: ChainSet;
  let chain: ChainHandle;
  const level = DEVNET_CHAINS.arbitrum.initialBaseFeePerGas;

  before(async function () {
    // Own chain set: faults must not disturb the chains other test files share.
    chains = await openChains({ mode: "embedded", chains: ["arbitrum"] });
    chain = chains.byName("arbitrum");
  });

  after(async function () {
    await chains?.close();
  });

  const transfer = (value = 1n) =>
    chain.operator.sendTransaction({ to: Wallet.createRandom().address, value });

  it("should keep the base fee at the chain's level across blocks", async function () {
    for (let i = 0; i < 5; i++) {
      const receipt = (await (await transfer()).wait())!;
      const block = await chain.provider.getBlock(receipt.blockNumber);
      expect(block!.baseFeePerGas).to.equal(level);
    }
  });

  it("should fail every request like a down RPC while stopped, and recover with its state", async function () {
    const probe = Wallet.createRandom().address;
    await (await chain.operator.sendTransaction({ to: probe, value: parseEther("1") })).wait();
    await chain.faults!.stopRpc();
    const err = await rejection(chain.provider.getBlockNumber());
    expect(isChainUnavailable(err), String(err)).to.equal(true);
    expect(isChainUnavailable(await rejection(transfer()))).to.equal(true);
    // A contract read: ethers reports it as a call exception wrapping the transport's error.
    const read = await rejection(chain.contract("USDC").getFunction("balanceOf")(probe));
    expect(isChainUnavailable(read), String(read)).to.equal(true);
    await chain.faults!.startRpc();
    expect(await chain.provider.getBalance(probe)).to.equal(parseEther("1"));
  });

  it("should raise the base fee sharply and keep it raised until restored", async function () {
    const raised = await chain.faults!.raiseBaseFee(50);
    try {
      expect(raised).to.equal(level * 50n);
      expect((await chain.provider.getBlock("latest"))!.baseFeePerGas).to.equal(raised);
      for (let i = 0; i < 3; i++) {
        const receipt = (await (await transfer()).wait())!;
        expect((await chain.provider.getBlock(receipt.blockNumber))!.baseFeePerGas).to.equal(
          raised,
        );
      }
    } finally {
      expect(await chain.faults!.restoreBaseFee()).to.equal(level);
    }
    const receipt = (await (await transfer()).wait())!;
    expect((await chain.provider.getBlock(receipt.blockNumber))!.baseFeePerGas).to.equal(level);
  });

  it("should stall mining (transactions stay pending) and mine on demand", async function () {
    await chain.faults!.stallMining();
    const height = await chain.provider.getBlockNumber();
    const tx = await transfer();
    expect(await chain.provider.getTransactionReceipt(tx.hash)).to.equal(null);
    expect(await chain.provider.getBlockNumber()).to.equal(height);
    await chain.faults!.mine(3);
    const receipt = await chain.provider.getTransactionReceipt(tx.hash);
    expect(receipt?.status).to.equal(1);
    expect(receipt?.blockNumber).to.equal(height + 1);
    expect(await chain.provider.getBlockNumber()).to.equal(height + 3);
    await chain.faults!.resumeMining();
    const next = (await (await transfer()).wait())!;
    expect(next.status).to.equal(1);
  });

  it("should mine pending transactions on an interval when interval mining is on", async function () {
    await chain.faults!.intervalMining(20);
    const receipt = await (await transfer()).wait();
    expect(receipt?.status).to.equal(1);
    await chain.faults!.resumeMining();
  });

  it("should refuse invalid fault parameters", async function () {
    expect(String(await rejection(chain.faults!.raiseBaseFee(0)))).to.match(
      /invalid base fee factor/,
    );
    expect(String(await rejection(chain.faults!.mine(0)))).to.match(/invalid block count/);
  });
});
