// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// @notice The few Foundry-compatible cheatcodes these tests use (served by Hardhat's EDR at the
///         standard cheatcode address). Declared here rather than pulling forge-std, which is not
///         an npm-installable dependency in this offline toolchain.
interface Vm {
    function prank(address msgSender) external;
    function deal(address account, uint256 newBalance) external;
    function warp(uint256 newTimestamp) external;
    function assume(bool condition) external pure;
    function addr(uint256 privateKey) external pure returns (address);
    function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);
    function expectRevert(bytes calldata revertData) external;
    function expectRevert(bytes4 revertData) external;
    function chainId(uint256 newChainId) external;
}

/// @notice Minimal test base: cheatcodes, bounded fuzz inputs, assertions that revert with a message
///         (a reverting test or invariant fails), and invariant target selection.
abstract contract TestBase {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    address[] private _targetContracts;

    /// @dev Read by the invariant runner: only these contracts receive random calls.
    function targetContracts() public view returns (address[] memory) {
        return _targetContracts;
    }

    function _targetContract(address target) internal {
        _targetContracts.push(target);
    }

    /// @dev Maps any fuzzed `x` into [min, max] without rejecting runs.
    function _bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
        require(min <= max, "bound: min > max");
        if (x >= min && x <= max) return x;
        uint256 size = max - min;
        if (size == type(uint256).max) return x;
        return min + (x % (size + 1));
    }

    function _assertTrue(bool condition, string memory message) internal pure {
        require(condition, message);
    }

    function _assertEq(uint256 actual, uint256 expected, string memory message) internal pure {
        if (actual != expected) {
            revert(string.concat(message, ": ", Strings.toString(actual), " != ", Strings.toString(expected)));
        }
    }

    function _assertEq(bytes32 actual, bytes32 expected, string memory message) internal pure {
        require(actual == expected, message);
    }

    function _assertEq(address actual, address expected, string memory message) internal pure {
        require(actual == expected, message);
    }

    function _assertLe(uint256 a, uint256 b, string memory message) internal pure {
        if (a > b) revert(string.concat(message, ": ", Strings.toString(a), " > ", Strings.toString(b)));
    }
}
