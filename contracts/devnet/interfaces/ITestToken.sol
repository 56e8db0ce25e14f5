// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";

/// @title ITestToken
/// @notice A devnet ERC-20 test asset (USDC, USDT, DAI, WBTC) with the decimals of the asset it
///         stands for. Holders of the minter role (the deployer, and the `lockmint` bridge on
///         chains where the asset is bridged by burn-and-mint) can mint; any holder can burn.
/// @dev Devnet only: never deploy to a network where the token could be mistaken for the real asset.
interface ITestToken is IERC20Metadata {
    /// @notice Mints `amount` base units to `to`.
    /// @dev Reverts with `AccessControlUnauthorizedAccount` unless the caller holds `MINTER_ROLE`.
    /// @param to Recipient of the new tokens.
    /// @param amount Amount in base units (respecting `decimals()`).
    function mint(address to, uint256 amount) external;

    /// @notice Burns `amount` of the caller's tokens.
    /// @param amount Amount in base units.
    function burn(uint256 amount) external;

    /// @notice The role allowed to mint.
    /// @return The role identifier, `keccak256("MINTER_ROLE")`.
    function MINTER_ROLE() external view returns (bytes32);
}
