import { expect } from "chai";
import { network } from "hardhat";
import { interfaceId } from "./interface-ids.ts";

const { ethers, networkHelpers } = await network.create();

const ADMIN_DELAY = 86_400n;
const THRESHOLD = 10n;
const COOLDOWN = 3_600n;
const WINDOW = 600n;
const CLOSED = 0n;
const OPEN = 1n;

async function deployBreaker() {
  const [admin, reporter, outsider] = await ethers.getSigners();
  const breaker = await ethers.deployContract("CircuitBreakerGateway", [
    ADMIN_DELAY,
    admin!.address,
    reporter!.address,
    THRESHOLD,
    COOLDOWN,
    WINDOW,
  ]);
  const gateway = ethers.Wallet.createRandom().address;
  return { breaker, gateway, admin: admin!, reporter: reporter!, outsider: outsider! };
}

type Fixture = Awaited<ReturnType<typeof deployBreaker>>;

async function recordFailures({ breaker, reporter }: Fixture, gateway: string, count: bigint) {
  for (let i = 0n; i < count; i++) await breaker.connect(reporter).recordFailure(gateway);
}

/** A breaker whose gateway has just been opened (threshold + 1 failures, then trigger). */
async function openedBreaker() {
  const fixture = await deployBreaker();
  await recordFailures(fixture, fixture.gateway, THRESHOLD + 1n);
  const tx = await fixture.breaker.connect(fixture.outsider).trigger(fixture.gateway);
  const block = await ethers.provider.getBlock((await tx.wait())!.blockNumber);
  return { ...fixture, tx, resetAt: BigInt(block!.timestamp) + COOLDOWN };
}

