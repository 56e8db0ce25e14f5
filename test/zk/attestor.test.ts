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
import { jsonCid, sampleClaim } from "./fixtures.ts";

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
      );
    const block = await ethers.provider.getBlock("latest");
    const attestation = await attestor.getAttestation(proved.executionId);
    expect(attestation.workflowCommitment).to.equal(BigInt(proved.publicSignals[0]));
    expect(attestation.executionCommitment).to.equal(BigInt(proved.publicSignals[1]));
    expect(attestation.attester).to.equal(deployer.address);
    expect(attestation.timestamp).to.equal(BigInt(block!.timestamp));
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
    const [id, proof, signals] = proved.calldata.args;
    const variants: [bigint, bigint][] = [
      [signals[0] + 1n, signals[1]],
      [signals[0], signals[1] + 1n],
    ];
    for (const changed of variants) {
      await expect(attestor.attest(id, proof, changed))
        .to.be.revertedWithCustomError(attestor, "ExecutionAttestorInvalidProof")
        .withArgs(id);
      expect(await attestor.verifyExecution(id, proof, changed)).to.equal(false);
    }
    expect(await attestor.verifyExecution(id, proof, signals)).to.equal(true);
    expect(await attestor.isAttested(id)).to.equal(false);
  });

  it("should record a proof only under the execution id it proves", async () => {
    const [id, proof, commitments] = proved.calldata.args;
    expect(await attestor.executionIdSignal(id)).to.equal(BigInt(proved.publicSignals[2]));
    // Another id, never attested: the id is the proof's third public signal, so it fails.
    const otherId = ethers.id("wf_somebody_else");
    expect(await attestor.verifyExecution(otherId, proof, commitments)).to.equal(false);
    await expect(attestor.attest(otherId, proof, commitments))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorInvalidProof")
      .withArgs(otherId);
    // The genuine id still attests afterwards: nobody pre-empted it.
    await (await attestor.attest(id, proof, commitments)).wait();
    expect(await attestor.isAttested(otherId)).to.equal(false);
  });

  it("should reject a proof with a point off the curve", async () => {
    const [id, proof, signals] = proved.calldata.args;
    const broken = { ...proof, a: [proof.a[0], proof.a[1] + 1n] as [bigint, bigint] };
    await expect(attestor.attest(id, broken, signals)).to.be.revertedWithCustomError(
      attestor,
      "ExecutionAttestorInvalidProof",
    );
  });

  it("should reject a second attestation of the same execution", async () => {
    await (await attestor.attest(...proved.calldata.args)).wait();
    const [id, proof, signals] = other.calldata.args;
    await expect(attestor.attest(proved.executionId, proof, signals))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorAlreadyAttested")
      .withArgs(proved.executionId);
    // the other execution's proof and commitments are still refused under this id after the
    // attestation check too (they prove another id)
    expect(await attestor.verifyExecution(proved.executionId, proof, signals)).to.equal(false);
    await expect(attestor.attest(...proved.calldata.args)).to.be.revertedWithCustomError(
      attestor,
      "ExecutionAttestorAlreadyAttested",
    );
    await (await attestor.attest(id, proof, signals)).wait();
  });

  it("should reject an execution commitment already attested under another id", async () => {
    await (await attestor.attest(...proved.calldata.args)).wait();
    const [, proof, signals] = proved.calldata.args;
    const otherId = ethers.id("wf_somebody_else");
    await expect(attestor.attest(otherId, proof, signals))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorCommitmentReused")
      .withArgs(signals[1], proved.executionId);
  });

  it("should reject the zero execution id", async () => {
    const [, proof, signals] = proved.calldata.args;
    await expect(attestor.attest(ethers.ZeroHash, proof, signals)).to.be.revertedWithCustomError(
      attestor,
      "ExecutionAttestorInvalidExecutionId",
    );
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
    expect(await custom.verifier()).to.equal(await deployed.executionVerifier.getAddress());
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
    await expect(factory.deploy(outsider.address, deployer.address, 0, deployer.address))
      .to.be.revertedWithCustomError(attestor, "ExecutionAttestorInvalidVerifier")
      .withArgs(outsider.address);
  });

  it("should expose the verifier, the version and the attest signature the prover encodes", async () => {
    const verifier = await ethers.getContractAt(
      "ExecutionGroth16Verifier",
      await attestor.verifier(),
    );
    expect(await verifier.getAddress()).to.properAddress;
    expect(await attestor.version()).to.equal("2.0.0");
    const fragment = attestor.interface.getFunction("attest")!;
    expect(fragment.format("sighash")).to.equal(
      ethers.FunctionFragment.from(ATTEST_FUNCTION.replace(/^function /, "")).format("sighash"),
    );
  });

  it("should verify an execution proof on chain within 250k gas (three public signals)", async () => {
    const verifier = await ethers.getContractAt(
      "ExecutionGroth16Verifier",
      await attestor.verifier(),
    );
    const { a, b, c } = proved.calldata.args[1];
    const signals = proved.publicSignals.map(BigInt) as [bigint, bigint, bigint];
    expect(await verifier.verifyProof(a, b, c, signals)).to.equal(true);
    const verifyGas = await verifier.verifyProof.estimateGas(a, b, c, signals);
    expect(Number(verifyGas)).to.be.at.most(250_000);
    const attested = await (await attestor.attest(...proved.calldata.args)).wait();
    console.log(`      verifyProof ${verifyGas} gas, attest ${attested!.gasUsed} gas`);
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
