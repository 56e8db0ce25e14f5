import { expect } from "chai";
import { network } from "hardhat";
import {
  ATTEST_FUNCTION,
  checkAttestation,
  closeProver,
  proveArtifacts,
  proveExecution,
  type ExecutionProof,
} from "../../relayer/proofs/index.ts";
import ExecutionAttestorModule from "../../ignition/modules/ExecutionAttestor.ts";
import {
  EXECUTION_VARIANTS,
  circuitFiles,
  executionCircuit,
} from "../../relayer/proofs/circuits.ts";
import { jsonCid, sampleClaim, twoActions, wideClaim } from "./fixtures.ts";

const { ethers, ignition } = await network.create();

async function deployModule() {
  const deployed = await ignition.deploy(ExecutionAttestorModule);
  return {
    attestor: await ethers.getContractAt("ExecutionAttestor", deployed.executionAttestor),
    artifactsVerifier: await ethers.getContractAt(
      "ArtifactsGroth16Verifier",
      deployed.artifactsVerifier,
    ),
  };
}

describe("# ExecutionAttestor", function () {
  this.timeout(180_000);
  let attestor: Awaited<ReturnType<typeof deployModule>>["attestor"];
  let proved: ExecutionProof;
  let other: ExecutionProof;
  let deployer: Awaited<ReturnType<typeof ethers.getSigners>>[number];
  let outsider: typeof deployer;

  before(async () => {
    [deployer, outsider] = (await ethers.getSigners()) as [typeof deployer, typeof deployer];
    proved = await proveExecution(sampleClaim("wf_attest_1"));
    other = await proveExecution(sampleClaim("wf_attest_2"));
  });
  after(closeProver);

  beforeEach(async () => {
    ({ attestor } = await deployModule());
  });

  it("should accept a real proof and record the attestation", async () => {
    const tx = attestor.attest(...proved.calldata.args);
    await expect(tx)
      .to.emit(attestor, "ExecutionAttested")
      .withArgs(
        proved.executionId,
        proved.publicSignals[0],
        proved.publicSignals[1],
        deployer.address,
        proved.variant,
      );
    const block = await ethers.provider.getBlock("latest");
    const attestation = await attestor.getAttestation(proved.executionId);
    expect(attestation.workflowCommitment).to.equal(BigInt(proved.publicSignals[0]));
    expect(attestation.executionCommitment).to.equal(BigInt(proved.publicSignals[1]));
    expect(attestation.attester).to.equal(deployer.address);
    expect(attestation.timestamp).to.equal(BigInt(block!.timestamp));
    expect(attestation.slots).to.equal(BigInt(proved.variant));
    expect(await attestor.isAttested(proved.executionId)).to.equal(true);
    expect(await attestor.executionIdOf(proved.publicSignals[1])).to.equal(proved.executionId);
  });

  it("should let an auditor match the attestation with the execution record and salt", async () => {
    const claim = sampleClaim("wf_attest_1");
    expect((await checkAttestation(attestor, claim)).attested).to.equal(false);
    await (await attestor.attest(...proved.calldata.args)).wait();
    const check = await checkAttestation(attestor, claim);
    expect(check).to.deep.include({
      attested: true,
      matches: true,
      executionId: proved.executionId,
    });
    expect(check.recorded?.attester).to.equal(deployer.address);
    const tamperedAmount = {
      ...claim,
      actions: claim.actions.map((a, i) => (i === 0 ? { ...a, amountOut: 2_487_500_001n } : a)),
    };
    const mismatch = await checkAttestation(attestor, tamperedAmount);
    expect(mismatch.matches).to.equal(false);
    expect(mismatch.recorded?.workflowCommitment).to.equal(mismatch.expected.workflowCommitment);
    expect(mismatch.recorded?.executionCommitment).to.not.equal(
      mismatch.expected.executionCommitment,
    );
    const wrongSalt = await checkAttestation(attestor, { ...claim, salt: 42n });
    expect(wrongSalt.matches).to.equal(false);
  });

  it("should accept the prover's ABI-encoded calldata as a raw transaction", async () => {
    await (
      await deployer.sendTransaction({
        to: await attestor.getAddress(),
        data: proved.calldata.data,
      })
    ).wait();
    expect(await attestor.isAttested(proved.executionId)).to.equal(true);
  });

  it("should reject a proof with one public signal changed", async () => {
    const [id, slots, proof, signals] = proved.calldata.args;
    const variants: [bigint, bigint][] = [
      [signals[0] + 1n, signals[1]],
      [signals[0], signals[1] + 1n],
    ];
    for (const changed of variants) {
      await expect(attestor.attest(id, slots, proof, changed))
        .to.be.revertedWithCustomError(attestor, "ExecutionAttestorInvalidProof")
        .withArgs(id);
      expect(await attestor.verifyExecution(id, slots, proof, changed)).to.equal(false);
    }
    expect(await attestor.verifyExecution(id, slots, proof, signals)).to.equal(true);
    expect(await attestor.isAttested(id)).to.equal(false);
  });

  it("should record a proof only under the execution id it proves", async () => {
    const [id, slots, proof, commitments] = proved.calldata.args;
    expect(await attestor.executionIdSignal(id)).to.equal(BigInt(proved.publicSignals[2]));
    // Another id, never attested: the id is the proof's third public signal, so it fails.
    const otherId = ethers.id("wf_somebody_else");
    expect(await attestor.verifyExecution(otherId, slots, proof, commitments)).to.equal(false);
    await expect(attestor.attest(otherId, slots, proof, commitments))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorInvalidProof")
      .withArgs(otherId);
    // The genuine id still attests afterwards: nobody pre-empted it.
    await (await attestor.attest(id, slots, proof, commitments)).wait();
    expect(await attestor.isAttested(otherId)).to.equal(false);
  });

  it("should reject a proof with a point off the curve", async () => {
    const [id, slots, proof, signals] = proved.calldata.args;
    const broken = { ...proof, a: [proof.a[0], proof.a[1] + 1n] as [bigint, bigint] };
    await expect(attestor.attest(id, slots, broken, signals)).to.be.revertedWithCustomError(
      attestor,
      "ExecutionAttestorInvalidProof",
    );
  });

  it("should reject a second attestation of the same execution", async () => {
    await (await attestor.attest(...proved.calldata.args)).wait();
    const [id, slots, proof, signals] = other.calldata.args;
    await expect(attestor.attest(proved.executionId, slots, proof, signals))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorAlreadyAttested")
      .withArgs(proved.executionId);
    // the other execution's proof and commitments are still refused under this id after the
    // attestation check too (they prove another id)
    expect(await attestor.verifyExecution(proved.executionId, slots, proof, signals)).to.equal(
      false,
    );
    await expect(attestor.attest(...proved.calldata.args)).to.be.revertedWithCustomError(
      attestor,
      "ExecutionAttestorAlreadyAttested",
    );
    await (await attestor.attest(id, slots, proof, signals)).wait();
  });

  it("should reject an execution commitment already attested under another id", async () => {
    await (await attestor.attest(...proved.calldata.args)).wait();
    const [, slots, proof, signals] = proved.calldata.args;
    const otherId = ethers.id("wf_somebody_else");
    await expect(attestor.attest(otherId, slots, proof, signals))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorCommitmentReused")
      .withArgs(signals[1], proved.executionId);
  });

  it("should reject the zero execution id", async () => {
    const [, slots, proof, signals] = proved.calldata.args;
    await expect(
      attestor.attest(ethers.ZeroHash, slots, proof, signals),
    ).to.be.revertedWithCustomError(attestor, "ExecutionAttestorInvalidExecutionId");
  });

  it("should reject an account without ATTESTER_ROLE", async () => {
    const asOutsider = attestor.connect(outsider);
    await expect(asOutsider.attest(...proved.calldata.args))
      .to.be.revertedWithCustomError(attestor, "AccessControlUnauthorizedAccount")
      .withArgs(outsider.address, await attestor.ATTESTER_ROLE());
    await (await attestor.grantRole(await attestor.ATTESTER_ROLE(), outsider.address)).wait();
    await expect(asOutsider.attest(...proved.calldata.args)).to.emit(attestor, "ExecutionAttested");
  });

  it("should grant ATTESTER_ROLE to the module's relayer parameter and admin to its admin", async () => {
    const deployed = await ignition.deploy(ExecutionAttestorModule, {
      parameters: {
        ExecutionAttestor: {
          relayer: outsider.address,
          admin: outsider.address,
          adminTransferDelay: 3600,
        },
      },
    });
    const custom = await ethers.getContractAt("ExecutionAttestor", deployed.executionAttestor);
    const role = await custom.ATTESTER_ROLE();
    expect(role).to.equal(ethers.id("ATTESTER_ROLE"));
    expect(await custom.hasRole(role, outsider.address)).to.equal(true);
    expect(await custom.hasRole(role, deployer.address)).to.equal(false);
    expect(await custom.defaultAdmin()).to.equal(outsider.address);
    expect(await custom.defaultAdminDelay()).to.equal(3600n);
    expect(await custom.verifier(2)).to.equal(await deployed.execution2Verifier.getAddress());
    expect(await custom.verifier(4)).to.equal(await deployed.execution4Verifier.getAddress());
    expect(await custom.verifier(8)).to.equal(await deployed.execution8Verifier.getAddress());
    await expect(custom.attest(...proved.calldata.args)).to.be.revertedWithCustomError(
      custom,
      "AccessControlUnauthorizedAccount",
    );
    await expect(custom.connect(outsider).attest(...proved.calldata.args)).to.emit(
      custom,
      "ExecutionAttested",
    );
  });

  it("should revert reads of an execution never attested", async () => {
    const id = ethers.id("wf_unknown");
    await expect(attestor.getAttestation(id))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorNotAttested")
      .withArgs(id);
    expect(await attestor.isAttested(id)).to.equal(false);
    expect(await attestor.executionIdOf(1n)).to.equal(ethers.ZeroHash);
  });

  it("should refuse a verifier that is not a contract", async () => {
    const factory = await ethers.getContractFactory("ExecutionAttestor");
    await expect(factory.deploy([4], [outsider.address], deployer.address, 0, deployer.address))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorInvalidVerifier")
      .withArgs(outsider.address);
    await expect(
      factory.deploy([2, 4], [outsider.address], deployer.address, 0, deployer.address),
    ).to.be.revertedWithCustomError(attestor, "ExecutionAttestorVariantsMismatch");
  });

  it("should expose each variant's verifier, the version and the attest signature the prover encodes", async () => {
    for (const slots of EXECUTION_VARIANTS) {
      const verifier = await ethers.getContractAt(
        circuitFiles(executionCircuit(slots)).verifierContract,
        await attestor.verifier(slots),
      );
      expect(await verifier.getAddress()).to.properAddress;
    }
    expect(await attestor.verifier(16)).to.equal(ethers.ZeroAddress);
    expect(await attestor.version()).to.equal("3.0.0");
    const fragment = attestor.interface.getFunction("attest")!;
    expect(fragment.format("sighash")).to.equal(
      ethers.FunctionFragment.from(ATTEST_FUNCTION.replace(/^function /, "")).format("sighash"),
    );
  });

  it("should check a proof only with its own variant's verifier", async () => {
    const [id, slots, proof, signals] = proved.calldata.args;
    expect(slots).to.equal(4);
    for (const wrong of [2, 8]) {
      expect(await attestor.verifyExecution(id, wrong, proof, signals)).to.equal(false);
      await expect(attestor.attest(id, wrong, proof, signals))
        .to.be.revertedWithCustomError(attestor, "ExecutionAttestorInvalidProof")
        .withArgs(id);
    }
    expect(await attestor.verifyExecution(id, 3, proof, signals)).to.equal(false);
    await expect(attestor.attest(id, 3, proof, signals))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorUnknownVariant")
      .withArgs(3);
    await (await attestor.attest(id, slots, proof, signals)).wait();
    expect((await attestor.getAttestation(id)).slots).to.equal(4n);
  });

  it("should let only the admin add a variant's verifier, once, never replacing one", async () => {
    const anotherVerifier = await attestor.verifier(2);
    await expect(attestor.connect(outsider).setVerifier(16, anotherVerifier))
      .to.be.revertedWithCustomError(attestor, "AccessControlUnauthorizedAccount")
      .withArgs(outsider.address, await attestor.DEFAULT_ADMIN_ROLE());
    await expect(attestor.setVerifier(4, anotherVerifier))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorVariantSet")
      .withArgs(4);
    await expect(attestor.setVerifier(0, anotherVerifier))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorUnknownVariant")
      .withArgs(0);
    await expect(attestor.setVerifier(16, outsider.address))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorInvalidVerifier")
      .withArgs(outsider.address);
    await expect(attestor.setVerifier(16, anotherVerifier))
      .to.emit(attestor, "VerifierSet")
      .withArgs(16, anotherVerifier);
    expect(await attestor.verifier(16)).to.equal(anotherVerifier);
    expect(await attestor.verifier(4)).to.not.equal(anotherVerifier);
  });

  it("should verify every variant's proof on chain within 250k gas (three public signals)", async () => {
    const claims = [twoActions("wf_gas_2"), sampleClaim("wf_gas_4"), wideClaim("wf_gas_8")];
    for (const claim of claims) {
      const p = await proveExecution(claim);
      // every variant's verifier has the same interface; the attestor names the variant's
      const verifier = await ethers.getContractAt(
        "IExecutionGroth16Verifier",
        await attestor.verifier(p.variant),
      );
      const { a, b, c } = p.calldata.args[2];
      const signals = p.publicSignals.map(BigInt) as [bigint, bigint, bigint];
      expect(await verifier.verifyProof(a, b, c, signals)).to.equal(true);
      const verifyGas = await verifier.verifyProof.estimateGas(a, b, c, signals);
      expect(Number(verifyGas)).to.be.at.most(250_000);
      const attested = await (await attestor.attest(...p.calldata.args)).wait();
      console.log(
        `      ${p.variant} slots: verifyProof ${verifyGas} gas, attest ${attested!.gasUsed} gas`,
      );
    }
  });

  it("should verify an artifacts proof with the generated artifacts verifier", async () => {
    const { artifactsVerifier: verifier } = await deployModule();
    const cids = await Promise.all([0, 1].map((i) => jsonCid({ onchain: i })));
    const proved = await proveArtifacts(cids);
    const { a, b, c } = proved.solidityProof;
    expect(await verifier.verifyProof(a, b, c, proved.publicSignals)).to.equal(true);
    expect(await verifier.verifyProof(a, b, c, [proved.root, "3"])).to.equal(false);
  });
});