describe("# CircuitBreakerGateway", function () {
  describe("# deployment", function () {
    it("should set the threshold, cooldown, roles and version", async function () {
      const { breaker, admin, reporter, gateway } = await networkHelpers.loadFixture(deployBreaker);
      expect(await breaker.threshold()).to.equal(THRESHOLD);
      expect(await breaker.cooldown()).to.equal(COOLDOWN);
      expect(await breaker.failureWindow()).to.equal(WINDOW);
      expect(await breaker.defaultAdmin()).to.equal(admin.address);
      expect(await breaker.REPORTER_ROLE()).to.equal(ethers.id("REPORTER_ROLE"));
      expect(await breaker.hasRole(ethers.id("REPORTER_ROLE"), reporter.address)).to.equal(true);
      expect(await breaker.version()).to.equal("2.0.0");
      expect(await breaker.state(gateway)).to.equal(CLOSED);
      expect(await breaker.isOpen(gateway)).to.equal(false);
      expect(await breaker.failureCount(gateway)).to.equal(0n);
      expect(await breaker.resetAt(gateway)).to.equal(0n);
    });

    it("should report ICircuitBreakerGateway, IAccessControl and IERC165 through ERC-165", async function () {
      const { breaker } = await networkHelpers.loadFixture(deployBreaker);
      expect(
        await breaker.supportsInterface(await interfaceId("ICircuitBreakerGateway", ["ISemver"])),
      ).to.equal(true);
      expect(await breaker.supportsInterface("0x7965db0b")).to.equal(true); // IAccessControl
      expect(await breaker.supportsInterface("0x01ffc9a7")).to.equal(true); // IERC165
      expect(await breaker.supportsInterface("0xffffffff")).to.equal(false);
    });

    it("should revert with CircuitBreakerInvalidCooldown for a zero or oversized cooldown", async function () {
      const [admin] = await ethers.getSigners();
      const factory = await ethers.getContractFactory("CircuitBreakerGateway");
      for (const cooldown of [0n, 2n ** 32n]) {
        await expect(
          factory.deploy(0n, admin!.address, ethers.ZeroAddress, THRESHOLD, cooldown, WINDOW),
        ).to.be.revertedWithCustomError(factory, "CircuitBreakerInvalidCooldown");
      }
      const deployed = await factory.deploy(
        0n,
        admin!.address,
        ethers.ZeroAddress,
        0n,
        2n ** 32n - 1n,
        WINDOW,
      );
      expect(await deployed.hasRole(ethers.id("REPORTER_ROLE"), ethers.ZeroAddress)).to.equal(
        false,
      );
    });
  });

  describe("# recordFailure", function () {
    it("should count failures per gateway and emit FailureRecorded", async function () {
      const fixture = await networkHelpers.loadFixture(deployBreaker);
      const { breaker, reporter, gateway } = fixture;
      const other = ethers.Wallet.createRandom().address;
      await expect(breaker.connect(reporter).recordFailure(gateway))
        .to.emit(breaker, "FailureRecorded")
        .withArgs(gateway, reporter.address, 1n);
      await expect(breaker.connect(reporter).recordFailure(gateway))
        .to.emit(breaker, "FailureRecorded")
        .withArgs(gateway, reporter.address, 2n);
      await breaker.connect(reporter).recordFailure(other);
      expect(await breaker.failureCount(gateway)).to.equal(2n);
      expect(await breaker.failureCount(other)).to.equal(1n);
      expect(await breaker.connect(reporter).recordFailure.staticCall(gateway)).to.equal(3n);
    });

    it("should revert with AccessControlUnauthorizedAccount for a caller without the reporter role", async function () {
      const { breaker, outsider, gateway } = await networkHelpers.loadFixture(deployBreaker);
      await expect(breaker.connect(outsider).recordFailure(gateway))
        .to.be.revertedWithCustomError(breaker, "AccessControlUnauthorizedAccount")
        .withArgs(outsider.address, ethers.id("REPORTER_ROLE"));
    });

    it("should revert with CircuitBreakerInvalidGateway for the zero address", async function () {
      const { breaker, reporter } = await networkHelpers.loadFixture(deployBreaker);
      await expect(
        breaker.connect(reporter).recordFailure(ethers.ZeroAddress),
      ).to.be.revertedWithCustomError(breaker, "CircuitBreakerInvalidGateway");
    });

    it("should revert with CircuitBreakerOpenCircuit while the circuit is open", async function () {
      const { breaker, reporter, gateway, resetAt } =
        await networkHelpers.loadFixture(openedBreaker);
      await expect(breaker.connect(reporter).recordFailure(gateway))
        .to.be.revertedWithCustomError(breaker, "CircuitBreakerOpenCircuit")
        .withArgs(gateway, resetAt);
    });
  });

  describe("# trigger", function () {
    it('should revert with "Threshold not met" at exactly the threshold', async function () {
      const fixture = await networkHelpers.loadFixture(deployBreaker);
      await expect(fixture.breaker.trigger(fixture.gateway)).to.be.revertedWith(
        "Threshold not met",
      );
      await recordFailures(fixture, fixture.gateway, THRESHOLD);
      await expect(fixture.breaker.trigger(fixture.gateway)).to.be.revertedWith(
        "Threshold not met",
      );
      expect(await fixture.breaker.state(fixture.gateway)).to.equal(CLOSED);
    });

    it("should open the circuit above the threshold, schedule the reset and emit CircuitOpened", async function () {
      const { breaker, gateway, tx, resetAt } = await networkHelpers.loadFixture(openedBreaker);
      await expect(tx)
        .to.emit(breaker, "CircuitOpened")
        .withArgs(gateway, THRESHOLD + 1n, resetAt);
      expect(await breaker.state(gateway)).to.equal(OPEN);
      expect(await breaker.isOpen(gateway)).to.equal(true);
      expect(await breaker.resetAt(gateway)).to.equal(resetAt);
      expect(await breaker.failureCount(gateway)).to.equal(THRESHOLD + 1n);
    });

    it("should revert with CircuitBreakerOpenCircuit when triggered again while open", async function () {
      const { breaker, gateway, resetAt } = await networkHelpers.loadFixture(openedBreaker);
      await expect(breaker.trigger(gateway))
        .to.be.revertedWithCustomError(breaker, "CircuitBreakerOpenCircuit")
        .withArgs(gateway, resetAt);
    });
  });

  describe("# timed reset", function () {
    it("should read closed at resetAt without a transaction and start a new count", async function () {
      const fixture = await networkHelpers.loadFixture(openedBreaker);
      const { breaker, reporter, gateway, resetAt } = fixture;
      await networkHelpers.time.increaseTo(resetAt - 1n);
      expect(await breaker.isOpen(gateway)).to.equal(true);
      await networkHelpers.time.increaseTo(resetAt);
      expect(await breaker.state(gateway)).to.equal(CLOSED);
      expect(await breaker.isOpen(gateway)).to.equal(false);
      expect(await breaker.failureCount(gateway)).to.equal(0n);
      expect(await breaker.resetAt(gateway)).to.equal(0n);
      await expect(breaker.trigger(gateway)).to.be.revertedWith("Threshold not met");

      await expect(breaker.connect(reporter).recordFailure(gateway))
        .to.emit(breaker, "FailureRecorded")
        .withArgs(gateway, reporter.address, 1n);
      await recordFailures(fixture, gateway, THRESHOLD);
      await expect(breaker.trigger(gateway)).to.emit(breaker, "CircuitOpened");
      expect(await breaker.isOpen(gateway)).to.equal(true);
    });
  });

  describe("# failure decay", function () {
    it("should not open for failures spread beyond the window: the count restarts after it", async function () {
      const fixture = await networkHelpers.loadFixture(deployBreaker);
      const { breaker, reporter, gateway } = fixture;
      await recordFailures(fixture, gateway, THRESHOLD);
      const first = await networkHelpers.time.latest();
      await networkHelpers.time.increaseTo(BigInt(first) + WINDOW - 10n);
      expect(await breaker.failureCount(gateway)).to.equal(THRESHOLD - 0n);
      await networkHelpers.time.increaseTo(BigInt(first) + WINDOW + 60n);
      // The stale count reads zero, and the 11th failure overall starts a new count at one.
      expect(await breaker.failureCount(gateway)).to.equal(0n);
      await expect(breaker.connect(reporter).recordFailure(gateway))
        .to.emit(breaker, "FailureRecorded")
        .withArgs(gateway, reporter.address, 1n);
      await expect(breaker.trigger(gateway)).to.be.revertedWith("Threshold not met");
    });

    it("should open for more than the threshold within the window", async function () {
      const fixture = await networkHelpers.loadFixture(deployBreaker);
      const { breaker, gateway } = fixture;
      await recordFailures(fixture, gateway, THRESHOLD);
      await networkHelpers.time.increase(WINDOW / 2n);
      await recordFailures(fixture, gateway, 1n);
      await expect(breaker.trigger(gateway)).to.emit(breaker, "CircuitOpened");
    });

    it("should read a count whose window passed as not enough to trigger", async function () {
      const fixture = await networkHelpers.loadFixture(deployBreaker);
      const { breaker, gateway } = fixture;
      await recordFailures(fixture, gateway, THRESHOLD + 1n);
      await networkHelpers.time.increase(WINDOW);
      await expect(breaker.trigger(gateway)).to.be.revertedWith("Threshold not met");
    });

    it("should revert with CircuitBreakerInvalidWindow for a zero or oversized window", async function () {
      const [admin] = await ethers.getSigners();
      const factory = await ethers.getContractFactory("CircuitBreakerGateway");
      for (const window of [0n, 2n ** 32n]) {
        await expect(
          factory.deploy(0n, admin!.address, ethers.ZeroAddress, THRESHOLD, COOLDOWN, window),
        ).to.be.revertedWithCustomError(factory, "CircuitBreakerInvalidWindow");
      }
    });
  });

  describe("# reset", function () {
    it("should let the admin close an open circuit early and emit CircuitReset", async function () {
      const { breaker, admin, gateway } = await networkHelpers.loadFixture(openedBreaker);
      await expect(breaker.connect(admin).reset(gateway))
        .to.emit(breaker, "CircuitReset")
        .withArgs(gateway, admin.address);
      expect(await breaker.state(gateway)).to.equal(CLOSED);
      expect(await breaker.failureCount(gateway)).to.equal(0n);
      expect(await breaker.resetAt(gateway)).to.equal(0n);
    });

    it("should let the admin clear a closed circuit's failure count", async function () {
      const fixture = await networkHelpers.loadFixture(deployBreaker);
      const { breaker, admin, gateway } = fixture;
      await recordFailures(fixture, gateway, THRESHOLD);
      expect(await breaker.failureCount(gateway)).to.equal(THRESHOLD);
      await expect(breaker.connect(admin).reset(gateway))
        .to.emit(breaker, "CircuitReset")
        .withArgs(gateway, admin.address);
      expect(await breaker.failureCount(gateway)).to.equal(0n);
      // One more failure no longer opens it: the count starts again.
      await recordFailures(fixture, gateway, 1n);
      await expect(breaker.trigger(gateway)).to.be.revertedWith("Threshold not met");
    });

    it("should revert with CircuitBreakerNothingToReset for a closed circuit without failures or an expired one", async function () {
      const { breaker, admin, gateway, resetAt } = await networkHelpers.loadFixture(openedBreaker);
      const never = ethers.Wallet.createRandom().address;
      await expect(breaker.connect(admin).reset(never))
        .to.be.revertedWithCustomError(breaker, "CircuitBreakerNothingToReset")
        .withArgs(never);
      await networkHelpers.time.increaseTo(resetAt);
      await expect(breaker.connect(admin).reset(gateway))
        .to.be.revertedWithCustomError(breaker, "CircuitBreakerNothingToReset")
        .withArgs(gateway);
    });

    it("should revert with AccessControlUnauthorizedAccount for a non-admin", async function () {
      const { breaker, reporter, gateway } = await networkHelpers.loadFixture(openedBreaker);
      await expect(breaker.connect(reporter).reset(gateway))
        .to.be.revertedWithCustomError(breaker, "AccessControlUnauthorizedAccount")
        .withArgs(reporter.address, ethers.ZeroHash);
    });
  });
});
