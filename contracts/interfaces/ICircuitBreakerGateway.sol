// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ISemver} from "./ISemver.sol";

/// @title ICircuitBreakerGateway
/// @notice A per-gateway circuit breaker that off-chain callers consult before routing through a
///         gateway (an exchange router, a bridge, an external API's settlement address).
///
/// @dev Life of a gateway's circuit:
///      - CLOSED: reporters (`REPORTER_ROLE`) record failures with `recordFailure`; the count is public.
///        Failures decay: a count covers at most `failureWindow()` seconds from its first failure;
///        a failure after that starts a new count at one (and the stale count reads zero), so
///        failures spread thinly over a long time never open a circuit.
///      - `trigger(gateway)` (callable by anyone: it only acts on failures the reporters recorded)
///        opens the circuit when the count is strictly greater than `threshold()`; otherwise it
///        reverts with the exact message "Threshold not met".
///      - OPEN: `resetAt = block.timestamp + cooldown()`. Failures cannot be recorded and the circuit
///        cannot be triggered again while it is open.
///      - At `resetAt` the circuit reads CLOSED again without any transaction and the failure count
///        starts from zero. An admin (`DEFAULT_ADMIN_ROLE`) can close an open circuit early, or clear a
///        closed circuit's count, with `reset`.
interface ICircuitBreakerGateway is ISemver {
    /// @notice State of a gateway's circuit.
    enum CircuitState {
        CLOSED,
        OPEN
    }

    /// @notice The zero address was given as a gateway.
    error CircuitBreakerInvalidGateway();

    /// @notice The cooldown given at deployment is zero (an opened circuit would close at once).
    error CircuitBreakerInvalidCooldown();

    /// @notice The gateway's circuit is open until `resetAt`; the call is not allowed meanwhile.
    /// @param gateway The gateway.
    /// @param resetAt When the circuit closes by itself.
    error CircuitBreakerOpenCircuit(address gateway, uint256 resetAt);

    /// @notice The failure window given at deployment is zero or above 2^32 - 1 seconds.
    error CircuitBreakerInvalidWindow();

    /// @notice `reset` was called for a gateway whose circuit is closed with no failures counted.
    /// @param gateway The gateway.
    error CircuitBreakerNothingToReset(address gateway);

    /// @notice A reporter recorded a failure of `gateway`.
    /// @param gateway The gateway.
    /// @param reporter The reporter.
    /// @param failures The gateway's failure count after this one.
    event FailureRecorded(address indexed gateway, address indexed reporter, uint256 failures);

    /// @notice The gateway's circuit opened.
    /// @param gateway The gateway.
    /// @param failures The failure count that opened it.
    /// @param resetAt When the circuit closes by itself.
    event CircuitOpened(address indexed gateway, uint256 failures, uint256 resetAt);

    /// @notice An admin closed the gateway's open circuit before `resetAt`, or cleared its count.
    /// @param gateway The gateway.
    /// @param admin The admin who reset it.
    event CircuitReset(address indexed gateway, address indexed admin);

    /// @notice Role allowed to record failures (`keccak256("REPORTER_ROLE")`).
    /// @return The role id.
    function REPORTER_ROLE() external view returns (bytes32);

    /// @notice Records one failure of `gateway`. Caller must hold `REPORTER_ROLE`; the circuit must be closed.
    /// @param gateway The gateway that failed.
    /// @return failures The gateway's failure count after this one.
    function recordFailure(address gateway) external returns (uint256 failures);

    /// @notice Opens the gateway's circuit if its failure count is greater than `threshold()`.
    /// @dev Reverts with "Threshold not met" when the count is not greater than the threshold.
    /// @param gateway The gateway.
    function trigger(address gateway) external;

    /// @notice Closes an open circuit before its `resetAt`, or clears a closed circuit's failure
    ///         count. Admin only; reverts with `CircuitBreakerNothingToReset` when neither applies.
    /// @param gateway The gateway.
    function reset(address gateway) external;

    /// @notice The gateway's circuit state now (an expired OPEN reads CLOSED).
    /// @param gateway The gateway.
    /// @return The state.
    function state(address gateway) external view returns (CircuitState);

    /// @notice Whether the gateway's circuit is open now.
    /// @param gateway The gateway.
    /// @return True while OPEN.
    function isOpen(address gateway) external view returns (bool);

    /// @notice The gateway's current failure count (zero again once an opened circuit has expired
    ///         or once the count's window has passed).
    /// @param gateway The gateway.
    /// @return The count.
    function failureCount(address gateway) external view returns (uint256);

    /// @notice When the gateway's open circuit closes by itself; zero when the circuit is closed.
    /// @param gateway The gateway.
    /// @return A Unix time in seconds, or zero.
    function resetAt(address gateway) external view returns (uint256);

    /// @notice Failures must be strictly greater than this to open a circuit (set at deployment).
    /// @return The threshold.
    function threshold() external view returns (uint256);

    /// @notice Seconds an opened circuit stays open (set at deployment).
    /// @return The cooldown.
    function cooldown() external view returns (uint256);

    /// @notice Seconds a failure count covers from its first failure (set at deployment).
    /// @return The window.
    function failureWindow() external view returns (uint256);
}
