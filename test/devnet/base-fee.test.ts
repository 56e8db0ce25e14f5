import { expect } from "chai";
import type { JsonRpcApiProvider } from "ethers";
import { openChains, type ChainSet } from "../../relayer/chains/index.ts";
import { DEVNET_CHAINS } from "../../relayer/devnet/chains.ts";
import { feeQuote } from "../../relayer/routing/fees.ts";

/**
 * The in-process devnet pins each chain's base fee before every mining call; blocks mined
 * without the pin (the rest of a `hardhat_mine` batch) decay by EIP-1559. The fee history must
 * still announce the pinned level as the next block's base fee, or a quote priced from it is
 * refused ("maxFeePerGas too low for the next block").
 */
describe("# devnet base fee pin and eth_feeHistory (embedded)", function () {
  this.timeout(120_000);
  let chains: ChainSet;

  before(async function () {
    chains = await openChains({ mode: "embedded", chains: ["ethereum"] });
  });
  after(async function () {
    await chains?.close();
  });

  it("should announce the pinned base fee as the next block's after blocks that decayed, and accept an eco-priced transaction", async function () {
    const chain = chains.byName("ethereum");
    const provider = chain.provider as JsonRpcApiProvider;
    const pinned = DEVNET_CHAINS.ethereum.initialBaseFeePerGas;
    // Four blocks in one call: only the first is mined at the pinned level.
    await provider.send("hardhat_mine", ["0x4"]);
    const head = await provider.getBlock("latest");
    expect(head!.baseFeePerGas! < pinned).to.equal(true);

    const history = (await provider.send("eth_feeHistory", ["0x4", "latest", []])) as {
      baseFeePerGas: string[];
    };
    expect(BigInt(history.baseFeePerGas.at(-1)!)).to.equal(pinned);
    const older = (await provider.send("eth_feeHistory", [
      "0x2",
      `0x${(head!.number - 1).toString(16)}`,
      [],
    ])) as { baseFeePerGas: string[] };
    expect(BigInt(older.baseFeePerGas.at(-1)!)).to.equal(head!.baseFeePerGas);

    const fees = await feeQuote(provider, "eco");
    const sent = await chain.operator.sendTransaction({
      to: await chain.operator.getAddress(),
      value: 1n,
      type: 2,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const receipt = await sent.wait();
    expect(receipt!.status).to.equal(1);
    expect((await provider.getBlock(receipt!.blockNumber))!.baseFeePerGas).to.equal(pinned);
  });
});
