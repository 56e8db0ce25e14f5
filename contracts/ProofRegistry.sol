// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControlDefaultAdminRules} from "@openzeppelin/contracts/access/extensions/AccessControlDefaultAdminRules.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {IProofRegistry} from "./interfaces/IProofRegistry.sol";
import {Semver} from "./utils/Semver.sol";

/// @title ProofRegistry
/// @notice Signed, append-only proofs of external API interactions, singly or as Merkle batches.
/// @dev See {IProofRegistry} for the record, signature and leaf formats.
contract ProofRegistry is IProofRegistry, AccessControlDefaultAdminRules, EIP712, Semver {
    /// @inheritdoc IProofRegistry
    bytes32 public constant LOGGER_ROLE = keccak256("LOGGER_ROLE");
    /// @inheritdoc IProofRegistry
    bytes32 public constant SIGNER_ROLE = keccak256("SIGNER_ROLE");
    /// @inheritdoc IProofRegistry
    bytes32 public constant INTERACTION_TYPEHASH =
        keccak256("APIInteraction(bytes32 endpointHash,bytes32 responseHash)");

    mapping(bytes32 requestId => ProofRecord) private _records;
    mapping(bytes32 root => BatchAnchor) private _batches;
    uint256 private _batchCount;

    /// @param initialAdminDelay Seconds a new default admin must wait before accepting (two-step handover).
    /// @param initialAdmin The default admin (grants and revokes roles).
    /// @param logger Account granted `LOGGER_ROLE` at deployment (the relayer); zero to grant none.
    /// @param signer Account granted `SIGNER_ROLE` at deployment (the relayer); zero to grant none.
    constructor(
        uint48 initialAdminDelay,
        address initialAdmin,
        address logger,
        address signer
    )
        AccessControlDefaultAdminRules(initialAdminDelay, initialAdmin)
        EIP712("ProofRegistry", "2")
        Semver(2, 0, 0)
    {
        if (logger != address(0)) _grantRole(LOGGER_ROLE, logger);
        if (signer != address(0)) _grantRole(SIGNER_ROLE, signer);
    }

    /// @inheritdoc IProofRegistry
    function logAPIInteraction(
        string calldata endpoint,
        string calldata response,
        bytes calldata sig
    ) external onlyRole(LOGGER_ROLE) returns (bytes32 requestId) {
        bytes32 endpointHash = keccak256(bytes(endpoint));
        bytes32 responseHash = keccak256(bytes(response));
        _checkSignature(_interactionDigest(endpointHash, responseHash), sig);

        requestId = keccak256(abi.encodePacked(endpoint, block.timestamp));
        ProofRecord storage record = _records[requestId];
        // A record always has a non-zero timestamp, so a zero one means the slot is free.
        if (record.timestamp != 0) revert ProofRegistryDuplicateRequest(requestId);
        record.endpointHash = endpointHash;
        record.responseHash = responseHash;
        record.timestamp = block.timestamp;

        emit APILogged(requestId, sig);
    }

    /// @inheritdoc IProofRegistry
    function anchorBatch(
        bytes32 root,
        uint256 count,
        string calldata uri
    ) external onlyRole(LOGGER_ROLE) returns (uint256 batchId) {
        if (root == bytes32(0)) revert ProofRegistryInvalidRoot();
        if (count == 0) revert ProofRegistryEmptyBatch();
        if (count > type(uint128).max) revert ProofRegistryBatchTooLarge(count);
        BatchAnchor storage anchor = _batches[root];
        if (anchor.batchId != 0) revert ProofRegistryDuplicateBatch(root, anchor.batchId);

        batchId = ++_batchCount;
        anchor.batchId = uint64(batchId); // 2^64 batches cannot be reached
        anchor.anchoredAt = uint64(block.timestamp);
        anchor.count = uint128(count); // bounded just above

        emit BatchAnchored(batchId, root, count, uri, msg.sender);
    }

    /// @inheritdoc IProofRegistry
    function records(
        bytes32 requestId
    ) external view returns (bytes32 endpointHash, bytes32 responseHash, uint256 timestamp) {
        ProofRecord storage record = _records[requestId];
        return (record.endpointHash, record.responseHash, record.timestamp);
    }

    /// @inheritdoc IProofRegistry
    function batchOf(bytes32 root) external view returns (BatchAnchor memory) {
        return _batches[root];
    }

    /// @inheritdoc IProofRegistry
    function batchCount() external view returns (uint256) {
        return _batchCount;
    }

    /// @inheritdoc IProofRegistry
    function verifyInteraction(
        bytes32 root,
        bytes32[] calldata proof,
        bytes32 endpointHash,
        bytes32 responseHash,
        uint256 timestamp
    ) external view returns (bool) {
        if (_batches[root].batchId == 0) return false;
        return
            MerkleProof.verifyCalldata(
                proof,
                root,
                _interactionLeaf(endpointHash, responseHash, timestamp)
            );
    }

    /// @inheritdoc IProofRegistry
    function interactionLeaf(
        bytes32 endpointHash,
        bytes32 responseHash,
        uint256 timestamp
    ) external pure returns (bytes32) {
        return _interactionLeaf(endpointHash, responseHash, timestamp);
    }

    /// @inheritdoc IProofRegistry
    function interactionDigest(
        bytes32 endpointHash,
        bytes32 responseHash
    ) external view returns (bytes32) {
        return _interactionDigest(endpointHash, responseHash);
    }

    /// @inheritdoc IProofRegistry
    function requestIdOf(string calldata endpoint, uint256 timestamp) external pure returns (bytes32) {
        return keccak256(abi.encodePacked(endpoint, timestamp));
    }

    /// @notice ERC-165: IProofRegistry, AccessControl and its default-admin rules.
    /// @param interfaceId The interface id.
    /// @return True when supported.
    function supportsInterface(bytes4 interfaceId) public view override returns (bool) {
        return interfaceId == type(IProofRegistry).interfaceId || super.supportsInterface(interfaceId);
    }

    /// @dev Reverts unless `sig` is a well-formed signature of the EIP-712 `digest` by a `SIGNER_ROLE` holder.
    function _checkSignature(bytes32 digest, bytes calldata sig) private view {
        (address signer, ECDSA.RecoverError error, ) = ECDSA.tryRecoverCalldata(digest, sig);
        if (error != ECDSA.RecoverError.NoError) revert ProofRegistryInvalidSignature();
        if (!hasRole(SIGNER_ROLE, signer)) revert ProofRegistryUnauthorizedSigner(signer);
    }

    /// @dev The domain (name, version, chain id, this address) keeps a signature from being replayed
    ///      on another chain or another registry.
    function _interactionDigest(
        bytes32 endpointHash,
        bytes32 responseHash
    ) private view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(INTERACTION_TYPEHASH, endpointHash, responseHash)));
    }

    /// @dev StandardMerkleTree leaf for the value types ["bytes32", "bytes32", "uint256"].
    function _interactionLeaf(
        bytes32 endpointHash,
        bytes32 responseHash,
        uint256 timestamp
    ) private pure returns (bytes32) {
        return keccak256(bytes.concat(keccak256(abi.encode(endpointHash, responseHash, timestamp))));
    }
}
