// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title ISemver
/// @notice A contract that reports its version as a semantic version string.
/// @dev Veriflow contracts are not upgradeable: a new version is a new deployment, and off-chain
///      readers check `version()` to know which interface and behaviour they are talking to.
interface ISemver {
    /// @notice The semantic version of this contract, e.g. "1.0.0".
    /// @return The version as "MAJOR.MINOR.PATCH".
    function version() external view returns (string memory);
}
