// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Burnable} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Burnable.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {ITestToken} from "./interfaces/ITestToken.sol";

/// @title TestToken
/// @notice Devnet ERC-20 test asset with configurable decimals, EIP-2612 permit and role-gated minting.
contract TestToken is ITestToken, ERC20, ERC20Burnable, ERC20Permit, AccessControl {
    /// @inheritdoc ITestToken
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");

    uint8 private immutable _decimals;

    /// @param name_ Token name, e.g. "USD Coin (devnet)".
    /// @param symbol_ Token symbol, e.g. "USDC".
    /// @param decimals_ Decimals of the asset the token stands for (USDC: 6, WBTC: 8, DAI: 18).
    /// @param admin Receives the admin and minter roles.
    constructor(
        string memory name_,
        string memory symbol_,
        uint8 decimals_,
        address admin
    ) ERC20(name_, symbol_) ERC20Permit(name_) {
        _decimals = decimals_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(MINTER_ROLE, admin);
    }

    /// @inheritdoc ITestToken
    function mint(address to, uint256 amount) external onlyRole(MINTER_ROLE) {
        _mint(to, amount);
    }

    /// @inheritdoc ITestToken
    function burn(uint256 amount) public override(ITestToken, ERC20Burnable) {
        super.burn(amount);
    }

    /// @notice Decimals of the asset this token stands for.
    /// @return The number of decimals.
    function decimals() public view override(ERC20, IERC20Metadata) returns (uint8) {
        return _decimals;
    }
}
