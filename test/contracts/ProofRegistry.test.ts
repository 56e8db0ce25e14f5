import { StandardMerkleTree } from "@openzeppelin/merkle-tree";
import { expect } from "chai";
import { Signature, keccak256, solidityPackedKeccak256, toUtf8Bytes } from "ethers";
import type { Signer } from "ethers";
import { network } from "hardhat";
import {
  INTERACTION_TYPES,
  interactionDigest,
  interactionDomain,
} from "../../relayer/integrations/anchor.ts";
import { interfaceId } from "./interface-ids.ts";

// Same-timestamp blocks let a test put two logs of one endpoint at the same block time.
const { ethers, networkHelpers, provider } = await network.create({
  override: { allowBlocksWithSameTimestamp: true },
});

const ADMIN_DELAY = 86_400n;
const ENDPOINT = "GET https://crm.example/v2/crm/orders?status=unpaid";
const RESPONSE = '{"orders":[{"id":"o_1","status":"unpaid","total":"120.00"}],"hmac":"9f2c"}';
const LEAF_TYPES = ["bytes32", "bytes32", "uint256"];

const hashText = (text: string) => keccak256(toUtf8Bytes(text));
const { chainId } = await ethers.provider.getNetwork();
/** The registry the fixture deploys (the first contract of a fresh fixture, same address each time). */
let registryAddress = "";
const domainOf = (address = registryAddress, id: bigint = chainId) =>
  interactionDomain(id, address);
const digestOf = (endpoint: string, response: string, domain = domainOf()) =>
  interactionDigest(domain, hashText(endpoint), hashText(response));
/** The EIP-712 signature the contract expects (the relayer's own typed data). */
const signInteraction = (signer: Signer, endpoint: string, response: string, domain = domainOf()) =>
  signer.signTypedData(domain, INTERACTION_TYPES, {
    endpointHash: hashText(endpoint),
    responseHash: hashText(response),
  });

async function deployRegistry() {
  const [admin, relayer, submitter, outsider] = await ethers.getSigners();
  const registry = await ethers.deployContract("ProofRegistry", [
    ADMIN_DELAY,
    admin!.address,
    relayer!.address,
    relayer!.address,
  ]);
  registryAddress = await registry.getAddress();
  return { registry, admin: admin!, relayer: relayer!, submitter: submitter!, outsider: outsider! };
}

