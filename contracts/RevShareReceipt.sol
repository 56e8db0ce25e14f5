// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControlDefaultAdminRules} from "@openzeppelin/contracts/access/extensions/AccessControlDefaultAdminRules.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {IERC7641} from "./interfaces/IERC7641.sol";
import {IRevShareReceipt} from "./interfaces/IRevShareReceipt.sol";
import {Semver} from "./utils/Semver.sol";

/// @title RevShareReceipt
/// @notice ERC-7641 payment receipt token: minted once per settled payment, shares ETH revenue
///         through scheduled snapshots (claim) and a redeemable pool (burn), both by time-weighted
///         holdings.
/// @dev See {IRevShareReceipt} for the accounting. OpenZeppelin 5 has no ERC20Snapshot; balances and
///      supply are kept as time-keyed points carrying the running integral of the balance over time,
///      so the token-seconds between any two past times are two binary searches away.
contract RevShareReceipt is
    IRevShareReceipt,
    ERC20,
    AccessControlDefaultAdminRules,
    ReentrancyGuard,
    Semver
{
    /// @inheritdoc IRevShareReceipt
    bytes32 public constant ISSUER_ROLE = keccak256("ISSUER_ROLE");

    uint256 private constant _BPS = 10_000;
    /// @dev Balances fit the points' 208 bits because the supply is capped here on mint.
    uint256 private constant _MAX_SUPPLY = type(uint208).max;

    /// @dev A balance from `time` on, and the integral of the balance over time up to `time`.
    struct Point {
        uint48 time;
        uint208 balance;
        uint256 cumulative;
    }

    struct Snapshot {
        uint48 end;
        uint256 claimableRevenue;
        uint256 claimedRevenue;
        uint256 redeemableAdded;
        uint256 totalWeight;
    }

    uint256 private immutable _claimShareBps;
    uint256 private immutable _snapshotInterval;
    uint256 private immutable _scheduleStart;

    uint256 private _currentSnapshotId;
    uint256 private _redeemablePool;
    uint256 private _outstandingClaims;

    mapping(uint256 snapshotId => Snapshot) private _snapshots;
    mapping(uint256 snapshotId => mapping(address account => bool)) private _claimed;
    mapping(address account => Point[]) private _points;
    Point[] private _supplyPoints;
    mapping(address account => uint256) private _accruedRedemption;
    mapping(address account => uint256) private _accruedThrough;
    mapping(bytes32 paymentRef => bool) private _receipted;

    /// @param name_ ERC-20 name.
    /// @param symbol_ ERC-20 symbol.
    /// @param initialAdminDelay Seconds a new default admin must wait before accepting (two-step handover).
    /// @param initialAdmin The default admin (grants and revokes roles).
    /// @param issuer Account granted `ISSUER_ROLE` at deployment (the relayer); zero to grant none.
    /// @param claimShareBps_ The claimable share `p` of each snapshot's revenue, in basis points (0..10 000).
    /// @param snapshotInterval_ Length of a schedule period in seconds; non-zero.
    constructor(
        string memory name_,
        string memory symbol_,
        uint48 initialAdminDelay,
        address initialAdmin,
        address issuer,
        uint256 claimShareBps_,
        uint256 snapshotInterval_
    )
        ERC20(name_, symbol_)
        AccessControlDefaultAdminRules(initialAdminDelay, initialAdmin)
        Semver(2, 0, 0)
    {
        if (claimShareBps_ > _BPS) revert RevShareReceiptInvalidClaimShare(claimShareBps_);
        // Bounded so that schedule boundaries stay far inside the points' 48-bit times.
        if (snapshotInterval_ == 0 || snapshotInterval_ > type(uint32).max) {
            revert RevShareReceiptInvalidSnapshotInterval();
        }
        _claimShareBps = claimShareBps_;
        _snapshotInterval = snapshotInterval_;
        _scheduleStart = block.timestamp;
        if (issuer != address(0)) _grantRole(ISSUER_ROLE, issuer);
    }

    /// @notice ETH sent to the receipt is revenue, allocated at the next snapshot.
    receive() external payable {
        emit RevenueReceived(msg.sender, msg.value);
    }

    // ---------------------------------------------------------------- receipts

    /// @inheritdoc IRevShareReceipt
    function issueReceipt(
        address to,
        uint256 amount,
        bytes32 paymentRef
    ) external onlyRole(ISSUER_ROLE) {
        if (paymentRef == bytes32(0)) revert RevShareReceiptInvalidPaymentRef();
        if (amount == 0) revert RevShareReceiptZeroAmount();
        if (_receipted[paymentRef]) revert RevShareReceiptDuplicatePaymentRef(paymentRef);
        _receipted[paymentRef] = true;
        _mint(to, amount);
        emit ReceiptIssued(to, paymentRef, amount);
    }

    /// @inheritdoc IRevShareReceipt
    function isReceipted(bytes32 paymentRef) external view returns (bool) {
        return _receipted[paymentRef];
    }

    // ---------------------------------------------------------------- ERC-7641

    /// @inheritdoc IERC7641
    function snapshot() external returns (uint256 snapshotId) {
        uint256 previous = _currentSnapshotId;
        uint256 start = _periodStart(previous);
        uint256 end = _latestBoundary();
        if (end <= start) revert RevShareReceiptSnapshotTooSoon(start + _snapshotInterval);

        uint256 totalWeight = _weightBetween(_supplyPoints, start, end);
        uint256 claimable;
        uint256 redeemableAdded;
        // Nobody held anything over the period, so nobody could claim or redeem: the revenue waits
        // for the next snapshot.
        if (totalWeight != 0) {
            uint256 revenue = _unallocatedRevenue();
            claimable = (revenue * _claimShareBps) / _BPS;
            redeemableAdded = revenue - claimable;
            _outstandingClaims += claimable;
            _redeemablePool += redeemableAdded;
        }

        snapshotId = previous + 1;
        _currentSnapshotId = snapshotId;
        _snapshots[snapshotId] = Snapshot({
            end: uint48(end), // a boundary at or before now
            claimableRevenue: claimable,
            claimedRevenue: 0,
            redeemableAdded: redeemableAdded,
            totalWeight: totalWeight
        });
        emit SnapshotTaken(snapshotId, claimable, redeemableAdded, _heldAtEnd(_supplyPoints, end));
    }

    /// @inheritdoc IERC7641
    function claimableRevenue(address account, uint256 snapshotId) external view returns (uint256) {
        _requireSnapshot(snapshotId);
        if (_claimed[snapshotId][account]) return 0;
        Snapshot storage snap = _snapshots[snapshotId];
        return _shareOf(snap.claimableRevenue, account, snapshotId);
    }

    /// @inheritdoc IERC7641
    function claim(uint256 snapshotId) external nonReentrant {
        _requireSnapshot(snapshotId);
        if (_claimed[snapshotId][msg.sender]) {
            revert RevShareReceiptAlreadyClaimed(msg.sender, snapshotId);
        }
        Snapshot storage snap = _snapshots[snapshotId];
        uint256 amount = _shareOf(snap.claimableRevenue, msg.sender, snapshotId);
        if (amount == 0) revert RevShareReceiptNothingToClaim(msg.sender, snapshotId);

        _claimed[snapshotId][msg.sender] = true;
        // Shares are rounded down and the weights of one period sum to its total weight, so the
        // claims of one snapshot never exceed its claimable revenue, part of `_outstandingClaims`.
        snap.claimedRevenue += amount;
        _outstandingClaims -= amount;
        emit RevenueClaimed(msg.sender, snapshotId, amount);
        Address.sendValue(payable(msg.sender), amount);
    }

    /// @inheritdoc IERC7641
    function redeemableOnBurn(uint256 amount) external view returns (uint256) {
        return _redeemableOf(msg.sender, amount);
    }

    /// @inheritdoc IRevShareReceipt
    function redeemableOf(address account, uint256 amount) external view returns (uint256) {
        return _redeemableOf(account, amount);
    }

    /// @inheritdoc IERC7641
    function burn(uint256 amount) external nonReentrant {
        if (amount == 0) revert RevShareReceiptZeroAmount();
        uint256 balance = balanceOf(msg.sender);
        uint256 accrued = _accrue(msg.sender, type(uint256).max);
        // `_burn` reverts below for an amount above the balance, so the division sees balance > 0.
        uint256 redeemed = balance == 0 ? 0 : Math.mulDiv(accrued, amount, balance);
        _burn(msg.sender, amount);
        _accruedRedemption[msg.sender] = accrued - redeemed;
        _redeemablePool -= redeemed;
        emit Redeemed(msg.sender, amount, redeemed);
        if (redeemed != 0) Address.sendValue(payable(msg.sender), redeemed);
    }

    /// @inheritdoc IRevShareReceipt
    function accrueRedemption(uint256 maxSnapshots) external returns (uint256 accrued) {
        return _accrue(msg.sender, maxSnapshots);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IRevShareReceipt
    function currentSnapshotId() external view returns (uint256) {
        return _currentSnapshotId;
    }

    /// @inheritdoc IRevShareReceipt
    function nextSnapshotAt() external view returns (uint256) {
        return _periodStart(_currentSnapshotId) + _snapshotInterval;
    }

    /// @inheritdoc IRevShareReceipt
    function scheduleStart() external view returns (uint256) {
        return _scheduleStart;
    }

    /// @inheritdoc IRevShareReceipt
    function snapshotInfo(uint256 snapshotId) external view returns (SnapshotInfo memory) {
        _requireSnapshot(snapshotId);
        Snapshot storage snap = _snapshots[snapshotId];
        return
            SnapshotInfo({
                timestamp: snap.end,
                totalSupply: _heldAtEnd(_supplyPoints, snap.end),
                claimableRevenue: snap.claimableRevenue,
                claimedRevenue: snap.claimedRevenue,
                redeemableAdded: snap.redeemableAdded,
                totalWeight: snap.totalWeight
            });
    }

    /// @inheritdoc IRevShareReceipt
    function weightOf(address account, uint256 snapshotId) external view returns (uint256) {
        _requireSnapshot(snapshotId);
        return _weightOf(account, snapshotId);
    }

    /// @inheritdoc IRevShareReceipt
    function balanceOfAt(address account, uint256 snapshotId) external view returns (uint256) {
        _requireSnapshot(snapshotId);
        return _heldAtEnd(_points[account], _snapshots[snapshotId].end);
    }

    /// @inheritdoc IRevShareReceipt
    function totalSupplyAt(uint256 snapshotId) external view returns (uint256) {
        _requireSnapshot(snapshotId);
        return _heldAtEnd(_supplyPoints, _snapshots[snapshotId].end);
    }

    /// @inheritdoc IRevShareReceipt
    function hasClaimed(address account, uint256 snapshotId) external view returns (bool) {
        return _claimed[snapshotId][account];
    }

    /// @inheritdoc IRevShareReceipt
    function redeemablePool() external view returns (uint256) {
        return _redeemablePool;
    }

    /// @inheritdoc IRevShareReceipt
    function outstandingClaims() external view returns (uint256) {
        return _outstandingClaims;
    }

    /// @inheritdoc IRevShareReceipt
    function unallocatedRevenue() external view returns (uint256) {
        return _unallocatedRevenue();
    }

    /// @inheritdoc IRevShareReceipt
    function claimShareBps() external view returns (uint256) {
        return _claimShareBps;
    }

    /// @inheritdoc IRevShareReceipt
    function snapshotInterval() external view returns (uint256) {
        return _snapshotInterval;
    }

    /// @notice ERC-165: IRevShareReceipt, ERC-7641, ERC-20 and AccessControl.
    /// @param interfaceId The interface id.
    /// @return True when supported.
    function supportsInterface(bytes4 interfaceId) public view override returns (bool) {
        return
            interfaceId == type(IRevShareReceipt).interfaceId ||
            interfaceId == type(IERC7641).interfaceId ||
            interfaceId == type(IERC20).interfaceId ||
            super.supportsInterface(interfaceId);
    }

    // ---------------------------------------------------------------- internals

    /// @dev Records every balance and supply change as a point in time.
    function _update(address from, address to, uint256 value) internal override {
        super._update(from, to, value);
        if (from == address(0) || to == address(0)) {
            uint256 supply = totalSupply();
            if (supply > _MAX_SUPPLY) revert RevShareReceiptSupplyCapExceeded(supply, _MAX_SUPPLY);
            _write(_supplyPoints, supply);
        }
        // Balances never exceed the supply, capped just above.
        if (from != address(0)) _write(_points[from], balanceOf(from));
        if (to != address(0)) {
            // A first-time holder weighs nothing in the snapshots already taken: nothing to accrue.
            if (_points[to].length == 0) _accruedThrough[to] = _currentSnapshotId;
            _write(_points[to], balanceOf(to));
        }
    }

    /// @dev Appends (or, within one block, updates) the point of `points` for now.
    function _write(Point[] storage points, uint256 balance) private {
        uint256 length = points.length;
        uint48 now_ = uint48(block.timestamp); // 48-bit seconds outlast any chain
        if (length == 0) {
            points.push(Point({time: now_, balance: uint208(balance), cumulative: 0}));
            return;
        }
        Point storage last = points[length - 1];
        if (last.time == now_) {
            last.balance = uint208(balance);
            return;
        }
        uint256 cumulative = last.cumulative + uint256(last.balance) * (now_ - last.time);
        points.push(Point({time: now_, balance: uint208(balance), cumulative: cumulative}));
    }

    /// @dev Index + 1 of the last point at or before `time`, or 0 when there is none.
    function _pointBefore(Point[] storage points, uint256 time) private view returns (uint256) {
        uint256 low = 0;
        uint256 high = points.length;
        while (low < high) {
            uint256 mid = Math.average(low, high);
            if (points[mid].time > time) high = mid;
            else low = mid + 1;
        }
        return low;
    }

    /// @dev The balance held during a period's last second: a change at `end` itself counts from
    ///      `end` on, in the next period, as it does in the weights. `end` is a boundary, never 0.
    function _heldAtEnd(Point[] storage points, uint256 end) private view returns (uint256) {
        uint256 found = _pointBefore(points, end - 1);
        return found == 0 ? 0 : points[found - 1].balance;
    }

    /// @dev The integral of the balance over time, from the first point up to `time`.
    function _cumulativeAt(Point[] storage points, uint256 time) private view returns (uint256) {
        uint256 found = _pointBefore(points, time);
        if (found == 0) return 0;
        Point storage point = points[found - 1];
        return point.cumulative + uint256(point.balance) * (time - point.time);
    }

    function _weightBetween(
        Point[] storage points,
        uint256 start,
        uint256 end
    ) private view returns (uint256) {
        return _cumulativeAt(points, end) - _cumulativeAt(points, start);
    }

    function _weightOf(address account, uint256 snapshotId) private view returns (uint256) {
        return
            _weightBetween(
                _points[account],
                _periodStart(snapshotId - 1),
                _snapshots[snapshotId].end
            );
    }

    /// @dev `amount * weightOf(account) / totalWeight` for a snapshot, rounded down.
    function _shareOf(
        uint256 amount,
        address account,
        uint256 snapshotId
    ) private view returns (uint256) {
        uint256 totalWeight = _snapshots[snapshotId].totalWeight;
        if (totalWeight == 0 || amount == 0) return 0;
        return Math.mulDiv(amount, _weightOf(account, snapshotId), totalWeight);
    }

    /// @dev End of snapshot `snapshotId`'s period (the schedule's start for id 0).
    function _periodStart(uint256 snapshotId) private view returns (uint256) {
        return snapshotId == 0 ? _scheduleStart : _snapshots[snapshotId].end;
    }

    function _latestBoundary() private view returns (uint256) {
        return
            _scheduleStart +
            ((block.timestamp - _scheduleStart) / _snapshotInterval) *
            _snapshotInterval;
    }

    /// @dev Accrues `account`'s redemption over up to `maxSnapshots` snapshots not yet accrued.
    function _accrue(address account, uint256 maxSnapshots) private returns (uint256 accrued) {
        uint256 through;
        (accrued, through) = _pendingAccrual(account, maxSnapshots);
        _accruedRedemption[account] = accrued;
        _accruedThrough[account] = through;
    }

    function _pendingAccrual(
        address account,
        uint256 maxSnapshots
    ) private view returns (uint256 accrued, uint256 through) {
        accrued = _accruedRedemption[account];
        through = _accruedThrough[account];
        uint256 current = _currentSnapshotId;
        uint256 last = current - through > maxSnapshots ? through + maxSnapshots : current;
        while (through < last) {
            ++through;
            accrued += _shareOf(_snapshots[through].redeemableAdded, account, through);
        }
    }

    function _redeemableOf(address account, uint256 amount) private view returns (uint256) {
        uint256 balance = balanceOf(account);
        if (balance == 0 || amount > balance) return 0;
        (uint256 accrued, ) = _pendingAccrual(account, type(uint256).max);
        return Math.mulDiv(accrued, amount, balance);
    }

    function _unallocatedRevenue() private view returns (uint256) {
        return address(this).balance - _redeemablePool - _outstandingClaims;
    }

    function _requireSnapshot(uint256 snapshotId) private view {
        if (snapshotId == 0 || snapshotId > _currentSnapshotId) {
            revert RevShareReceiptUnknownSnapshot(snapshotId, _currentSnapshotId);
        }
    }
}
