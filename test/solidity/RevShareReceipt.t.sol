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
///         snapshots, claims and burns, checking each payment against the ERC-7641 formulas and
///         keeping ghost totals for the invariants.
contract RevShareReceiptHandler is TestBase {
    RevShareReceipt public immutable receipt;

    uint256 public paymentCount;
    uint256 public doubleClaims;
    uint256 public claimMismatches;
    uint256 public burnMismatches;
    mapping(uint256 snapshotId => uint256) public ghostClaimed;
    mapping(uint256 snapshotId => mapping(address account => uint256)) public successfulClaims;

    constructor(RevShareReceipt receipt_) {
        receipt = receipt_;
    }

    function issue(uint256 actorSeed, uint256 amount) external {
        amount = _bound(amount, 1, 1e30);
        receipt.issueReceipt(actorAt(actorSeed), amount, keccak256(abi.encode("payment", ++paymentCount)));
    }

    function transfer(uint256 fromSeed, uint256 toSeed, uint256 amount) external {
        address from = actorAt(fromSeed);
        amount = _bound(amount, 0, receipt.balanceOf(from));
        vm.prank(from);
        receipt.transfer(actorAt(toSeed), amount);
    }

    function pay(uint256 amount) external {
        amount = _bound(amount, 1, 1_000 ether);
        vm.deal(address(this), amount);
        (bool ok, ) = address(receipt).call{value: amount}("");
        require(ok, "revenue transfer failed");
    }

    function snapshot(uint256 extraTime) external {
        vm.warp(block.timestamp + INTERVAL + _bound(extraTime, 0, 7 days));
        receipt.snapshot();
    }

    function claim(uint256 actorSeed, uint256 snapshotSeed) external {
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
        } catch {}
    }

    function burn(uint256 actorSeed, uint256 amount) external {
        address account = actorAt(actorSeed);
        uint256 balance = receipt.balanceOf(account);
        if (balance == 0) return;
        amount = _bound(amount, 1, balance);
        uint256 pool = receipt.redeemablePool();
        uint256 expected = Math.mulDiv(pool, amount, receipt.totalSupply());
        uint256 balanceBefore = account.balance;
        vm.prank(account);
        receipt.burn(amount);
        if (account.balance - balanceBefore != expected) burnMismatches++;
        if (receipt.redeemablePool() != pool - expected) burnMismatches++;
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

    function invariant_eachHolderClaimsASnapshotOnce() public view {
        _assertEq(_handler.doubleClaims(), 0, "a holder claimed a snapshot twice");
        _assertEq(_handler.claimMismatches(), 0, "a claim paid other than claimableRevenue");
    }

    function invariant_burnPaysItsShareOfTheRedeemablePool() public view {
        _assertEq(_handler.burnMismatches(), 0, "a burn paid other than amount / totalSupply of the pool");
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
        _receipt.snapshot();

        address account = actorAt(burnSeed);
        uint256 balance = _receipt.balanceOf(account);
        vm.assume(balance != 0);
        amount = _bound(amount, 1, balance);
        uint256 pool = _receipt.redeemablePool();
        uint256 expected = Math.mulDiv(pool, amount, supply);
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
        uint256 snapshotId = _receipt.snapshot();
        address from = actorAt(fromSeed);
        address to = actorAt(toSeed);
        uint256 fromBefore = _receipt.balanceOf(from);
        uint256 toBefore = _receipt.balanceOf(to);
        amount = _bound(amount, 0, fromBefore);
        vm.prank(from);
        _receipt.transfer(to, amount);

        _assertEq(_receipt.balanceOfAt(from, snapshotId), fromBefore, "sender's snapshot balance");
        _assertEq(_receipt.balanceOfAt(to, snapshotId), toBefore, "receiver's snapshot balance");
        _assertEq(_receipt.totalSupplyAt(snapshotId), supply, "snapshot supply");

        vm.warp(block.timestamp + INTERVAL);
        uint256 next = _receipt.snapshot();
        _assertEq(_receipt.balanceOfAt(from, next), _receipt.balanceOf(from), "sender's new balance");
        _assertEq(_receipt.balanceOfAt(to, next), _receipt.balanceOf(to), "receiver's new balance");
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
        receipt.snapshot();

        // The re-entrant call reverts inside the payment, so sendValue bubbles the guard's error.
        vm.expectRevert(abi.encodeWithSignature("ReentrancyGuardReentrantCall()"));
        holder.claim(1);
        vm.expectRevert(abi.encodeWithSignature("ReentrancyGuardReentrantCall()"));
        holder.burn(10);
        _assertEq(address(receipt).balance, 1 ether, "no ETH left the receipt");
    }
}
