// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title IMultisend
/// @notice Sends ether or one ERC-20 token to many recipients in one transaction (Disperse-style).
///         Every transfer goes straight from the sender (ERC-20: through `transferFrom`, so the
///         sender approves this contract for the total first) to the recipient; nothing is held here.
interface IMultisend {
    /// @notice Emitted after a batch was sent.
    /// @param sender Who paid.
    /// @param token The ERC-20 sent, or the zero address for ether.
    /// @param total Sum of all amounts, in base units.
    /// @param recipients Number of recipients.
    event Dispersed(address indexed sender, address indexed token, uint256 total, uint256 recipients);

    /// @notice The batch has no recipients.
    error MultisendEmptyBatch();

    /// @notice `recipients` and `amounts` differ in length.
    /// @param recipients Length of the recipients array.
    /// @param amounts Length of the amounts array.
    error MultisendLengthMismatch(uint256 recipients, uint256 amounts);

    /// @notice A recipient is the zero address.
    /// @param index Position of the recipient in the batch.
    error MultisendZeroRecipient(uint256 index);

    /// @notice The ether sent differs from the sum of the amounts.
    /// @param expected Sum of the amounts.
    /// @param received `msg.value`.
    error MultisendValueMismatch(uint256 expected, uint256 received);

    /// @notice An ether transfer to a recipient failed (the recipient reverted or has no payable fallback).
    /// @param recipient The recipient that refused the ether.
    error MultisendEtherTransferFailed(address recipient);

    /// @notice Sends ether: `msg.value` must equal the sum of `amounts`.
    /// @param recipients Recipients, in order.
    /// @param amounts Wei per recipient.
    function disperseEther(address[] calldata recipients, uint256[] calldata amounts) external payable;

    /// @notice Sends `token` from the caller to each recipient; the caller approves the total first.
    /// @param token The ERC-20 to send.
    /// @param recipients Recipients, in order.
    /// @param amounts Base units per recipient.
    function disperseToken(IERC20 token, address[] calldata recipients, uint256[] calldata amounts) external;
}
