// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC7641} from "./IERC7641.sol";
import {ISemver} from "./ISemver.sol";

/// @title IRevShareReceipt
/// @notice Veriflow's payment receipt: an ERC-7641 token minted to a payer after a payment settles,
///         one issuance per payment reference. Receipts are transferable ERC-20 shares of the
///         revenue the contract receives in ETH.
///
/// @dev Revenue accounting. ETH sent to the contract (plain transfers, `receive`) is revenue. At each
///      `snapshot()` the revenue received since the previous snapshot, `R`, is split: `R * claimShareBps / 10_000`
///      becomes that snapshot's claimable revenue, shared among the holders at the snapshot in
///      proportion to their balances (`claimable * balanceOfAt / totalSupplyAt`, rounded down), and the
///      rest joins the redeemable pool. Burning `amount` pays `redeemablePool * amount / totalSupply`.
///      If the supply is zero at a snapshot, its revenue stays unallocated and rolls into the next one.
///      Claims do not expire. At all times `address(this).balance >= redeemablePool() + outstanding claims`.
///
///      Snapshots are built on OpenZeppelin `Checkpoints`: a balance change made after snapshot `n`
///      is checkpointed under key `n + 1`, so `balanceOfAt(a, k)` is the latest checkpoint at or before `k`.
interface IRevShareReceipt is IERC7641, ISemver {
    /// @notice Figures of one snapshot.
    /// @param timestamp Block time of the snapshot.
    /// @param totalSupply Token supply at the snapshot.
    /// @param claimableRevenue ETH allocated to the snapshot's holders.
    /// @param claimedRevenue ETH already claimed from it (never above `claimableRevenue`).
    struct SnapshotInfo {
        uint64 timestamp;
        uint256 totalSupply;
        uint256 claimableRevenue;
        uint256 claimedRevenue;
    }

    /// @notice `paymentRef` already has a receipt; a payment is receipted once.
    /// @param paymentRef The payment reference.
    error RevShareReceiptDuplicatePaymentRef(bytes32 paymentRef);

    /// @notice A zero payment reference was given.
    error RevShareReceiptInvalidPaymentRef();

    /// @notice A zero token amount was given.
    error RevShareReceiptZeroAmount();

    /// @notice The claim share given at deployment is above 10 000 basis points.
    /// @param claimShareBps The given share.
    error RevShareReceiptInvalidClaimShare(uint256 claimShareBps);

    /// @notice `snapshot()` was called before the minimum interval since the previous one elapsed.
    /// @param nextSnapshotAt The earliest time of the next snapshot.
    error RevShareReceiptSnapshotTooSoon(uint256 nextSnapshotAt);

    /// @notice `snapshotId` does not exist yet (ids start at 1).
    /// @param snapshotId The id given.
    /// @param currentSnapshotId The latest snapshot id.
    error RevShareReceiptUnknownSnapshot(uint256 snapshotId, uint256 currentSnapshotId);

    /// @notice `account` already claimed snapshot `snapshotId`.
    /// @param account The holder.
    /// @param snapshotId The snapshot.
    error RevShareReceiptAlreadyClaimed(address account, uint256 snapshotId);

    /// @notice `account` has nothing to claim for `snapshotId` (no balance at it, or a zero share).
    /// @param account The holder.
    /// @param snapshotId The snapshot.
    error RevShareReceiptNothingToClaim(address account, uint256 snapshotId);

    /// @notice Minting would push the supply past what the checkpoints can hold (2^208 - 1).
    /// @param supply The supply that would result.
    /// @param cap The cap.
    error RevShareReceiptSupplyCapExceeded(uint256 supply, uint256 cap);

    /// @notice A receipt was issued for a settled payment.
    /// @param to The payer receiving the receipt tokens.
    /// @param paymentRef The payment reference (unique per receipt).
    /// @param amount Tokens minted.
    event ReceiptIssued(address indexed to, bytes32 indexed paymentRef, uint256 amount);

