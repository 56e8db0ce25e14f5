// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {ISemver} from "../interfaces/ISemver.sol";

/// @title Semver
/// @notice Reports the deployed contract's version as "MAJOR.MINOR.PATCH".
/// @dev The three parts are immutables, so the version costs no storage and cannot change.
abstract contract Semver is ISemver {
    uint256 private immutable _major;
    uint256 private immutable _minor;
    uint256 private immutable _patch;

    /// @param major Incompatible interface changes.
    /// @param minor Backwards-compatible additions.
    /// @param patch Backwards-compatible fixes.
    constructor(uint256 major, uint256 minor, uint256 patch) {
        _major = major;
        _minor = minor;
        _patch = patch;
    }

    /// @inheritdoc ISemver
    function version() external view returns (string memory) {
        return
            string.concat(
                Strings.toString(_major),
                ".",
                Strings.toString(_minor),
                ".",
                Strings.toString(_patch)
            );
    }
}
