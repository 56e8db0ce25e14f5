// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ISemver} from "./ISemver.sol";

/// @title IProofRegistry
/// @notice On-chain proofs of external API interactions. Each interaction is either logged on its
///         own (`logAPIInteraction`) or, at high volume, included in a Merkle batch whose root is
///         anchored (`anchorBatch`). Auditors verify both from the chain alone.
///
/// @dev Single records. `requestId = keccak256(abi.encodePacked(endpoint, block.timestamp))` and the
///      record is `{endpointHash: keccak256(bytes(endpoint)), responseHash: keccak256(bytes(response)),
///      timestamp: block.timestamp}`. The caller must hold `LOGGER_ROLE`; `sig` must be an EIP-712
///      signature, by an account holding `SIGNER_ROLE`, of
///      `APIInteraction(bytes32 endpointHash,bytes32 responseHash)` under the domain
///      `{name: "ProofRegistry", version: "2", chainId, verifyingContract: this}` (ERC-5267
///      `eip712Domain()`), i.e. `ethers.Wallet.signTypedData(domain, types, value)`; the digest is
///      `interactionDigest(endpointHash, responseHash)`. The domain binds a signature to one chain and
///      one registry, and the signature makes a record attributable to its signer even when another
///      account submits it. Records are never overwritten: the same endpoint text twice in one block
///      reverts with `ProofRegistryDuplicateRequest`, so a logger that may log the same request twice
///      in a block makes each endpoint text unique (Veriflow's relayer appends the interaction's id as
///      the URL fragment, `#veriflow-interaction=<uuid>`: never sent to the server, part of the text).
///
///      Batches. A batch is a Merkle tree built exactly like the OpenZeppelin merkle-tree JS library's
///      `StandardMerkleTree.of(values, ["bytes32", "bytes32", "uint256"])`, one value per interaction:
///      `[endpointHash, responseHash, timestamp]` (the same three fields as a single record; `timestamp`
///      is the interaction's Unix time in seconds as observed by the relayer). The leaf is therefore
///      `keccak256(bytes.concat(keccak256(abi.encode(endpointHash, responseHash, timestamp))))`
///      (double hashing rules out second-preimage attacks with inner nodes), and proofs are the
///      `tree.getProof(i)` arrays (sorted-pair hashing, OpenZeppelin `MerkleProof`). `uri` points to the
///      batch's content (e.g. an IPFS CID of the leaf list) so anyone can rebuild the tree.
interface IProofRegistry is ISemver {
    /// @notice A single logged interaction.
    /// @param endpointHash keccak256 of the endpoint text.
    /// @param responseHash keccak256 of the response text.
    /// @param timestamp Block time at which the record was written.
    struct ProofRecord {
        bytes32 endpointHash;
        bytes32 responseHash;
        uint256 timestamp;
    }

    /// @notice An anchored Merkle batch of interactions.
    /// @param batchId Sequential id of the batch, starting at 1 (0 means "not anchored").
    /// @param anchoredAt Block time of the anchoring transaction.
    /// @param count Number of leaves in the batch, as declared by the logger.
    struct BatchAnchor {
        uint64 batchId;
        uint64 anchoredAt;
        uint128 count;
    }

    /// @notice The record for `requestId` already exists (same endpoint logged twice in one block).
    /// @param requestId The colliding request id.
    error ProofRegistryDuplicateRequest(bytes32 requestId);

    /// @notice `sig` is not a well-formed ECDSA signature (wrong length or malleable `s`).
    error ProofRegistryInvalidSignature();

    /// @notice `sig` is well formed but its signer (for this chain and registry) lacks `SIGNER_ROLE`.
    /// @param signer The account recovered from the signature.
    error ProofRegistryUnauthorizedSigner(address signer);

    /// @notice A batch root of zero was given.
    error ProofRegistryInvalidRoot();

    /// @notice A batch with zero leaves was given.
    error ProofRegistryEmptyBatch();

    /// @notice The leaf count does not fit the stored 128-bit field.
    /// @param count The declared count.
    error ProofRegistryBatchTooLarge(uint256 count);

    /// @notice `root` was already anchored; a batch is anchored once.
    /// @param root The Merkle root.
    /// @param batchId The id under which it was anchored.
    error ProofRegistryDuplicateBatch(bytes32 root, uint256 batchId);

    /// @notice An interaction was logged.
    /// @param requestId The record's key in `records`.
    /// @param sig The signer's EIP-712 signature (digest `interactionDigest(endpointHash, responseHash)`).
    event APILogged(bytes32 indexed requestId, bytes sig);