    /// @notice ETH revenue was received.
    /// @param from The sender.
    /// @param amount Wei received.
    event RevenueReceived(address indexed from, uint256 amount);

    /// @notice A snapshot was taken and the revenue since the previous one allocated.
    /// @param snapshotId The new snapshot id.
    /// @param claimableRevenue ETH claimable by the snapshot's holders.
    /// @param redeemableAdded ETH added to the redeemable pool.
    /// @param totalSupply Token supply at the snapshot.
    event SnapshotTaken(
        uint256 indexed snapshotId,
        uint256 claimableRevenue,
        uint256 redeemableAdded,
        uint256 totalSupply
    );

    /// @notice A holder claimed a snapshot's revenue.
    /// @param account The holder.
    /// @param snapshotId The snapshot.
    /// @param amount Wei paid.
    event RevenueClaimed(address indexed account, uint256 indexed snapshotId, uint256 amount);

    /// @notice A holder burned tokens and redeemed their share of the redeemable pool.
    /// @param account The holder.
    /// @param amount Tokens burned.
    /// @param redeemed Wei paid.
    event Redeemed(address indexed account, uint256 amount, uint256 redeemed);

    /// @notice Role allowed to issue receipts (`keccak256("ISSUER_ROLE")`).
    /// @return The role id.
    function ISSUER_ROLE() external view returns (bytes32);

    /// @notice Mints a receipt for a settled payment. Caller must hold `ISSUER_ROLE`.
    /// @param to The payer (non-zero).
    /// @param amount Tokens to mint (non-zero).
    /// @param paymentRef The payment's reference (non-zero, never used before).
    function issueReceipt(address to, uint256 amount, bytes32 paymentRef) external;

    /// @notice Whether `paymentRef` already has a receipt.
    /// @param paymentRef The payment reference.
    /// @return True once a receipt was issued for it.
    function isReceipted(bytes32 paymentRef) external view returns (bool);

    /// @notice The latest snapshot id (zero before the first snapshot).
    /// @return The id.
    function currentSnapshotId() external view returns (uint256);

    /// @notice The earliest time `snapshot()` succeeds.
    /// @return A Unix time in seconds.
    function nextSnapshotAt() external view returns (uint256);

    /// @notice Figures of snapshot `snapshotId`; reverts for unknown ids.
    /// @param snapshotId The snapshot id.
    /// @return The snapshot's figures.
    function snapshotInfo(uint256 snapshotId) external view returns (SnapshotInfo memory);

    /// @notice `account`'s balance at snapshot `snapshotId`; reverts for unknown ids.
    /// @param account The holder.
    /// @param snapshotId The snapshot id.
    /// @return The balance.
    function balanceOfAt(address account, uint256 snapshotId) external view returns (uint256);

    /// @notice The token supply at snapshot `snapshotId`; reverts for unknown ids.
    /// @param snapshotId The snapshot id.
    /// @return The supply.
    function totalSupplyAt(uint256 snapshotId) external view returns (uint256);

    /// @notice Whether `account` claimed snapshot `snapshotId`.
    /// @param account The holder.
    /// @param snapshotId The snapshot id.
    /// @return True once claimed.
    function hasClaimed(address account, uint256 snapshotId) external view returns (bool);

    /// @notice ETH held for redemption by burning.
    /// @return Wei in the redeemable pool.
    function redeemablePool() external view returns (uint256);

    /// @notice ETH allocated to snapshots and not yet claimed.
    /// @return Wei reserved for claims.
    function outstandingClaims() external view returns (uint256);

    /// @notice ETH received since the last allocation (what the next snapshot will split).
    /// @return Wei not yet allocated.
    function unallocatedRevenue() external view returns (uint256);

    /// @notice The claimable share `p` of each snapshot's revenue, in basis points (set at deployment).
    /// @return The share, 0..10 000.
    function claimShareBps() external view returns (uint256);

    /// @notice Minimum seconds between two snapshots (set at deployment).
    /// @return The interval.
    function snapshotInterval() external view returns (uint256);
}
