// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {RevShareReceipt} from "../../contracts/RevShareReceipt.sol";
import {IRevShareReceipt} from "../../contracts/interfaces/IRevShareReceipt.sol";
import {TestBase} from "./utils/TestBase.sol";

uint256 constant INTERVAL = 1 days;
uint256 constant ACTORS = 4;

function actorAt(uint256 seed) pure returns (address) {
    return address(uint160(0xA11CE0 + (seed % ACTORS)));
}

/// @notice Drives a RevShareReceipt through random sequences of issuance, transfers, revenue,
///         time, snapshots, claims and burns. It keeps its own integral of every actor's balance over
///         time (the model of a fair share) and records it at each schedule boundary, so the
///         invariants compare the contract's weights with a model that knows nothing of its storage.
contract RevShareReceiptHandler is TestBase {
    RevShareReceipt public immutable receipt;

    uint256 public paymentCount;
    uint256 public doubleClaims;
    uint256 public claimMismatches;
    uint256 public burnMismatches;
    uint256 public revenuePaidIn;
    uint256 public totalClaimed;
    uint256 public totalRedeemed;
    mapping(uint256 snapshotId => uint256) public ghostClaimed;
    mapping(uint256 snapshotId => mapping(address account => uint256)) public successfulClaims;

    /// @dev Model time (the optimizer may reuse a `block.timestamp` read across `vm.warp`).
    uint256 public time;
    uint256 private _lastBoundary;
    mapping(address account => uint256) private _integral;
    mapping(uint256 boundary => mapping(address account => uint256)) private _integralAt;

    constructor(RevShareReceipt receipt_) {
        receipt = receipt_;
        time = block.timestamp;
        _lastBoundary = receipt_.scheduleStart();
    }

    /// @notice The model's token-seconds of `account` from the schedule start to `boundary`.
    function integralAt(uint256 boundary, address account) external view returns (uint256) {
        return _integralAt[boundary][account];
    }

    /// @dev Moves model time forward, integrating balances and recording every boundary crossed.
    function _advance(uint256 seconds_) private {
        uint256 interval = receipt.snapshotInterval();
        uint256 target = time + seconds_;
        while (_lastBoundary + interval <= target) {
            _integrate(_lastBoundary + interval);
            _lastBoundary += interval;
            for (uint256 i = 0; i < ACTORS; i++) _integralAt[_lastBoundary][actorAt(i)] = _integral[actorAt(i)];
        }
        _integrate(target);
        vm.warp(time);
    }

    function _integrate(uint256 to) private {
        for (uint256 i = 0; i < ACTORS; i++) {
            address account = actorAt(i);
            _integral[account] += receipt.balanceOf(account) * (to - time);
        }
        time = to;
    }

    function wait(uint256 seconds_) external {
        _advance(_bound(seconds_, 0, 3 * INTERVAL));
    }

    function issue(uint256 actorSeed, uint256 amount) external {
        vm.warp(time);
        amount = _bound(amount, 1, 1e30);
        receipt.issueReceipt(actorAt(actorSeed), amount, keccak256(abi.encode("payment", ++paymentCount)));
    }

    function transfer(uint256 fromSeed, uint256 toSeed, uint256 amount) external {
        vm.warp(time);
        address from = actorAt(fromSeed);
        amount = _bound(amount, 0, receipt.balanceOf(from));
        vm.prank(from);
        receipt.transfer(actorAt(toSeed), amount);
    }

    function pay(uint256 amount) external {
        vm.warp(time);
        amount = _bound(amount, 1, 1_000 ether);
        vm.deal(address(this), amount);
        (bool ok, ) = address(receipt).call{value: amount}("");
        require(ok, "revenue transfer failed");
        revenuePaidIn += amount;
    }

    function snapshot(uint256 extraTime) external {
        _advance(_bound(extraTime, 0, 2 * INTERVAL));
        if (receipt.nextSnapshotAt() > time) return;
        receipt.snapshot();
    }

    function claim(uint256 actorSeed, uint256 snapshotSeed) external {
        vm.warp(time);
        uint256 current = receipt.currentSnapshotId();
        if (current == 0) return;
        uint256 snapshotId = _bound(snapshotSeed, 1, current);
        address account = actorAt(actorSeed);
        uint256 expected = receipt.claimableRevenue(account, snapshotId);
        uint256 balanceBefore = account.balance;
        vm.prank(account);
        try receipt.claim(snapshotId) {
            if (++successfulClaims[snapshotId][account] > 1) doubleClaims++;
            uint256 paid = account.balance - balanceBefore;
            if (paid != expected || paid == 0) claimMismatches++;
            ghostClaimed[snapshotId] += paid;
            totalClaimed += paid;
        } catch {}
    }

    function burn(uint256 actorSeed, uint256 amount) external {
        vm.warp(time);
        address account = actorAt(actorSeed);
        uint256 balance = receipt.balanceOf(account);
        if (balance == 0) return;
        amount = _bound(amount, 1, balance);
        uint256 pool = receipt.redeemablePool();
        uint256 expected = receipt.redeemableOf(account, amount);
        uint256 balanceBefore = account.balance;
        vm.prank(account);
        receipt.burn(amount);
        uint256 paid = account.balance - balanceBefore;
        if (paid != expected) burnMismatches++;
        if (receipt.redeemablePool() != pool - paid) burnMismatches++;
        totalRedeemed += paid;
    }
}

