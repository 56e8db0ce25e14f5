// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC7641} from "./IERC7641.sol";
import {ISemver} from "./ISemver.sol";

/// @title IRevShareReceipt
/// @notice Veriflow's payment receipt: an ERC-7641 token minted to a payer after a payment settles,
///         one issuance per payment reference. Receipts are transferable ERC-20 shares of the
///         revenue the contract receives in ETH.
///
/// @dev Revenue accounting, time-weighted so that the moment of a snapshot cannot be exploited.
///      Periods follow a fixed schedule: period `k` ends at `deployedAt + k * snapshotInterval()`.
///      `snapshot()` (anyone, once a boundary has passed) closes every whole period since the previous
///      snapshot as one snapshot ending at the latest boundary, and splits the revenue received since
///      the previous allocation, `R`: `R * claimShareBps / 10_000` is claimable, the rest redeemable.
///      Both halves are shared by each holder's time-weighted holding over the snapshot's period:
///      `weightOf(a, s) = ∫ balanceOf(a) dt` over `(end of s-1, end of s]`, out of the supply's
///      integral `totalWeight`. Holding 900 tokens for one block across a snapshot weighs one block,
///      not the period. A holder claims `claimable * weightOf / totalWeight` (rounded down, once per
///      snapshot); the redeemable half accrues the same way to the holder (not to the tokens) and
///      burning `amount` of a balance `b` pays `accrued * amount / b`, so a receipt issued after the
///      revenue was allocated redeems nothing of it. A period without supply leaves its revenue
///      unallocated for the next snapshot. Claims do not expire. At all times
///      `address(this).balance >= redeemablePool() + outstandingClaims()`, and the claims and
///      redemptions of a snapshot never exceed what it allocated.
interface IRevShareReceipt is IERC7641, ISemver {
    /// @notice Figures of one snapshot.
    /// @param timestamp End of the snapshot's period (a schedule boundary, at or before the call).
    /// @param totalSupply Token supply in the period's last second.
    /// @param claimableRevenue ETH allocated to the period's holders for claiming.
    /// @param claimedRevenue ETH already claimed from it (never above `claimableRevenue`).
    /// @param redeemableAdded ETH added to the redeemable pool, accrued by the same weights.
    /// @param totalWeight The supply's token-seconds over the period (the weights' sum).
    struct SnapshotInfo {
        uint64 timestamp;
        uint256 totalSupply;
        uint256 claimableRevenue;
        uint256 claimedRevenue;
        uint256 redeemableAdded;
        uint256 totalWeight;
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

    /// @notice `snapshot()` was called before the next schedule boundary.
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

    /// @notice The snapshot interval given at deployment is zero.
    error RevShareReceiptInvalidSnapshotInterval();

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
    /// @param claimableRevenue ETH claimable by the period's holders.
    /// @param redeemableAdded ETH added to the redeemable pool.
    /// @param totalSupply Token supply at the end of the period.
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

    /// @notice A holder burned tokens and redeemed that fraction of the redemption they accrued.
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

    /// @notice The earliest time `snapshot()` succeeds (the next schedule boundary).
    /// @return A Unix time in seconds.
    function nextSnapshotAt() external view returns (uint256);

    /// @notice Start of the schedule: period `k` ends at `scheduleStart() + k * snapshotInterval()`.
    /// @return A Unix time in seconds (the deployment's block time).
    function scheduleStart() external view returns (uint256);

    /// @notice `account`'s token-seconds over snapshot `snapshotId`'s period; reverts for unknown ids.
    /// @param account The holder.
    /// @param snapshotId The snapshot id.
    /// @return The weight (its share is `weight / snapshotInfo(snapshotId).totalWeight`).
    function weightOf(address account, uint256 snapshotId) external view returns (uint256);

    /// @notice The ETH `account` would be paid for burning `amount` of its balance now.
    /// @param account The holder.
    /// @param amount Tokens to burn (at most its balance).
    /// @return Wei redeemable.
    function redeemableOf(address account, uint256 amount) external view returns (uint256);

    /// @notice Accrues the caller's redemption for up to `maxSnapshots` snapshots not yet accrued,
    ///         oldest first. `burn` does this for every such snapshot; this bounds the gas of a
    ///         holder who has not burned for many snapshots.
    /// @param maxSnapshots The most snapshots to accrue in this call.
    /// @return accrued The caller's accrued redemption afterwards, in wei.
    function accrueRedemption(uint256 maxSnapshots) external returns (uint256 accrued);

    /// @notice Figures of snapshot `snapshotId`; reverts for unknown ids.
    /// @param snapshotId The snapshot id.
    /// @return The snapshot's figures.
    function snapshotInfo(uint256 snapshotId) external view returns (SnapshotInfo memory);

    /// @notice `account`'s balance in the last second of snapshot `snapshotId`'s period (a change at
    ///         the boundary itself belongs to the next period); reverts for unknown ids.
    /// @param account The holder.
    /// @param snapshotId The snapshot id.
    /// @return The balance.
    function balanceOfAt(address account, uint256 snapshotId) external view returns (uint256);

    /// @notice The token supply in the last second of snapshot `snapshotId`'s period; reverts for
    ///         unknown ids.
    /// @param snapshotId The snapshot id.
    /// @return The supply.
    function totalSupplyAt(uint256 snapshotId) external view returns (uint256);

    /// @notice Whether `account` claimed snapshot `snapshotId`.
    /// @param account The holder.
    /// @param snapshotId The snapshot id.
    /// @return True once claimed.
    function hasClaimed(address account, uint256 snapshotId) external view returns (bool);

    /// @notice ETH held for redemption by burning (accrued or still to accrue to holders).
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

    /// @notice Length of a schedule period in seconds (set at deployment, non-zero).
    /// @return The interval.
    function snapshotInterval() external view returns (uint256);
}
