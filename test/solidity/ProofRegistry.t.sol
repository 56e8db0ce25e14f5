// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ProofRegistry} from "../../contracts/ProofRegistry.sol";
import {IProofRegistry} from "../../contracts/interfaces/IProofRegistry.sol";
import {TestBase} from "./utils/TestBase.sol";

contract ProofRegistryFuzzTest is TestBase {
    uint256 private constant _SIGNER_KEY = 0xA11CE;
    ProofRegistry private _registry;

    function setUp() public {
        _registry = new ProofRegistry(0, address(this), address(this), vm.addr(_SIGNER_KEY));
    }

    function _sign(uint256 key, string memory endpoint, string memory response) private view returns (bytes memory) {
        bytes32 digest = _registry.interactionDigest(keccak256(bytes(endpoint)), keccak256(bytes(response)));
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function testFuzz_DigestIsTheEip712HashBoundToChainAndRegistry(bytes32 endpointHash, bytes32 responseHash) public {
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("ProofRegistry"),
                keccak256("2"),
                block.chainid,
                address(_registry)
            )
        );
        bytes32 structHash = keccak256(
            abi.encode(keccak256("APIInteraction(bytes32 endpointHash,bytes32 responseHash)"), endpointHash, responseHash)
        );
        bytes32 expected = keccak256(abi.encodePacked("\x19\x01", domain, structHash));
        _assertEq(_registry.interactionDigest(endpointHash, responseHash), expected, "EIP-712 digest");

        // Another registry (or chain) yields another digest, so a signature cannot be replayed there.
        ProofRegistry other = new ProofRegistry(0, address(this), address(this), address(0));
        _assertTrue(other.interactionDigest(endpointHash, responseHash) != expected, "digest not bound to the registry");
        vm.chainId(block.chainid + 1);
        _assertTrue(_registry.interactionDigest(endpointHash, responseHash) != expected, "digest not bound to the chain");
    }

    function testFuzz_LogReturnsTheRequestIdAndStoresTheRecord(
        string memory endpoint,
        string memory response,
        uint256 timestamp
    ) public {
        timestamp = _bound(timestamp, 1, type(uint64).max);
        vm.warp(timestamp);
        bytes32 requestId = _registry.logAPIInteraction(endpoint, response, _sign(_SIGNER_KEY, endpoint, response));

        _assertEq(requestId, keccak256(abi.encodePacked(endpoint, timestamp)), "requestId formula");
        _assertEq(requestId, _registry.requestIdOf(endpoint, timestamp), "requestIdOf");
        (bytes32 endpointHash, bytes32 responseHash, uint256 recordedAt) = _registry.records(requestId);
        _assertEq(endpointHash, keccak256(bytes(endpoint)), "endpointHash");
        _assertEq(responseHash, keccak256(bytes(response)), "responseHash");
        _assertEq(recordedAt, timestamp, "timestamp");

        // Never overwritten: the same endpoint at the same block time reverts, whatever the response.
        string memory other = string.concat(response, "!");
        bytes memory otherSig = _sign(_SIGNER_KEY, endpoint, other);
        vm.expectRevert(abi.encodeWithSelector(IProofRegistry.ProofRegistryDuplicateRequest.selector, requestId));
        _registry.logAPIInteraction(endpoint, other, otherSig);
    }

    function testFuzz_RejectsSignaturesOfAccountsWithoutTheSignerRole(uint256 key, string memory endpoint) public {
        key = _bound(key, 1, 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140);
        vm.assume(key != _SIGNER_KEY);
        bytes memory sig = _sign(key, endpoint, "response");
        vm.expectRevert(
            abi.encodeWithSelector(IProofRegistry.ProofRegistryUnauthorizedSigner.selector, vm.addr(key))
        );
        _registry.logAPIInteraction(endpoint, "response", sig);
    }

    function testFuzz_LeafIsTheStandardMerkleTreeDoubleHash(
        bytes32 endpointHash,
        bytes32 responseHash,
        uint256 timestamp
    ) public view {
        bytes32 expected = keccak256(bytes.concat(keccak256(abi.encode(endpointHash, responseHash, timestamp))));
        _assertEq(_registry.interactionLeaf(endpointHash, responseHash, timestamp), expected, "leaf encoding");
    }

    function testFuzz_VerifiesBothLeavesOfATwoLeafBatch(bytes32[4] memory fields, uint64 t0, uint64 t1) public {
        bytes32 leaf0 = _registry.interactionLeaf(fields[0], fields[1], t0);
        bytes32 leaf1 = _registry.interactionLeaf(fields[2], fields[3], t1);
        vm.assume(leaf0 != leaf1);
        // Sorted-pair hashing, as OpenZeppelin's MerkleProof and StandardMerkleTree use.
        bytes32 root = leaf0 < leaf1 ? keccak256(abi.encode(leaf0, leaf1)) : keccak256(abi.encode(leaf1, leaf0));
        bytes32[] memory proof = new bytes32[](1);

        proof[0] = leaf1;
        _assertTrue(!_registry.verifyInteraction(root, proof, fields[0], fields[1], t0), "verified before anchoring");
        _registry.anchorBatch(root, 2, "ipfs://batch");
        _assertTrue(_registry.verifyInteraction(root, proof, fields[0], fields[1], t0), "leaf 0");
        proof[0] = leaf0;
        _assertTrue(_registry.verifyInteraction(root, proof, fields[2], fields[3], t1), "leaf 1");
        _assertTrue(
            !_registry.verifyInteraction(root, proof, fields[2], fields[3], uint256(t1) + 1),
            "a changed leaf verified"
        );
    }
}