/// @notice Invariants of the ERC-7641 receipt under random operation sequences.
contract RevShareReceiptInvariantTest is TestBase {
    RevShareReceipt private _receipt;
    RevShareReceiptHandler private _handler;

    function setUp() public {
        _receipt = new RevShareReceipt("Receipt", "RCPT", 0, address(this), address(0), 3_000, INTERVAL);
        _handler = new RevShareReceiptHandler(_receipt);
        _receipt.grantRole(_receipt.ISSUER_ROLE(), address(_handler));
        _targetContract(address(_handler));
    }

    function invariant_claimsNeverExceedSnapshotRevenue() public view {
        uint256 current = _receipt.currentSnapshotId();
        for (uint256 id = 1; id <= current; id++) {
            IRevShareReceipt.SnapshotInfo memory info = _receipt.snapshotInfo(id);
            _assertLe(info.claimedRevenue, info.claimableRevenue, "claimed above claimable");
            _assertEq(_handler.ghostClaimed(id), info.claimedRevenue, "claimed total drifted");
        }
    }

    function invariant_paymentsNeverExceedRevenue() public view {
        _assertLe(
            _handler.totalClaimed() + _handler.totalRedeemed(),
            _handler.revenuePaidIn(),
            "holders were paid more than the revenue received"
        );
    }

    function invariant_eachHolderClaimsASnapshotOnce() public view {
        _assertEq(_handler.doubleClaims(), 0, "a holder claimed a snapshot twice");
        _assertEq(_handler.claimMismatches(), 0, "a claim paid other than claimableRevenue");
    }

    function invariant_burnPaysWhatRedeemableOfAnnounced() public view {
        _assertEq(_handler.burnMismatches(), 0, "a burn paid other than redeemableOf");
    }

    /// @notice A holder's share of a snapshot is its time-weighted holding over the period, as the
    ///         handler's own model integrates it, whatever the interleaving of operations.
    function invariant_sharesAreProportionalToTimeWeightedHoldings() public view {
        uint256 current = _receipt.currentSnapshotId();
        uint256 previousEnd = _receipt.scheduleStart();
        for (uint256 id = 1; id <= current; id++) {
            IRevShareReceipt.SnapshotInfo memory info = _receipt.snapshotInfo(id);
            uint256 sum;
            for (uint256 i = 0; i < ACTORS; i++) {
                address account = actorAt(i);
                uint256 modelled = _handler.integralAt(info.timestamp, account) -
                    _handler.integralAt(previousEnd, account);
                _assertEq(_receipt.weightOf(account, id), modelled, "weight != modelled token-seconds");
                sum += modelled;
                if (!_receipt.hasClaimed(account, id)) {
                    _assertEq(
                        _receipt.claimableRevenue(account, id),
                        info.totalWeight == 0 ? 0 : Math.mulDiv(info.claimableRevenue, modelled, info.totalWeight),
                        "claim not proportional to the holding"
                    );
                }
            }
            _assertEq(sum, info.totalWeight, "weights do not sum to the total");
            previousEnd = info.timestamp;
        }
    }

    function invariant_solvent() public view {
        _assertLe(
            _receipt.redeemablePool() + _receipt.outstandingClaims(),
            address(_receipt).balance,
            "pools exceed the ETH held"
        );
    }

    function invariant_supplyIsTheSumOfBalances() public view {
        uint256 sum;
        for (uint256 i = 0; i < ACTORS; i++) sum += _receipt.balanceOf(actorAt(i));
        _assertEq(sum, _receipt.totalSupply(), "supply != sum of balances");
    }
}

