// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title IERC7641: Intrinsic RevShare Token
/// @notice An ERC-20 whose tokens are shares of a communal ETH revenue pool: at each snapshot a
///         fraction of the revenue received since the previous snapshot becomes claimable by the
///         holders at that snapshot, and the rest stays in a pool that holders redeem by burning.
interface IERC7641 is IERC20 {
    /// @notice The ETH `account` can claim for snapshot `snapshotId` (zero once claimed).
    /// @param account The token holder.
    /// @param snapshotId The snapshot id.
    /// @return The amount of ETH claimable, in wei.
    function claimableRevenue(address account, uint256 snapshotId) external view returns (uint256);

    /// @notice Claims the caller's share of snapshot `snapshotId`'s claimable revenue, once.
    /// @param snapshotId The snapshot id.
    function claim(uint256 snapshotId) external;

    /// @notice Snapshots balances and allocates the revenue received since the previous snapshot.
    /// @dev Rate-limited against spam, as the ERC advises (here: a fixed schedule).
    /// @return The new snapshot id.
    function snapshot() external returns (uint256);

    /// @notice The ETH that burning `amount` of the caller's tokens pays now.
    /// @param amount The amount of tokens to burn.
    /// @return The amount of ETH redeemable, in wei.
    function redeemableOnBurn(uint256 amount) external view returns (uint256);

    /// @notice Burns `amount` of the caller's tokens and pays their share of the redeemable pool.
    /// @param amount The amount of tokens to burn.
    function burn(uint256 amount) external;
}