describe("# ProofRegistry", function () {
  describe("# deployment", function () {
    it("should grant the admin, logger and signer roles and report its version", async function () {
      const { registry, admin, relayer } = await networkHelpers.loadFixture(deployRegistry);
      expect(await registry.defaultAdmin()).to.equal(admin.address);
      expect(await registry.defaultAdminDelay()).to.equal(ADMIN_DELAY);
      expect(await registry.LOGGER_ROLE()).to.equal(ethers.id("LOGGER_ROLE"));
      expect(await registry.SIGNER_ROLE()).to.equal(ethers.id("SIGNER_ROLE"));
      expect(await registry.hasRole(ethers.id("LOGGER_ROLE"), relayer.address)).to.equal(true);
      expect(await registry.hasRole(ethers.id("SIGNER_ROLE"), relayer.address)).to.equal(true);
      expect(await registry.version()).to.equal("2.0.0");
      expect(await registry.batchCount()).to.equal(0n);
    });

    it("should report IProofRegistry, IAccessControl and IERC165 through ERC-165", async function () {
      const { registry } = await networkHelpers.loadFixture(deployRegistry);
      expect(
        await registry.supportsInterface(await interfaceId("IProofRegistry", ["ISemver"])),
      ).to.equal(true);
      expect(await registry.supportsInterface("0x7965db0b")).to.equal(true); // IAccessControl
      expect(await registry.supportsInterface("0x01ffc9a7")).to.equal(true); // IERC165
      expect(await registry.supportsInterface("0xffffffff")).to.equal(false);
    });

    it("should grant no operational role when the logger and signer are zero", async function () {
      const [admin] = await ethers.getSigners();
      const registry = await ethers.deployContract("ProofRegistry", [
        0n,
        admin!.address,
        ethers.ZeroAddress,
        ethers.ZeroAddress,
      ]);
      expect(await registry.hasRole(ethers.id("LOGGER_ROLE"), ethers.ZeroAddress)).to.equal(false);
      expect(await registry.hasRole(ethers.id("SIGNER_ROLE"), ethers.ZeroAddress)).to.equal(false);
    });
  });

  describe("# logAPIInteraction", function () {
    it("should store the record under keccak256(endpoint, block.timestamp) and emit APILogged", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      const sig = await signInteraction(relayer, ENDPOINT, RESPONSE);
      const tx = await registry.connect(relayer).logAPIInteraction(ENDPOINT, RESPONSE, sig);
      const receipt = await tx.wait();
      const timestamp = BigInt((await ethers.provider.getBlock(receipt!.blockNumber))!.timestamp);
      const requestId = solidityPackedKeccak256(["string", "uint256"], [ENDPOINT, timestamp]);

      await expect(tx).to.emit(registry, "APILogged").withArgs(requestId, sig);
      expect(await registry.requestIdOf(ENDPOINT, timestamp)).to.equal(requestId);
      const [endpointHash, responseHash, recordedAt] = await registry.records(requestId);
      expect(endpointHash).to.equal(hashText(ENDPOINT));
      expect(responseHash).to.equal(hashText(RESPONSE));
      expect(recordedAt).to.equal(timestamp);
    });

    it("should accept a record submitted by a logger and signed by another account holding the signer role", async function () {
      const { registry, admin, relayer, submitter } =
        await networkHelpers.loadFixture(deployRegistry);
      await registry.connect(admin).grantRole(ethers.id("LOGGER_ROLE"), submitter.address);
      const sig = await signInteraction(relayer, ENDPOINT, RESPONSE);
      const tx = await registry.connect(submitter).logAPIInteraction(ENDPOINT, RESPONSE, sig);
      const requestId = (await tx.wait())!.logs[0]!.topics[1];
      await expect(tx).to.emit(registry, "APILogged").withArgs(requestId, sig);
      // Anyone can attribute the record to its signer from the record and the event alone.
      const [endpointHash, responseHash] = await registry.records(requestId!);
      const digest = await registry.interactionDigest(endpointHash, responseHash);
      expect(digest).to.equal(digestOf(ENDPOINT, RESPONSE));
      expect(ethers.recoverAddress(digest, sig)).to.equal(relayer.address);
    });

    it("should accept an empty response and a 2 KB response", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      for (const response of ["", "x".repeat(2048)]) {
        const sig = await signInteraction(relayer, `${ENDPOINT}#${response.length}`, response);
        await expect(
          registry
            .connect(relayer)
            .logAPIInteraction(`${ENDPOINT}#${response.length}`, response, sig),
        ).to.emit(registry, "APILogged");
      }
    });

    it("should revert with AccessControlUnauthorizedAccount for a caller without the logger role", async function () {
      const { registry, relayer, outsider } = await networkHelpers.loadFixture(deployRegistry);
      const sig = await signInteraction(relayer, ENDPOINT, RESPONSE);
      await expect(registry.connect(outsider).logAPIInteraction(ENDPOINT, RESPONSE, sig))
        .to.be.revertedWithCustomError(registry, "AccessControlUnauthorizedAccount")
        .withArgs(outsider.address, ethers.id("LOGGER_ROLE"));
    });

    it("should revert with ProofRegistryUnauthorizedSigner when the signer lacks the signer role", async function () {
      const { registry, relayer, outsider } = await networkHelpers.loadFixture(deployRegistry);
      const sig = await signInteraction(outsider, ENDPOINT, RESPONSE);
      await expect(registry.connect(relayer).logAPIInteraction(ENDPOINT, RESPONSE, sig))
        .to.be.revertedWithCustomError(registry, "ProofRegistryUnauthorizedSigner")
        .withArgs(outsider.address);
    });

    it("should revert with ProofRegistryUnauthorizedSigner when the signature covers another response", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      const sig = await signInteraction(relayer, ENDPOINT, "a different response");
      const wrongSigner = ethers.recoverAddress(digestOf(ENDPOINT, RESPONSE), sig);
      expect(wrongSigner).to.not.equal(relayer.address);
      await expect(registry.connect(relayer).logAPIInteraction(ENDPOINT, RESPONSE, sig))
        .to.be.revertedWithCustomError(registry, "ProofRegistryUnauthorizedSigner")
        .withArgs(wrongSigner);
    });

    it("should revert with ProofRegistryUnauthorizedSigner for a signature of another chain, another registry or the version 1 (EIP-191) digest", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      const other = await ethers.deployContract("ProofRegistry", [
        0n,
        relayer.address,
        relayer.address,
        relayer.address,
      ]);
      const v1Digest = keccak256(
        ethers.AbiCoder.defaultAbiCoder().encode(
          ["bytes32", "bytes32"],
          [hashText(ENDPOINT), hashText(RESPONSE)],
        ),
      );
      const replays = [
        await signInteraction(relayer, ENDPOINT, RESPONSE, domainOf(registryAddress, chainId + 1n)),
        await signInteraction(relayer, ENDPOINT, RESPONSE, domainOf(await other.getAddress())),
        await relayer.signMessage(ethers.getBytes(v1Digest)),
      ];
      for (const sig of replays) {
        await expect(
          registry.connect(relayer).logAPIInteraction(ENDPOINT, RESPONSE, sig),
        ).to.be.revertedWithCustomError(registry, "ProofRegistryUnauthorizedSigner");
      }
      // The same signer's signature for this chain and registry is accepted.
      const sig = await signInteraction(relayer, ENDPOINT, RESPONSE);
      await expect(registry.connect(relayer).logAPIInteraction(ENDPOINT, RESPONSE, sig)).to.emit(
        registry,
        "APILogged",
      );
    });

    it("should expose the EIP-712 domain through ERC-5267", async function () {
      const { registry } = await networkHelpers.loadFixture(deployRegistry);
      const domain = await registry.eip712Domain();
      expect([domain.name, domain.version, domain.chainId, domain.verifyingContract]).to.deep.equal(
        ["ProofRegistry", "2", chainId, registryAddress],
      );
      expect(await registry.INTERACTION_TYPEHASH()).to.equal(
        ethers.id("APIInteraction(bytes32 endpointHash,bytes32 responseHash)"),
      );
    });

    it("should revert with ProofRegistryInvalidSignature for a malformed or malleable signature", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      const sig = await signInteraction(relayer, ENDPOINT, RESPONSE);
      const parsed = Signature.from(sig);
      // The same signature with s' = n - s (and the other v): valid for ecrecover, rejected by OpenZeppelin.
      const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
      const highS = ethers.concat([
        parsed.r,
        ethers.toBeHex(n - BigInt(parsed.s), 32),
        parsed.v === 27 ? "0x1c" : "0x1b",
      ]);
      for (const bad of ["0x", ethers.dataSlice(sig, 0, 64), ethers.concat([sig, "0x00"]), highS]) {
        await expect(
          registry.connect(relayer).logAPIInteraction(ENDPOINT, RESPONSE, bad),
        ).to.be.revertedWithCustomError(registry, "ProofRegistryInvalidSignature");
      }
    });

    it("should revert with ProofRegistryDuplicateRequest for the same endpoint at the same block time", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      const sig = await signInteraction(relayer, ENDPOINT, RESPONSE);
      const first = await (
        await registry.connect(relayer).logAPIInteraction(ENDPOINT, RESPONSE, sig)
      ).wait();
      const block = await ethers.provider.getBlock(first!.blockNumber);
      const requestId = solidityPackedKeccak256(
        ["string", "uint256"],
        [ENDPOINT, block!.timestamp],
      );

      await provider.request({ method: "evm_setNextBlockTimestamp", params: [block!.timestamp] });
      const otherSig = await signInteraction(relayer, ENDPOINT, "another response");
      await expect(
        registry
          .connect(relayer)
          .logAPIInteraction(ENDPOINT, "another response", otherSig, { gasLimit: 500_000 }),
      )
        .to.be.revertedWithCustomError(registry, "ProofRegistryDuplicateRequest")
        .withArgs(requestId);
      // The first record is untouched.
      const [, responseHash] = await registry.records(requestId);
      expect(responseHash).to.equal(hashText(RESPONSE));
    });

    it("should read an unknown request id as an all-zero record", async function () {
      const { registry } = await networkHelpers.loadFixture(deployRegistry);
      const [endpointHash, responseHash, timestamp] = await registry.records(ethers.id("unknown"));
      expect([endpointHash, responseHash, timestamp]).to.deep.equal([
        ethers.ZeroHash,
        ethers.ZeroHash,
        0n,
      ]);
    });
  });

  describe("# anchorBatch", function () {
    const interactions = Array.from({ length: 5 }, (_, i) => [
      hashText(`GET https://crm.example/v2/crm/orders?page=${i}`),
      hashText(`{"page":${i}}`),
      1_767_225_600n + BigInt(i),
    ]);
    const tree = StandardMerkleTree.of(interactions, LEAF_TYPES);
    const URI = "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy";

    it("should anchor a root, emit BatchAnchored and expose the batch", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      const tx = await registry.connect(relayer).anchorBatch(tree.root, interactions.length, URI);
      await expect(tx)
        .to.emit(registry, "BatchAnchored")
        .withArgs(1n, tree.root, BigInt(interactions.length), URI, relayer.address);
      const block = await ethers.provider.getBlock((await tx.wait())!.blockNumber);
      const batch = await registry.batchOf(tree.root);
      expect(batch.batchId).to.equal(1n);
      expect(batch.count).to.equal(BigInt(interactions.length));
      expect(batch.anchoredAt).to.equal(BigInt(block!.timestamp));
      expect(await registry.batchCount()).to.equal(1n);

      const second = StandardMerkleTree.of(interactions.slice(0, 2), LEAF_TYPES);
      await expect(registry.connect(relayer).anchorBatch(second.root, 2, ""))
        .to.emit(registry, "BatchAnchored")
        .withArgs(2n, second.root, 2n, "", relayer.address);
      expect(await registry.batchCount()).to.equal(2n);
    });

    it("should compute the same leaves as @openzeppelin/merkle-tree and verify every member", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      await registry.connect(relayer).anchorBatch(tree.root, interactions.length, URI);
      for (const [i, value] of tree.entries()) {
        const [endpointHash, responseHash, timestamp] = value as [string, string, bigint];
        expect(await registry.interactionLeaf(endpointHash, responseHash, timestamp)).to.equal(
          tree.leafHash(value),
        );
        expect(
          await registry.verifyInteraction(
            tree.root,
            tree.getProof(i),
            endpointHash,
            responseHash,
            timestamp,
          ),
        ).to.equal(true);
      }
    });

    it("should reject a non-member, a wrong proof and a root that was never anchored", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      await registry.connect(relayer).anchorBatch(tree.root, interactions.length, URI);
      const [endpointHash, responseHash, timestamp] = interactions[0] as [string, string, bigint];
      const proof = tree.getProof(0);
      expect(
        await registry.verifyInteraction(
          tree.root,
          proof,
          endpointHash,
          responseHash,
          timestamp + 1n,
        ),
      ).to.equal(false);
      expect(
        await registry.verifyInteraction(
          tree.root,
          tree.getProof(1),
          endpointHash,
          responseHash,
          timestamp,
        ),
      ).to.equal(false);
      const unanchored = StandardMerkleTree.of(interactions.slice(0, 3), LEAF_TYPES);
      expect(
        await registry.verifyInteraction(
          unanchored.root,
          unanchored.getProof(0),
          endpointHash,
          responseHash,
          timestamp,
        ),
      ).to.equal(false);
      const empty = await registry.batchOf(unanchored.root);
      expect([empty.batchId, empty.anchoredAt, empty.count]).to.deep.equal([0n, 0n, 0n]);
    });

    it("should revert with AccessControlUnauthorizedAccount for a caller without the logger role", async function () {
      const { registry, outsider } = await networkHelpers.loadFixture(deployRegistry);
      await expect(registry.connect(outsider).anchorBatch(tree.root, 5, URI))
        .to.be.revertedWithCustomError(registry, "AccessControlUnauthorizedAccount")
        .withArgs(outsider.address, ethers.id("LOGGER_ROLE"));
    });

    it("should revert with ProofRegistryInvalidRoot for a zero root", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      await expect(
        registry.connect(relayer).anchorBatch(ethers.ZeroHash, 5, URI),
      ).to.be.revertedWithCustomError(registry, "ProofRegistryInvalidRoot");
    });

    it("should revert with ProofRegistryEmptyBatch for a zero count", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      await expect(
        registry.connect(relayer).anchorBatch(tree.root, 0, URI),
      ).to.be.revertedWithCustomError(registry, "ProofRegistryEmptyBatch");
    });

    it("should revert with ProofRegistryBatchTooLarge for a count above 2^128 - 1", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      await expect(registry.connect(relayer).anchorBatch(tree.root, 2n ** 128n, URI))
        .to.be.revertedWithCustomError(registry, "ProofRegistryBatchTooLarge")
        .withArgs(2n ** 128n);
      await expect(registry.connect(relayer).anchorBatch(tree.root, 2n ** 128n - 1n, URI)).to.emit(
        registry,
        "BatchAnchored",
      );
    });

    it("should revert with ProofRegistryDuplicateBatch when a root is anchored twice", async function () {
      const { registry, relayer } = await networkHelpers.loadFixture(deployRegistry);
      await registry.connect(relayer).anchorBatch(tree.root, 5, URI);
      await expect(registry.connect(relayer).anchorBatch(tree.root, 5, "ipfs://other"))
        .to.be.revertedWithCustomError(registry, "ProofRegistryDuplicateBatch")
        .withArgs(tree.root, 1n);
    });
  });

  describe("# default admin handover", function () {
    it("should hand the admin role over in two steps after the delay", async function () {
      const { registry, admin, outsider } = await networkHelpers.loadFixture(deployRegistry);
      await registry.connect(admin).beginDefaultAdminTransfer(outsider.address);
      await expect(
        registry.connect(outsider).acceptDefaultAdminTransfer(),
      ).to.be.revertedWithCustomError(registry, "AccessControlEnforcedDefaultAdminDelay");
      await networkHelpers.time.increase(ADMIN_DELAY + 1n);
      await registry.connect(outsider).acceptDefaultAdminTransfer();
      expect(await registry.defaultAdmin()).to.equal(outsider.address);
      expect(await registry.hasRole(ethers.ZeroHash, admin.address)).to.equal(false);
    });
  });
});