/// @notice Stateless fuzz tests of the same properties on one snapshot.
contract RevShareReceiptFuzzTest is TestBase {
    RevShareReceipt private _receipt;

    function setUp() public {
        _receipt = new RevShareReceipt("Receipt", "RCPT", 0, address(this), address(this), 5_000, INTERVAL);
    }

    function _issueAll(uint256[4] memory balances) private returns (uint256 supply) {
        for (uint256 i = 0; i < ACTORS; i++) {
            balances[i] = _bound(balances[i], 0, 1e36);
            if (balances[i] == 0) continue;
            _receipt.issueReceipt(actorAt(i), balances[i], bytes32(i + 1));
            supply += balances[i];
        }
    }

    function testFuzz_ClaimsOfASnapshotNeverExceedItsRevenue(
        uint256[4] memory balances,
        uint256 revenue,
        uint256 claimShareBps
    ) public {
        claimShareBps = _bound(claimShareBps, 0, 10_000);
        _receipt = new RevShareReceipt("Receipt", "RCPT", 0, address(this), address(this), claimShareBps, INTERVAL);
        uint256 supply = _issueAll(balances);
        vm.assume(supply != 0);
        revenue = _bound(revenue, 0, 1e27);
        vm.deal(address(_receipt), revenue);
        vm.warp(block.timestamp + INTERVAL);
        uint256 snapshotId = _receipt.snapshot();

        uint256 claimable = _receipt.snapshotInfo(snapshotId).claimableRevenue;
        _assertEq(claimable, (revenue * claimShareBps) / 10_000, "claimable share");
        _assertEq(_receipt.redeemablePool(), revenue - claimable, "redeemable share");

        uint256 total;
        for (uint256 i = 0; i < ACTORS; i++) {
            address account = actorAt(i);
            uint256 share = _receipt.claimableRevenue(account, snapshotId);
            _assertEq(share, Math.mulDiv(claimable, balances[i], supply), "share formula");
            if (share == 0) continue;
            vm.prank(account);
            _receipt.claim(snapshotId);
            _assertEq(account.balance, share, "claim paid the share");
            total += share;

            vm.expectRevert(
                abi.encodeWithSelector(
                    IRevShareReceipt.RevShareReceiptAlreadyClaimed.selector,
                    account,
                    snapshotId
                )
            );
            vm.prank(account);
            _receipt.claim(snapshotId);
        }
        _assertLe(total, claimable, "claims exceed the snapshot's revenue");
        // Rounding down loses less than one wei per holder.
        _assertLe(claimable - total, ACTORS, "rounding dust");
        _assertEq(_receipt.snapshotInfo(snapshotId).claimedRevenue, total, "claimed total");
    }

    function testFuzz_BurnPaysItsShareOfTheRedeemablePool(
        uint256[4] memory balances,
        uint256 revenue,
        uint256 burnSeed,
        uint256 amount
    ) public {
        uint256 supply = _issueAll(balances);
        vm.assume(supply != 0);
        vm.deal(address(_receipt), _bound(revenue, 0, 1e27));
        vm.warp(block.timestamp + INTERVAL);
        _receipt.snapshot();

        address account = actorAt(burnSeed);
        uint256 balance = _receipt.balanceOf(account);
        vm.assume(balance != 0);
        amount = _bound(amount, 1, balance);
        uint256 pool = _receipt.redeemablePool();
        // Every holder held its balance over the whole period: its accrual is its balance's share.
        uint256 expected = Math.mulDiv(Math.mulDiv(pool, balance, supply), amount, balance);
        _assertEq(_receipt.redeemableOf(account, amount), expected, "redeemableOf");
        vm.prank(account);
        _assertEq(_receipt.redeemableOnBurn(amount), expected, "redeemableOnBurn");

        vm.prank(account);
        _receipt.burn(amount);
        _assertEq(account.balance, expected, "burn payout");
        _assertEq(_receipt.redeemablePool(), pool - expected, "pool after burn");
        _assertEq(_receipt.totalSupply(), supply - amount, "supply after burn");
    }

    function testFuzz_SnapshotBalancesIgnoreLaterTransfers(
        uint256[4] memory balances,
        uint256 fromSeed,
        uint256 toSeed,
        uint256 amount
    ) public {
        uint256 supply = _issueAll(balances);
        uint256 time = block.timestamp + INTERVAL;
        vm.warp(time);
        uint256 snapshotId = _receipt.snapshot();
        address from = actorAt(fromSeed);
        address to = actorAt(toSeed);
        uint256 fromBefore = _receipt.balanceOf(from);
        uint256 toBefore = _receipt.balanceOf(to);
        amount = _bound(amount, 0, fromBefore);
        vm.warp(time + 1);
        vm.prank(from);
        _receipt.transfer(to, amount);

        _assertEq(_receipt.balanceOfAt(from, snapshotId), fromBefore, "sender's snapshot balance");
        _assertEq(_receipt.balanceOfAt(to, snapshotId), toBefore, "receiver's snapshot balance");
        _assertEq(_receipt.totalSupplyAt(snapshotId), supply, "snapshot supply");

        vm.warp(time + INTERVAL);
        uint256 next = _receipt.snapshot();
        _assertEq(_receipt.balanceOfAt(from, next), _receipt.balanceOf(from), "sender's new balance");
        _assertEq(_receipt.balanceOfAt(to, next), _receipt.balanceOf(to), "receiver's new balance");
    }

    /// @notice The reported attack: 900 tokens held for one block across a snapshot against 100
    ///         held all period took 4.5 of 5 ETH. Now the one-block holding weighs one second.
    function testFuzz_HoldingAcrossASnapshotTakesOnlyItsTimeWeightedShare(
        uint256 holderAmount,
        uint256 attackerAmount,
        uint256 heldFor,
        uint256 revenue
    ) public {
        holderAmount = _bound(holderAmount, 1, 1e30);
        attackerAmount = _bound(attackerAmount, 1, 1e30);
        heldFor = _bound(heldFor, 1, INTERVAL);
        revenue = _bound(revenue, 1 ether, 1e27);
        uint256 start = _receipt.scheduleStart();
        address holder = actorAt(0);
        address attacker = actorAt(1);
        _receipt.issueReceipt(holder, holderAmount, bytes32(uint256(1)));
        vm.warp(start + INTERVAL - heldFor);
        _receipt.issueReceipt(attacker, attackerAmount, bytes32(uint256(2)));
        vm.deal(address(_receipt), revenue);
        vm.warp(start + INTERVAL);
        uint256 snapshotId = _receipt.snapshot();
        // The attacker leaves right after the snapshot.
        vm.prank(attacker);
        _receipt.transfer(holder, attackerAmount);

        uint256 claimable = _receipt.snapshotInfo(snapshotId).claimableRevenue;
        uint256 attackerWeight = attackerAmount * heldFor;
        uint256 totalWeight = holderAmount * INTERVAL + attackerWeight;
        _assertEq(_receipt.weightOf(attacker, snapshotId), attackerWeight, "attacker weight");
        _assertEq(_receipt.snapshotInfo(snapshotId).totalWeight, totalWeight, "total weight");
        _assertEq(
            _receipt.claimableRevenue(attacker, snapshotId),
            Math.mulDiv(claimable, attackerWeight, totalWeight),
            "attacker's claim is its time-weighted share"
        );
        // Redemption accrued by the same weights; the attacker holds nothing now and redeems nothing.
        _assertEq(_receipt.redeemableOf(attacker, 1), 0, "no balance, no redemption");
    }

    /// @notice The reported attack: a receipt issued after the revenue was allocated and burned at
    ///         once redeemed half the pool. It held nothing over any allocated period: it redeems 0.
    function testFuzz_AFreshReceiptBurnedAtOnceRedeemsNothing(uint256 holderAmount, uint256 freshAmount) public {
        holderAmount = _bound(holderAmount, 1, 1e30);
        freshAmount = _bound(freshAmount, 1, 1e30);
        _receipt.issueReceipt(actorAt(0), holderAmount, bytes32(uint256(1)));
        vm.deal(address(_receipt), 10 ether);
        vm.warp(_receipt.scheduleStart() + INTERVAL);
        _receipt.snapshot();
        uint256 pool = _receipt.redeemablePool();
        _assertTrue(pool > 0, "no pool");

        address fresh = actorAt(1);
        _receipt.issueReceipt(fresh, freshAmount, bytes32(uint256(2)));
        _assertEq(_receipt.redeemableOf(fresh, freshAmount), 0, "fresh receipt redeems");
        vm.prank(fresh);
        _receipt.burn(freshAmount);
        _assertEq(fresh.balance, 0, "fresh receipt was paid");
        _assertEq(_receipt.redeemablePool(), pool, "pool moved");
        // The holder of the period still redeems its whole share.
        vm.prank(actorAt(0));
        _receipt.burn(holderAmount);
        _assertEq(actorAt(0).balance, pool, "holder's share");
    }

    function testFuzz_SnapshotsFollowTheFixedSchedule(uint256 callAt) public {
        uint256 start = _receipt.scheduleStart();
        callAt = _bound(callAt, 0, 10 * INTERVAL);
        vm.warp(start + callAt);
        if (callAt < INTERVAL) {
            vm.expectRevert(
                abi.encodeWithSelector(IRevShareReceipt.RevShareReceiptSnapshotTooSoon.selector, start + INTERVAL)
            );
            _receipt.snapshot();
            return;
        }
        uint256 snapshotId = _receipt.snapshot();
        uint256 end = start + (callAt / INTERVAL) * INTERVAL;
        _assertEq(_receipt.snapshotInfo(snapshotId).timestamp, end, "period ends on a boundary");
        _assertEq(_receipt.nextSnapshotAt(), end + INTERVAL, "next boundary");
        vm.expectRevert(
            abi.encodeWithSelector(IRevShareReceipt.RevShareReceiptSnapshotTooSoon.selector, end + INTERVAL)
        );
        _receipt.snapshot();
    }

    function testFuzz_PaymentRefIsUsedOnce(bytes32 paymentRef, uint256 amount) public {
        vm.assume(paymentRef != bytes32(0));
        amount = _bound(amount, 1, 1e30);
        _receipt.issueReceipt(actorAt(0), amount, paymentRef);
        vm.expectRevert(
            abi.encodeWithSelector(IRevShareReceipt.RevShareReceiptDuplicatePaymentRef.selector, paymentRef)
        );
        _receipt.issueReceipt(actorAt(1), amount, paymentRef);
    }
}

