// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControlDefaultAdminRules} from "@openzeppelin/contracts/access/extensions/AccessControlDefaultAdminRules.sol";
import {ICircuitBreakerGateway} from "./interfaces/ICircuitBreakerGateway.sol";
import {Semver} from "./utils/Semver.sol";

/// @title CircuitBreakerGateway
/// @notice Per-gateway failure counting and circuit opening with a timed, transaction-free reset.
/// @dev See {ICircuitBreakerGateway}.
contract CircuitBreakerGateway is ICircuitBreakerGateway, AccessControlDefaultAdminRules, Semver {
    /// @inheritdoc ICircuitBreakerGateway
    bytes32 public constant REPORTER_ROLE = keccak256("REPORTER_ROLE");

    /// @dev One slot per gateway. `openUntil` is zero while the circuit never opened (or was reset);
    ///      once `block.timestamp >= openUntil` the stored failures are stale and read as zero, and so
    ///      they are once `block.timestamp >= windowStart + failureWindow`.
    struct Circuit {
        uint128 failures;
        uint64 windowStart;
        uint64 openUntil;
    }

    uint256 private immutable _threshold;
    uint256 private immutable _cooldown;
    uint256 private immutable _failureWindow;
    mapping(address gateway => Circuit) private _circuits;

    /// @param initialAdminDelay Seconds a new default admin must wait before accepting (two-step handover).
    /// @param initialAdmin The default admin (grants roles, resets circuits early).
    /// @param reporter Account granted `REPORTER_ROLE` at deployment (the relayer); zero to grant none.
    /// @param threshold_ Failures must be greater than this to open a circuit (the spec's default is 10).
    /// @param cooldown_ Seconds an opened circuit stays open; non-zero.
    /// @param failureWindow_ Seconds a failure count covers from its first failure; non-zero.
    constructor(
        uint48 initialAdminDelay,
        address initialAdmin,
        address reporter,
        uint256 threshold_,
        uint256 cooldown_,
        uint256 failureWindow_
    ) AccessControlDefaultAdminRules(initialAdminDelay, initialAdmin) Semver(2, 0, 0) {
        // Bounded so that `block.timestamp + cooldown` always fits the 64-bit `openUntil`.
        if (cooldown_ == 0 || cooldown_ > type(uint32).max) revert CircuitBreakerInvalidCooldown();
        if (failureWindow_ == 0 || failureWindow_ > type(uint32).max) revert CircuitBreakerInvalidWindow();
        _threshold = threshold_;
        _cooldown = cooldown_;
        _failureWindow = failureWindow_;
        if (reporter != address(0)) _grantRole(REPORTER_ROLE, reporter);
    }

    /// @inheritdoc ICircuitBreakerGateway
    function recordFailure(
        address gateway
    ) external onlyRole(REPORTER_ROLE) returns (uint256 failures) {
        if (gateway == address(0)) revert CircuitBreakerInvalidGateway();
        Circuit storage circuit = _circuits[gateway];
        uint256 openUntil = circuit.openUntil;
        if (openUntil != 0 && block.timestamp < openUntil) revert CircuitBreakerOpenCircuit(gateway, openUntil);
        if (
            openUntil != 0 || circuit.failures == 0 || block.timestamp >= circuit.windowStart + _failureWindow
        ) {
            // The circuit expired, there is no count yet, or the count's window passed: a new count
            // (and its window) starts here.
            circuit.openUntil = 0;
            circuit.failures = 0;
            circuit.windowStart = uint64(block.timestamp);
        }
        // Cannot overflow: one failure per transaction never reaches 2^128.
        unchecked {
            failures = circuit.failures + 1;
        }
        circuit.failures = uint128(failures);
        emit FailureRecorded(gateway, msg.sender, failures);
    }

    /// @inheritdoc ICircuitBreakerGateway
    function trigger(address gateway) external {
        Circuit storage circuit = _circuits[gateway];
        uint256 openUntil = circuit.openUntil;
        if (openUntil != 0 && block.timestamp < openUntil) {
            revert CircuitBreakerOpenCircuit(gateway, openUntil);
        }
        uint256 failures = _failuresOf(circuit);
        // The message is fixed by the interface spec; off-chain callers match on it.
        // solhint-disable-next-line gas-custom-errors
        require(failures > _threshold, "Threshold not met");

        uint256 resetTime = block.timestamp + _cooldown;
        circuit.openUntil = uint64(resetTime); // fits: cooldown is bounded at deployment
        emit CircuitOpened(gateway, failures, resetTime);
    }

    /// @inheritdoc ICircuitBreakerGateway
    function reset(address gateway) external onlyRole(DEFAULT_ADMIN_ROLE) {
        Circuit storage circuit = _circuits[gateway];
        if (!_isOpen(circuit) && _failuresOf(circuit) == 0) revert CircuitBreakerNothingToReset(gateway);
        delete _circuits[gateway];
        emit CircuitReset(gateway, msg.sender);
    }

    /// @inheritdoc ICircuitBreakerGateway
    function state(address gateway) external view returns (CircuitState) {
        return _isOpen(_circuits[gateway]) ? CircuitState.OPEN : CircuitState.CLOSED;
    }

    /// @inheritdoc ICircuitBreakerGateway
    function isOpen(address gateway) external view returns (bool) {
        return _isOpen(_circuits[gateway]);
    }

    /// @inheritdoc ICircuitBreakerGateway
    function failureCount(address gateway) external view returns (uint256) {
        return _failuresOf(_circuits[gateway]);
    }

    /// @inheritdoc ICircuitBreakerGateway
    function resetAt(address gateway) external view returns (uint256) {
        Circuit storage circuit = _circuits[gateway];
        return _isOpen(circuit) ? circuit.openUntil : 0;
    }

    /// @inheritdoc ICircuitBreakerGateway
    function threshold() external view returns (uint256) {
        return _threshold;
    }

    /// @inheritdoc ICircuitBreakerGateway
    function cooldown() external view returns (uint256) {
        return _cooldown;
    }

    /// @inheritdoc ICircuitBreakerGateway
    function failureWindow() external view returns (uint256) {
        return _failureWindow;
    }

    /// @notice ERC-165: ICircuitBreakerGateway, AccessControl and its default-admin rules.
    /// @param interfaceId The interface id.
    /// @return True when supported.
    function supportsInterface(bytes4 interfaceId) public view override returns (bool) {
        return interfaceId == type(ICircuitBreakerGateway).interfaceId || super.supportsInterface(interfaceId);
    }

    /// @dev The live count: zero once an opened circuit expired or the count's window passed. While
    ///      open the count is the one that opened it.
    function _failuresOf(Circuit storage circuit) private view returns (uint256) {
        uint256 openUntil = circuit.openUntil;
        if (openUntil != 0) return block.timestamp < openUntil ? circuit.failures : 0;
        return block.timestamp < circuit.windowStart + _failureWindow ? circuit.failures : 0;
    }

    function _isOpen(Circuit storage circuit) private view returns (bool) {
        return block.timestamp < circuit.openUntil;
    }
}
