// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {CircuitBreakerGateway} from "../../contracts/CircuitBreakerGateway.sol";
import {ICircuitBreakerGateway} from "../../contracts/interfaces/ICircuitBreakerGateway.sol";
import {TestBase} from "./utils/TestBase.sol";

contract CircuitBreakerGatewayFuzzTest is TestBase {
    address private constant _GATEWAY = address(0xBEEF);

    function testFuzz_TriggerOpensOnlyAboveTheThreshold(uint256 threshold, uint256 failures, uint256 cooldown) public {
        threshold = _bound(threshold, 0, 40);
        failures = _bound(failures, 0, 60);
        cooldown = _bound(cooldown, 1, type(uint32).max);
        CircuitBreakerGateway breaker = new CircuitBreakerGateway(0, address(this), address(this), threshold, cooldown, 1 hours);
        for (uint256 i = 0; i < failures; i++) breaker.recordFailure(_GATEWAY);
        _assertEq(breaker.failureCount(_GATEWAY), failures, "count");

        if (failures <= threshold) {
            vm.expectRevert(bytes("Threshold not met"));
            breaker.trigger(_GATEWAY);
            _assertTrue(!breaker.isOpen(_GATEWAY), "opened at or below the threshold");
            return;
        }
        breaker.trigger(_GATEWAY);
        uint256 resetAt = block.timestamp + cooldown;
        _assertTrue(breaker.isOpen(_GATEWAY), "not opened above the threshold");
        _assertEq(breaker.resetAt(_GATEWAY), resetAt, "resetAt");

        vm.warp(resetAt - 1);
        _assertTrue(breaker.state(_GATEWAY) == ICircuitBreakerGateway.CircuitState.OPEN, "closed early");
        vm.warp(resetAt);
        _assertTrue(breaker.state(_GATEWAY) == ICircuitBreakerGateway.CircuitState.CLOSED, "still open");
        _assertEq(breaker.failureCount(_GATEWAY), 0, "count after reset");
        _assertEq(breaker.recordFailure(_GATEWAY), 1, "new count");
    }

    /// @notice Failures older than the window never add up: whatever the spacing of the failures,
    ///         the live count only holds failures since a window start at most `window` seconds ago.
    function testFuzz_FailuresDecayOverTheWindow(uint256 window, uint256[12] memory gaps) public {
        window = _bound(window, 1, 30 days);
        CircuitBreakerGateway breaker = new CircuitBreakerGateway(0, address(this), address(this), 10, 1 hours, window);
        // Time is tracked here: the optimizer may reuse a `block.timestamp` read across `vm.warp`.
        uint256 time = block.timestamp;
        uint256 windowStart;
        uint256 expected;
        for (uint256 i = 0; i < gaps.length; i++) {
            time += _bound(gaps[i], 0, 2 * window);
            vm.warp(time);
            if (expected == 0 || time >= windowStart + window) {
                windowStart = time;
                expected = 0;
            }
            _assertEq(breaker.recordFailure(_GATEWAY), ++expected, "count within the window");
            if (expected > 10) {
                breaker.trigger(_GATEWAY);
                _assertTrue(time - windowStart < window, "opened by failures older than the window");
                return;
            }
        }
    }
}
