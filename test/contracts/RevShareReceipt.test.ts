import { expect } from "chai";
import { parseEther } from "ethers";
import { network } from "hardhat";
import { interfaceId } from "./interface-ids.ts";

// Same-timestamp blocks let two holders be issued their receipts at the same second.
const { ethers, networkHelpers } = await network.create({
  override: { allowBlocksWithSameTimestamp: true },
});

const ADMIN_DELAY = 86_400n;
const CLAIM_SHARE_BPS = 5_000n;
const SNAPSHOT_INTERVAL = 86_400n;
const MAX_SUPPLY = 2n ** 208n - 1n;
const ref = (label: string) => ethers.id(`payment:${label}`);

async function deployReceipt() {
  const [admin, issuer, alice, bob, carol, payer] = await ethers.getSigners();
  const receipt = await ethers.deployContract("RevShareReceipt", [
    "Veriflow Payment Receipt",
    "VFR",
    ADMIN_DELAY,
    admin!.address,
    issuer!.address,
    CLAIM_SHARE_BPS,
    SNAPSHOT_INTERVAL,
  ]);
  return {
    receipt,
    admin: admin!,
    issuer: issuer!,
    alice: alice!,
    bob: bob!,
    carol: carol!,
    payer: payer!,
  };
}

/**
 * Alice holds 300 and Bob 100 receipt tokens from the same second on; 4 ETH of revenue arrived;
 * snapshot 1 closes the first period of the schedule.
 */
async function snapshottedReceipt() {
  const fixture = await deployReceipt();
  const { receipt, issuer, alice, bob, payer } = fixture;
  const start = await receipt.scheduleStart();
  const issuedAt = start + 10n;
  await networkHelpers.time.setNextBlockTimestamp(issuedAt);
  await receipt.connect(issuer).issueReceipt(alice.address, parseEther("300"), ref("alice"));
  await networkHelpers.time.setNextBlockTimestamp(issuedAt);
  await receipt.connect(issuer).issueReceipt(bob.address, parseEther("100"), ref("bob"));
  await payer.sendTransaction({ to: await receipt.getAddress(), value: parseEther("4") });
  await networkHelpers.time.setNextBlockTimestamp(start + SNAPSHOT_INTERVAL);
  const snapshotTx = await receipt.snapshot();
  return { ...fixture, snapshotTx, start, issuedAt, end: start + SNAPSHOT_INTERVAL };
}