/// @notice A holder that re-enters `claim` or `burn` from its receive hook.
contract ReentrantHolder {
    RevShareReceipt private immutable _receipt;
    bool private _reenterClaim;

    constructor(RevShareReceipt receipt_) {
        _receipt = receipt_;
    }

    function claim(uint256 snapshotId) external {
        _reenterClaim = true;
        _receipt.claim(snapshotId);
    }

    function burn(uint256 amount) external {
        _reenterClaim = false;
        _receipt.burn(amount);
    }

    receive() external payable {
        if (_reenterClaim) _receipt.claim(1);
        else _receipt.burn(1);
    }
}

contract RevShareReceiptReentrancyTest is TestBase {
    function test_ClaimAndBurnCannotBeReentered() public {
        RevShareReceipt receipt = new RevShareReceipt("R", "R", 0, address(this), address(this), 5_000, INTERVAL);
        ReentrantHolder holder = new ReentrantHolder(receipt);
        receipt.issueReceipt(address(holder), 100, bytes32(uint256(1)));
        vm.deal(address(receipt), 1 ether);
        vm.warp(block.timestamp + INTERVAL);
        receipt.snapshot();

        // The re-entrant call reverts inside the payment, so sendValue bubbles the guard's error.
        vm.expectRevert(abi.encodeWithSignature("ReentrancyGuardReentrantCall()"));
        holder.claim(1);
        vm.expectRevert(abi.encodeWithSignature("ReentrancyGuardReentrantCall()"));
        holder.burn(10);
        _assertEq(address(receipt).balance, 1 ether, "no ETH left the receipt");
    }
}