    /// @notice A Merkle batch of interactions was anchored.
    /// @param batchId Sequential id of the batch (from 1).
    /// @param root The Merkle root (StandardMerkleTree encoding, see the contract notes).
    /// @param count Number of leaves in the batch.
    /// @param uri Where the batch's leaves can be fetched (e.g. `ipfs://<cid>`).
    /// @param anchoredBy The logger that anchored it.
    event BatchAnchored(
        uint256 indexed batchId,
        bytes32 indexed root,
        uint256 count,
        string uri,
        address indexed anchoredBy
    );

    /// @notice Role allowed to submit records and batches (`keccak256("LOGGER_ROLE")`).
    /// @return The role id.
    function LOGGER_ROLE() external view returns (bytes32);

    /// @notice Role whose signatures make a record valid (`keccak256("SIGNER_ROLE")`).
    /// @return The role id.
    function SIGNER_ROLE() external view returns (bytes32);

    /// @notice EIP-712 type hash of a signed record:
    ///         `keccak256("APIInteraction(bytes32 endpointHash,bytes32 responseHash)")`.
    /// @return The type hash.
    function INTERACTION_TYPEHASH() external view returns (bytes32);

    /// @notice Records one API interaction. Caller must hold `LOGGER_ROLE`.
    /// @param endpoint The endpoint text (e.g. "GET https://crm.example/v2/crm/orders?status=unpaid").
    /// @param response The response text as received.
    /// @param sig EIP-712 signature by a `SIGNER_ROLE` holder (digest `interactionDigest(...)`).
    /// @return requestId `keccak256(abi.encodePacked(endpoint, block.timestamp))`.
    function logAPIInteraction(
        string calldata endpoint,
        string calldata response,
        bytes calldata sig
    ) external returns (bytes32 requestId);

    /// @notice Anchors the Merkle root of a batch of interactions. Caller must hold `LOGGER_ROLE`.
    /// @param root The StandardMerkleTree root of the batch (non-zero, not anchored before).
    /// @param count Number of leaves in the batch (non-zero).
    /// @param uri Where the batch's leaves can be fetched.
    /// @return batchId Sequential id of the batch, from 1.
    function anchorBatch(
        bytes32 root,
        uint256 count,
        string calldata uri
    ) external returns (uint256 batchId);

    /// @notice Reads a single record; all fields are zero when `requestId` is unknown.
    /// @param requestId The record's id.
    /// @return endpointHash keccak256 of the endpoint text.
    /// @return responseHash keccak256 of the response text.
    /// @return timestamp Block time of the record.
    function records(
        bytes32 requestId
    ) external view returns (bytes32 endpointHash, bytes32 responseHash, uint256 timestamp);

    /// @notice Reads an anchored batch; all fields are zero when `root` was never anchored.
    /// @param root The Merkle root.
    /// @return The batch's id, anchoring time and leaf count.
    function batchOf(bytes32 root) external view returns (BatchAnchor memory);

    /// @notice Number of batches anchored so far (the id of the latest one).
    /// @return The count.
    function batchCount() external view returns (uint256);

    /// @notice Whether an interaction is part of an anchored batch.
    /// @param root The batch root.
    /// @param proof The leaf's Merkle proof (`StandardMerkleTree.getProof`).
    /// @param endpointHash keccak256 of the endpoint text.
    /// @param responseHash keccak256 of the response text.
    /// @param timestamp The interaction's Unix time in seconds, as in the leaf.
    /// @return True when `root` is anchored and the proof places the leaf under it.
    function verifyInteraction(
        bytes32 root,
        bytes32[] calldata proof,
        bytes32 endpointHash,
        bytes32 responseHash,
        uint256 timestamp
    ) external view returns (bool);

    /// @notice The Merkle leaf of an interaction, as `StandardMerkleTree` computes it.
    /// @param endpointHash keccak256 of the endpoint text.
    /// @param responseHash keccak256 of the response text.
    /// @param timestamp The interaction's Unix time in seconds.
    /// @return `keccak256(bytes.concat(keccak256(abi.encode(endpointHash, responseHash, timestamp))))`.
    function interactionLeaf(
        bytes32 endpointHash,
        bytes32 responseHash,
        uint256 timestamp
    ) external pure returns (bytes32);

    /// @notice The EIP-712 digest a signer signs for a record, bound to this chain and registry.
    /// @param endpointHash keccak256 of the endpoint text.
    /// @param responseHash keccak256 of the response text.
    /// @return `keccak256("\x19\x01" ‖ domainSeparator ‖ keccak256(abi.encode(INTERACTION_TYPEHASH,
    ///         endpointHash, responseHash)))`.
    function interactionDigest(
        bytes32 endpointHash,
        bytes32 responseHash
    ) external view returns (bytes32);

    /// @notice The request id a log of `endpoint` at time `timestamp` gets.
    /// @param endpoint The endpoint text.
    /// @param timestamp A block time.
    /// @return `keccak256(abi.encodePacked(endpoint, timestamp))`.
    function requestIdOf(string calldata endpoint, uint256 timestamp) external pure returns (bytes32);
}