describe("# RevShareReceipt", function () {
  describe("# deployment", function () {
    it("should set the ERC-20 metadata, parameters, roles and version", async function () {
      const { receipt, admin, issuer } = await networkHelpers.loadFixture(deployReceipt);
      expect(await receipt.name()).to.equal("Veriflow Payment Receipt");
      expect(await receipt.symbol()).to.equal("VFR");
      expect(await receipt.decimals()).to.equal(18n);
      expect(await receipt.claimShareBps()).to.equal(CLAIM_SHARE_BPS);
      expect(await receipt.snapshotInterval()).to.equal(SNAPSHOT_INTERVAL);
      expect(await receipt.defaultAdmin()).to.equal(admin.address);
      expect(await receipt.ISSUER_ROLE()).to.equal(ethers.id("ISSUER_ROLE"));
      expect(await receipt.hasRole(ethers.id("ISSUER_ROLE"), issuer.address)).to.equal(true);
      expect(await receipt.version()).to.equal("2.0.0");
      expect(await receipt.currentSnapshotId()).to.equal(0n);
    });

    it("should revert with RevShareReceiptInvalidClaimShare above 10 000 bps", async function () {
      const [admin] = await ethers.getSigners();
      const factory = await ethers.getContractFactory("RevShareReceipt");
      await expect(factory.deploy("R", "R", 0n, admin!.address, ethers.ZeroAddress, 10_001n, 1n))
        .to.be.revertedWithCustomError(factory, "RevShareReceiptInvalidClaimShare")
        .withArgs(10_001n);
      const full = await factory.deploy(
        "R",
        "R",
        0n,
        admin!.address,
        ethers.ZeroAddress,
        10_000n,
        1n,
      );
      expect(await full.claimShareBps()).to.equal(10_000n);
      expect(await full.hasRole(ethers.id("ISSUER_ROLE"), ethers.ZeroAddress)).to.equal(false);
    });

    it("should revert with RevShareReceiptInvalidSnapshotInterval for a zero or oversized interval", async function () {
      const [admin] = await ethers.getSigners();
      const factory = await ethers.getContractFactory("RevShareReceipt");
      for (const interval of [0n, 2n ** 32n]) {
        await expect(
          factory.deploy("R", "R", 0n, admin!.address, ethers.ZeroAddress, 5_000n, interval),
        ).to.be.revertedWithCustomError(factory, "RevShareReceiptInvalidSnapshotInterval");
      }
    });

    it("should support the ERC-165 ids of IRevShareReceipt, ERC-7641, ERC-20 and AccessControl", async function () {
      const { receipt } = await networkHelpers.loadFixture(deployReceipt);
      const selectorXor = (signatures: string[]) =>
        ethers.toBeHex(
          signatures.map((s) => BigInt(ethers.id(s).slice(0, 10))).reduce((a, b) => a ^ b, 0n),
          4,
        );
      const erc7641 = selectorXor([
        "claimableRevenue(address,uint256)",
        "claim(uint256)",
        "snapshot()",
        "redeemableOnBurn(uint256)",
        "burn(uint256)",
      ]);
      const erc20 = selectorXor([
        "totalSupply()",
        "balanceOf(address)",
        "transfer(address,uint256)",
        "allowance(address,address)",
        "approve(address,uint256)",
        "transferFrom(address,address,uint256)",
      ]);
      expect(await receipt.supportsInterface(erc7641)).to.equal(true);
      expect(
        await receipt.supportsInterface(
          await interfaceId("IRevShareReceipt", ["IERC7641", "ISemver"]),
        ),
      ).to.equal(true);
      expect(await receipt.supportsInterface(erc20)).to.equal(true);
      expect(await receipt.supportsInterface("0x7965db0b")).to.equal(true); // IAccessControl
      expect(await receipt.supportsInterface("0x01ffc9a7")).to.equal(true); // IERC165
      expect(await receipt.supportsInterface("0xffffffff")).to.equal(false);
    });
  });

  describe("# issueReceipt", function () {
    it("should mint to the payer, mark the payment reference and emit ReceiptIssued", async function () {
      const { receipt, issuer, alice } = await networkHelpers.loadFixture(deployReceipt);
      const amount = parseEther("12.5");
      await expect(receipt.connect(issuer).issueReceipt(alice.address, amount, ref("1")))
        .to.emit(receipt, "ReceiptIssued")
        .withArgs(alice.address, ref("1"), amount)
        .and.to.emit(receipt, "Transfer")
        .withArgs(ethers.ZeroAddress, alice.address, amount);
      expect(await receipt.balanceOf(alice.address)).to.equal(amount);
      expect(await receipt.totalSupply()).to.equal(amount);
      expect(await receipt.isReceipted(ref("1"))).to.equal(true);
      expect(await receipt.isReceipted(ref("2"))).to.equal(false);
    });

    it("should revert with RevShareReceiptDuplicatePaymentRef for a repeated payment reference", async function () {
      const { receipt, issuer, alice, bob } = await networkHelpers.loadFixture(deployReceipt);
      await receipt.connect(issuer).issueReceipt(alice.address, 1n, ref("1"));
      await expect(receipt.connect(issuer).issueReceipt(bob.address, 5n, ref("1")))
        .to.be.revertedWithCustomError(receipt, "RevShareReceiptDuplicatePaymentRef")
        .withArgs(ref("1"));
      expect(await receipt.balanceOf(bob.address)).to.equal(0n);
    });

    it("should revert with RevShareReceiptInvalidPaymentRef, RevShareReceiptZeroAmount and ERC20InvalidReceiver for bad input", async function () {
      const { receipt, issuer, alice } = await networkHelpers.loadFixture(deployReceipt);
      await expect(
        receipt.connect(issuer).issueReceipt(alice.address, 1n, ethers.ZeroHash),
      ).to.be.revertedWithCustomError(receipt, "RevShareReceiptInvalidPaymentRef");
      await expect(
        receipt.connect(issuer).issueReceipt(alice.address, 0n, ref("1")),
      ).to.be.revertedWithCustomError(receipt, "RevShareReceiptZeroAmount");
      await expect(receipt.connect(issuer).issueReceipt(ethers.ZeroAddress, 1n, ref("1")))
        .to.be.revertedWithCustomError(receipt, "ERC20InvalidReceiver")
        .withArgs(ethers.ZeroAddress);
      expect(await receipt.isReceipted(ref("1"))).to.equal(false);
    });

    it("should revert with AccessControlUnauthorizedAccount for a caller without the issuer role", async function () {
      const { receipt, alice } = await networkHelpers.loadFixture(deployReceipt);
      await expect(receipt.connect(alice).issueReceipt(alice.address, 1n, ref("1")))
        .to.be.revertedWithCustomError(receipt, "AccessControlUnauthorizedAccount")
        .withArgs(alice.address, ethers.id("ISSUER_ROLE"));
    });

    it("should revert with RevShareReceiptSupplyCapExceeded past 2^208 - 1 tokens", async function () {
      const { receipt, issuer, alice, bob } = await networkHelpers.loadFixture(deployReceipt);
      await receipt.connect(issuer).issueReceipt(alice.address, MAX_SUPPLY, ref("max"));
      await expect(receipt.connect(issuer).issueReceipt(bob.address, 1n, ref("one more")))
        .to.be.revertedWithCustomError(receipt, "RevShareReceiptSupplyCapExceeded")
        .withArgs(MAX_SUPPLY + 1n, MAX_SUPPLY);
    });
  });

  describe("# revenue and snapshot", function () {
    it("should emit RevenueReceived for ETH sent to the receipt and hold it unallocated", async function () {
      const { receipt, payer } = await networkHelpers.loadFixture(deployReceipt);
      await expect(payer.sendTransaction({ to: await receipt.getAddress(), value: 1234n }))
        .to.emit(receipt, "RevenueReceived")
        .withArgs(payer.address, 1234n);
      expect(await receipt.unallocatedRevenue()).to.equal(1234n);
    });

    it("should split the revenue into claimable p and redeemable 1 - p and emit SnapshotTaken", async function () {
      const { receipt, snapshotTx, end, issuedAt, alice } =
        await networkHelpers.loadFixture(snapshottedReceipt);
      await expect(snapshotTx)
        .to.emit(receipt, "SnapshotTaken")
        .withArgs(1n, parseEther("2"), parseEther("2"), parseEther("400"));
      expect(await receipt.currentSnapshotId()).to.equal(1n);
      expect(await receipt.outstandingClaims()).to.equal(parseEther("2"));
      expect(await receipt.redeemablePool()).to.equal(parseEther("2"));
      expect(await receipt.unallocatedRevenue()).to.equal(0n);
      const info = await receipt.snapshotInfo(1n);
      expect(info.timestamp).to.equal(end);
      expect(info.totalSupply).to.equal(parseEther("400"));
      expect(info.claimableRevenue).to.equal(parseEther("2"));
      expect(info.claimedRevenue).to.equal(0n);
      expect(info.redeemableAdded).to.equal(parseEther("2"));
      // Token-seconds: the holdings times the seconds held within the period.
      expect(info.totalWeight).to.equal(parseEther("400") * (end - issuedAt));
      expect(await receipt.weightOf(alice.address, 1n)).to.equal(
        parseEther("300") * (end - issuedAt),
      );
      expect(await receipt.nextSnapshotAt()).to.equal(end + SNAPSHOT_INTERVAL);
    });

    it("should return the new snapshot id", async function () {
      const { receipt } = await networkHelpers.loadFixture(snapshottedReceipt);
      await networkHelpers.time.increase(SNAPSHOT_INTERVAL);
      expect(await receipt.snapshot.staticCall()).to.equal(2n);
    });

    it("should revert with RevShareReceiptSnapshotTooSoon before the next boundary of the schedule", async function () {
      const { receipt } = await networkHelpers.loadFixture(snapshottedReceipt);
      const nextAt = await receipt.nextSnapshotAt();
      await expect(receipt.snapshot())
        .to.be.revertedWithCustomError(receipt, "RevShareReceiptSnapshotTooSoon")
        .withArgs(nextAt);
      await networkHelpers.time.setNextBlockTimestamp(nextAt);
      await expect(receipt.snapshot())
        .to.emit(receipt, "SnapshotTaken")
        .withArgs(2n, 0n, 0n, parseEther("400"));
    });

    it("should leave revenue unallocated when the supply is zero and allocate it at the next snapshot", async function () {
      const { receipt, issuer, alice, payer } = await networkHelpers.loadFixture(deployReceipt);
      const start = await receipt.scheduleStart();
      expect(start).to.equal(BigInt((await ethers.provider.getBlock("latest"))!.timestamp));
      expect(await receipt.nextSnapshotAt()).to.equal(start + SNAPSHOT_INTERVAL);
      await payer.sendTransaction({ to: await receipt.getAddress(), value: 1000n });
      await networkHelpers.time.increaseTo(start + SNAPSHOT_INTERVAL);
      await expect(receipt.snapshot()).to.emit(receipt, "SnapshotTaken").withArgs(1n, 0n, 0n, 0n);
      expect(await receipt.unallocatedRevenue()).to.equal(1000n);
      await receipt.connect(issuer).issueReceipt(alice.address, 10n, ref("a"));
      await networkHelpers.time.increase(SNAPSHOT_INTERVAL);
      await expect(receipt.snapshot())
        .to.emit(receipt, "SnapshotTaken")
        .withArgs(2n, 500n, 500n, 10n);
      await expect(receipt.connect(alice).claim(1n))
        .to.be.revertedWithCustomError(receipt, "RevShareReceiptNothingToClaim")
        .withArgs(alice.address, 1n);
    });

    it("should keep each snapshot's balances after later transfers, mints and burns", async function () {
      const { receipt, issuer, alice, bob, carol } =
        await networkHelpers.loadFixture(snapshottedReceipt);
      await receipt.connect(alice).transfer(carol.address, parseEther("100"));
      await receipt.connect(issuer).issueReceipt(carol.address, parseEther("50"), ref("carol"));
      await receipt.connect(bob).burn(parseEther("40"));
      expect(await receipt.balanceOfAt(alice.address, 1n)).to.equal(parseEther("300"));
      expect(await receipt.balanceOfAt(bob.address, 1n)).to.equal(parseEther("100"));
      expect(await receipt.balanceOfAt(carol.address, 1n)).to.equal(0n);
      expect(await receipt.totalSupplyAt(1n)).to.equal(parseEther("400"));

      await networkHelpers.time.increase(SNAPSHOT_INTERVAL);
      await receipt.snapshot();
      expect(await receipt.balanceOfAt(alice.address, 2n)).to.equal(parseEther("200"));
      expect(await receipt.balanceOfAt(bob.address, 2n)).to.equal(parseEther("60"));
      expect(await receipt.balanceOfAt(carol.address, 2n)).to.equal(parseEther("150"));
      expect(await receipt.totalSupplyAt(2n)).to.equal(parseEther("410"));
    });

    it("should revert with RevShareReceiptUnknownSnapshot for id 0 and future ids in every snapshot view", async function () {
      const { receipt, alice } = await networkHelpers.loadFixture(snapshottedReceipt);
      for (const id of [0n, 2n]) {
        for (const call of [
          receipt.claimableRevenue(alice.address, id),
          receipt.balanceOfAt(alice.address, id),
          receipt.totalSupplyAt(id),
          receipt.snapshotInfo(id),
          receipt.weightOf(alice.address, id),
        ]) {
          await expect(call)
            .to.be.revertedWithCustomError(receipt, "RevShareReceiptUnknownSnapshot")
            .withArgs(id, 1n);
        }
      }
    });
  });

  describe("# time weighting", function () {
    it("should give an account holding 900 tokens for one block across the snapshot its one second, not 4.5 of 5 ETH (the reported attack)", async function () {
      const { receipt, issuer, alice, bob, payer } =
        await networkHelpers.loadFixture(deployReceipt);
      const start = await receipt.scheduleStart();
      const end = start + SNAPSHOT_INTERVAL;
      await receipt.connect(issuer).issueReceipt(alice.address, parseEther("100"), ref("alice"));
      const aliceFrom = BigInt(await networkHelpers.time.latest());
      await payer.sendTransaction({ to: await receipt.getAddress(), value: parseEther("10") });
      // Bob gets 900 tokens one second before the boundary and leaves right after the snapshot.
      await networkHelpers.time.setNextBlockTimestamp(end - 1n);
      await receipt.connect(issuer).issueReceipt(bob.address, parseEther("900"), ref("bob"));
      await networkHelpers.time.setNextBlockTimestamp(end);
      await receipt.snapshot();
      await receipt.connect(bob).transfer(alice.address, parseEther("900"));

      const aliceWeight = parseEther("100") * (end - aliceFrom);
      const bobWeight = parseEther("900") * 1n;
      expect(await receipt.weightOf(bob.address, 1n)).to.equal(bobWeight);
      const claimable = parseEther("5");
      const bobShare = (claimable * bobWeight) / (aliceWeight + bobWeight);
      expect(await receipt.claimableRevenue(bob.address, 1n)).to.equal(bobShare);
      expect(bobShare < parseEther("0.001")).to.equal(true);
      expect(await receipt.claimableRevenue(alice.address, 1n)).to.equal(
        (claimable * aliceWeight) / (aliceWeight + bobWeight),
      );
    });
  });

  describe("# claim", function () {
    it("should pay each holder's share once and emit RevenueClaimed", async function () {
      const { receipt, alice, bob } = await networkHelpers.loadFixture(snapshottedReceipt);
      expect(await receipt.claimableRevenue(alice.address, 1n)).to.equal(parseEther("1.5"));
      expect(await receipt.claimableRevenue(bob.address, 1n)).to.equal(parseEther("0.5"));

      const tx = receipt.connect(alice).claim(1n);
      await expect(tx)
        .to.emit(receipt, "RevenueClaimed")
        .withArgs(alice.address, 1n, parseEther("1.5"));
      await expect(tx).to.changeEtherBalances(
        ethers,
        [alice, receipt],
        [parseEther("1.5"), -parseEther("1.5")],
      );
      expect(await receipt.hasClaimed(alice.address, 1n)).to.equal(true);
      expect(await receipt.hasClaimed(bob.address, 1n)).to.equal(false);
      expect(await receipt.claimableRevenue(alice.address, 1n)).to.equal(0n);
      expect((await receipt.snapshotInfo(1n)).claimedRevenue).to.equal(parseEther("1.5"));
      expect(await receipt.outstandingClaims()).to.equal(parseEther("0.5"));

      await receipt.connect(bob).claim(1n);
      expect((await receipt.snapshotInfo(1n)).claimedRevenue).to.equal(parseEther("2"));
      expect(await receipt.outstandingClaims()).to.equal(0n);
    });

    it("should revert with RevShareReceiptAlreadyClaimed on a second claim", async function () {
      const { receipt, alice } = await networkHelpers.loadFixture(snapshottedReceipt);
      await receipt.connect(alice).claim(1n);
      await expect(receipt.connect(alice).claim(1n))
        .to.be.revertedWithCustomError(receipt, "RevShareReceiptAlreadyClaimed")
        .withArgs(alice.address, 1n);
    });

    it("should let tokens transferred after a snapshot claim nothing more for it", async function () {
      const { receipt, alice, carol } = await networkHelpers.loadFixture(snapshottedReceipt);
      await receipt.connect(alice).claim(1n);
      await receipt.connect(alice).transfer(carol.address, parseEther("300"));
      await expect(receipt.connect(carol).claim(1n))
        .to.be.revertedWithCustomError(receipt, "RevShareReceiptNothingToClaim")
        .withArgs(carol.address, 1n);
    });

    it("should revert with RevShareReceiptUnknownSnapshot for a snapshot that does not exist", async function () {
      const { receipt, alice } = await networkHelpers.loadFixture(snapshottedReceipt);
      await expect(receipt.connect(alice).claim(7n))
        .to.be.revertedWithCustomError(receipt, "RevShareReceiptUnknownSnapshot")
        .withArgs(7n, 1n);
    });

    it("should keep claims of old snapshots after newer ones", async function () {
      const { receipt, alice, bob, payer } = await networkHelpers.loadFixture(snapshottedReceipt);
      await payer.sendTransaction({ to: await receipt.getAddress(), value: parseEther("8") });
      await networkHelpers.time.increase(SNAPSHOT_INTERVAL);
      await receipt.snapshot();
      expect(await receipt.claimableRevenue(alice.address, 2n)).to.equal(parseEther("3"));
      await receipt.connect(bob).claim(2n);
      await receipt.connect(bob).claim(1n);
      expect(await receipt.outstandingClaims()).to.equal(parseEther("1.5") + parseEther("3"));
      expect(await receipt.redeemablePool()).to.equal(parseEther("6"));
    });
  });

  describe("# burn", function () {
    it("should pay the burner's accrued share of the redeemable pool and emit Redeemed", async function () {
      const { receipt, alice, bob } = await networkHelpers.loadFixture(snapshottedReceipt);
      const amount = parseEther("100");
      expect(await receipt.connect(bob).redeemableOnBurn(amount)).to.equal(parseEther("0.5"));
      expect(await receipt.redeemableOf(bob.address, amount)).to.equal(parseEther("0.5"));
      const tx = receipt.connect(bob).burn(amount);
      await expect(tx)
        .to.emit(receipt, "Redeemed")
        .withArgs(bob.address, amount, parseEther("0.5"));
      await expect(tx).to.changeEtherBalances(
        ethers,
        [bob, receipt],
        [parseEther("0.5"), -parseEther("0.5")],
      );
      expect(await receipt.totalSupply()).to.equal(parseEther("300"));
      expect(await receipt.redeemablePool()).to.equal(parseEther("1.5"));
      // The remaining holders' redemption value per token is unchanged.
      expect(await receipt.connect(alice).redeemableOnBurn(parseEther("300"))).to.equal(
        parseEther("1.5"),
      );
      // Burning leaves the claim on the past snapshot intact.
      expect(await receipt.claimableRevenue(bob.address, 1n)).to.equal(parseEther("0.5"));
    });

    it("should burn without payment when the redeemable pool is empty", async function () {
      const { receipt, issuer, alice } = await networkHelpers.loadFixture(deployReceipt);
      await receipt.connect(issuer).issueReceipt(alice.address, 10n, ref("a"));
      expect(await receipt.redeemableOf(alice.address, 10n)).to.equal(0n);
      await expect(receipt.connect(alice).burn(10n))
        .to.emit(receipt, "Redeemed")
        .withArgs(alice.address, 10n, 0n);
      expect(await receipt.redeemableOf(alice.address, 10n)).to.equal(0n);
    });

    it("should pay nothing for a receipt issued after the revenue was allocated and burned at once (the reported half-the-pool attack)", async function () {
      const { receipt, issuer, carol } = await networkHelpers.loadFixture(snapshottedReceipt);
      // 400 more tokens than existed: before, burning them at once took half the pool.
      await receipt.connect(issuer).issueReceipt(carol.address, parseEther("400"), ref("carol"));
      const tx = receipt.connect(carol).burn(parseEther("400"));
      await expect(tx).to.emit(receipt, "Redeemed").withArgs(carol.address, parseEther("400"), 0n);
      await expect(tx).to.changeEtherBalances(ethers, [carol], [0n]);
      expect(await receipt.redeemablePool()).to.equal(parseEther("2"));
    });

    it("should accrue a long-idle holder's redemption in bounded steps with accrueRedemption", async function () {
      const { receipt, bob, payer, end } = await networkHelpers.loadFixture(snapshottedReceipt);
      for (let i = 2n; i <= 4n; i++) {
        await payer.sendTransaction({ to: await receipt.getAddress(), value: parseEther("4") });
        await networkHelpers.time.setNextBlockTimestamp(end + (i - 1n) * SNAPSHOT_INTERVAL);
        await receipt.snapshot();
      }
      // Bob holds a quarter all along: 0.5 ETH of each snapshot's 2 ETH redeemable.
      expect(await receipt.connect(bob).accrueRedemption.staticCall(2n)).to.equal(parseEther("1"));
      await receipt.connect(bob).accrueRedemption(2n);
      expect(await receipt.redeemableOf(bob.address, parseEther("100"))).to.equal(parseEther("2"));
      await expect(receipt.connect(bob).burn(parseEther("50")))
        .to.emit(receipt, "Redeemed")
        .withArgs(bob.address, parseEther("50"), parseEther("1"));
    });

    it("should revert with RevShareReceiptZeroAmount and ERC20InsufficientBalance for bad amounts", async function () {
      const { receipt, bob } = await networkHelpers.loadFixture(snapshottedReceipt);
      await expect(receipt.connect(bob).burn(0n)).to.be.revertedWithCustomError(
        receipt,
        "RevShareReceiptZeroAmount",
      );
      await expect(receipt.connect(bob).burn(parseEther("101")))
        .to.be.revertedWithCustomError(receipt, "ERC20InsufficientBalance")
        .withArgs(bob.address, parseEther("100"), parseEther("101"));
    });
  });
});
