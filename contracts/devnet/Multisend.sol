// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IMultisend} from "./interfaces/IMultisend.sol";

/// @title Multisend
/// @notice Disperse-style batch transfers of ether or one ERC-20, all-or-nothing.
contract Multisend is IMultisend, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @inheritdoc IMultisend
    function disperseEther(
        address[] calldata recipients,
        uint256[] calldata amounts
    ) external payable nonReentrant {
        uint256 total = _checkBatch(recipients, amounts);
        if (total != msg.value) revert MultisendValueMismatch(total, msg.value);
        for (uint256 i = 0; i < recipients.length; ++i) {
            (bool ok, ) = recipients[i].call{value: amounts[i]}("");
            if (!ok) revert MultisendEtherTransferFailed(recipients[i]);
        }
        emit Dispersed(msg.sender, address(0), total, recipients.length);
    }

    /// @inheritdoc IMultisend
    function disperseToken(
        IERC20 token,
        address[] calldata recipients,
        uint256[] calldata amounts
    ) external nonReentrant {
        uint256 total = _checkBatch(recipients, amounts);
        for (uint256 i = 0; i < recipients.length; ++i) {
            token.safeTransferFrom(msg.sender, recipients[i], amounts[i]);
        }
        emit Dispersed(msg.sender, address(token), total, recipients.length);
    }

    /// @dev Validates the batch shape and returns the sum of the amounts (checked arithmetic: an
    ///      overflowing sum reverts instead of wrapping).
    function _checkBatch(
        address[] calldata recipients,
        uint256[] calldata amounts
    ) private pure returns (uint256 total) {
        if (recipients.length == 0) revert MultisendEmptyBatch();
        if (recipients.length != amounts.length) {
            revert MultisendLengthMismatch(recipients.length, amounts.length);
        }
        for (uint256 i = 0; i < recipients.length; ++i) {
            if (recipients[i] == address(0)) revert MultisendZeroRecipient(i);
            total += amounts[i];
        }
    }
}
