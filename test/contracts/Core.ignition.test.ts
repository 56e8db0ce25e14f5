import { expect } from "chai";
import { network } from "hardhat";
import CoreModule, { CORE_DEFAULTS } from "../../ignition/modules/Core.ts";

describe("# Core ignition module", function () {
  it("should deploy the three contracts with the relayer holding every operational role", async function () {
    const connection = await network.create();
    const { ethers } = connection;
    const [deployer, relayer] = await ethers.getSigners();
    const deployed = await connection.ignition.deploy(CoreModule, {
      parameters: { Core: { relayer: relayer!.address } },
    });
    // Ignition returns untyped contracts; re-attach them with the typechain types.
    const proofRegistry = await ethers.getContractAt("ProofRegistry", deployed.proofRegistry);
    const circuitBreakerGateway = await ethers.getContractAt(
      "CircuitBreakerGateway",
      deployed.circuitBreakerGateway,
    );
    const revShareReceipt = await ethers.getContractAt("RevShareReceipt", deployed.revShareReceipt);

    expect(
      await proofRegistry.hasRole(await proofRegistry.LOGGER_ROLE(), relayer!.address),
    ).to.equal(true);
    expect(
      await proofRegistry.hasRole(await proofRegistry.SIGNER_ROLE(), relayer!.address),
    ).to.equal(true);
    expect(
      await circuitBreakerGateway.hasRole(
        await circuitBreakerGateway.REPORTER_ROLE(),
        relayer!.address,
      ),
    ).to.equal(true);
    expect(
      await revShareReceipt.hasRole(await revShareReceipt.ISSUER_ROLE(), relayer!.address),
    ).to.equal(true);

    for (const contract of [proofRegistry, circuitBreakerGateway, revShareReceipt] as const) {
      expect(await contract.defaultAdmin()).to.equal(deployer!.address);
      expect(await contract.defaultAdminDelay()).to.equal(CORE_DEFAULTS.adminDelay);
      expect(await contract.version()).to.equal("2.0.0");
    }
    expect(await circuitBreakerGateway.threshold()).to.equal(CORE_DEFAULTS.failureThreshold);
    expect(await circuitBreakerGateway.cooldown()).to.equal(CORE_DEFAULTS.cooldown);
    expect(await circuitBreakerGateway.failureWindow()).to.equal(CORE_DEFAULTS.failureWindow);
    expect(await revShareReceipt.claimShareBps()).to.equal(CORE_DEFAULTS.claimShareBps);
    expect(await revShareReceipt.snapshotInterval()).to.equal(CORE_DEFAULTS.snapshotInterval);
    expect(await revShareReceipt.symbol()).to.equal(CORE_DEFAULTS.receiptSymbol);
  });
});
