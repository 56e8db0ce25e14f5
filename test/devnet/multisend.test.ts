import { expect } from "chai";
import { Wallet, ZeroAddress, parseEther, parseUnits, type Contract } from "ethers";
import type { ChainHandle } from "../../relayer/chains/index.ts";
import { account, sharedDevnet } from "./fixture.ts";

describe("# multisend", function () {
  let chain: ChainHandle;
  let multisend: Contract;
  let sender: Wallet;
  const recipients = [0, 1, 2].map(() => Wallet.createRandom().address);

  before(async function () {
    chain = (await sharedDevnet()).byName("polygon");
    sender = account(chain, 8);
    multisend = chain.contract("Multisend", sender);
  });

  it("should send one ERC-20 to many recipients in one transaction", async function () {
    const amounts = [parseUnits("10", 6), parseUnits("20.5", 6), 1n];
    const total = amounts.reduce((a, b) => a + b);
    const usdc = chain.contract("USDC", sender);
    await (await usdc.getFunction("approve")(await multisend.getAddress(), total)).wait();
    const before = (await usdc.getFunction("balanceOf")(sender.address)) as bigint;
    await expect(
      multisend.getFunction("disperseToken")(await usdc.getAddress(), recipients, amounts),
    )
      .to.emit(multisend, "Dispersed")
      .withArgs(sender.address, await usdc.getAddress(), total, 3);
    for (const [i, recipient] of recipients.entries()) {
      expect(await usdc.getFunction("balanceOf")(recipient)).to.equal(amounts[i]);
    }
    expect(before - ((await usdc.getFunction("balanceOf")(sender.address)) as bigint)).to.equal(
      total,
    );
  });

  it("should send ether to many recipients when the value matches the amounts", async function () {
    const amounts = [parseEther("0.1"), parseEther("0.2"), parseEther("0.3")];
    await expect(
      multisend.getFunction("disperseEther")(recipients, amounts, { value: parseEther("0.6") }),
    ).to.emit(multisend, "Dispersed");
    for (const [i, recipient] of recipients.entries()) {
      expect(await chain.provider.getBalance(recipient)).to.equal(amounts[i]);
    }
  });

  it("should revert with a clear error for an empty, mismatched or zero-address batch", async function () {
    const usdc = chain.deployment.tokens.USDC!.address;
    await expect(
      multisend.getFunction("disperseToken")(usdc, [], []),
    ).to.be.revertedWithCustomError(multisend, "MultisendEmptyBatch");
    await expect(multisend.getFunction("disperseToken")(usdc, recipients, [1n, 2n]))
      .to.be.revertedWithCustomError(multisend, "MultisendLengthMismatch")
      .withArgs(3, 2);
    await expect(
      multisend.getFunction("disperseToken")(usdc, [recipients[0], ZeroAddress], [1n, 1n]),
    )
      .to.be.revertedWithCustomError(multisend, "MultisendZeroRecipient")
      .withArgs(1);
  });

  it("should revert when the ether sent differs from the amounts, or a recipient refuses ether", async function () {
    await expect(multisend.getFunction("disperseEther")(recipients, [1n, 2n, 3n], { value: 5n }))
      .to.be.revertedWithCustomError(multisend, "MultisendValueMismatch")
      .withArgs(6, 5);
    // A test token contract has no payable fallback.
    const refuser = chain.deployment.tokens.DAI!.address;
    await expect(
      multisend.getFunction("disperseEther")([recipients[0], refuser], [1n, 1n], { value: 2n }),
    )
      .to.be.revertedWithCustomError(multisend, "MultisendEtherTransferFailed")
      .withArgs(refuser);
  });

  it("should revert the whole batch when the allowance does not cover it", async function () {
    const dai = chain.contract("DAI", sender);
    await (await dai.getFunction("approve")(await multisend.getAddress(), 1n)).wait();
    await expect(
      multisend.getFunction("disperseToken")(await dai.getAddress(), recipients.slice(0, 2), [
        1n,
        1n,
      ]),
    ).to.be.revertedWithCustomError(dai, "ERC20InsufficientAllowance");
    expect(await dai.getFunction("balanceOf")(recipients[0])).to.equal(0n);
  });
});
