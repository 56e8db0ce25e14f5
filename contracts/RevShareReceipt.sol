// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControlDefaultAdminRules} from "@openzeppelin/contracts/access/extensions/AccessControlDefaultAdminRules.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {Checkpoints} from "@openzeppelin/contracts/utils/structs/Checkpoints.sol";
import {IERC7641} from "./interfaces/IERC7641.sol";
import {IRevShareReceipt} from "./interfaces/IRevShareReceipt.sol";
import {Semver} from "./utils/Semver.sol";

/// @title RevShareReceipt
/// @notice ERC-7641 payment receipt token: minted once per settled payment, shares ETH revenue
///         through periodic snapshots (claim) and a redeemable pool (burn).
/// @dev See {IRevShareReceipt} for the accounting. OpenZeppelin 5 has no ERC20Snapshot, so balances
///      and supply are checkpointed with `Checkpoints.Trace208` keyed by the snapshot they first count in.
contract RevShareReceipt is
    IRevShareReceipt,
    ERC20,
    AccessControlDefaultAdminRules,
    ReentrancyGuard,
    Semver
{
    using Checkpoints for Checkpoints.Trace208;

    /// @inheritdoc IRevShareReceipt
    bytes32 public constant ISSUER_ROLE = keccak256("ISSUER_ROLE");

    uint256 private constant _BPS = 10_000;
    /// @dev Checkpoint values are 208-bit; the supply (and so every balance) stays below this.
    uint256 private constant _MAX_SUPPLY = type(uint208).max;

    struct Snapshot {
        uint64 timestamp;
        uint256 claimableRevenue;
        uint256 claimedRevenue;
    }

    uint256 private immutable _claimShareBps;
    uint256 private immutable _snapshotInterval;

    uint256 private _currentSnapshotId;
    uint256 private _lastSnapshotAt;
    uint256 private _redeemablePool;
    uint256 private _outstandingClaims;

    mapping(uint256 snapshotId => Snapshot) private _snapshots;
    mapping(uint256 snapshotId => mapping(address account => bool)) private _claimed;
    mapping(address account => Checkpoints.Trace208) private _balanceCheckpoints;
    Checkpoints.Trace208 private _supplyCheckpoints;
    mapping(bytes32 paymentRef => bool) private _receipted;

    /// @param name_ ERC-20 name.
    /// @param symbol_ ERC-20 symbol.
    /// @param initialAdminDelay Seconds a new default admin must wait before accepting (two-step handover).
    /// @param initialAdmin The default admin (grants and revokes roles).
    /// @param issuer Account granted `ISSUER_ROLE` at deployment (the relayer); zero to grant none.
    /// @param claimShareBps_ The claimable share `p` of each snapshot's revenue, in basis points (0..10 000).
    /// @param snapshotInterval_ Minimum seconds between two snapshots.
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
        Semver(1, 0, 0)
    {
        if (claimShareBps_ > _BPS) revert RevShareReceiptInvalidClaimShare(claimShareBps_);
        _claimShareBps = claimShareBps_;
        _snapshotInterval = snapshotInterval_;
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
        if (previous != 0) {
            uint256 nextAt = _lastSnapshotAt + _snapshotInterval;
            if (block.timestamp < nextAt) revert RevShareReceiptSnapshotTooSoon(nextAt);
        }

        uint256 supply = totalSupply();
        uint256 claimable;
        uint256 redeemableAdded;
        // With no holders nobody could claim or redeem: leave the revenue for the next snapshot.
        if (supply != 0) {
            uint256 revenue = _unallocatedRevenue();
            claimable = (revenue * _claimShareBps) / _BPS;
            redeemableAdded = revenue - claimable;
            _outstandingClaims += claimable;
            _redeemablePool += redeemableAdded;
        }

        snapshotId = previous + 1;
        _currentSnapshotId = snapshotId;
        _lastSnapshotAt = block.timestamp;
        _snapshots[snapshotId] = Snapshot({
            timestamp: uint64(block.timestamp),
            claimableRevenue: claimable,
            claimedRevenue: 0
        });
        emit SnapshotTaken(snapshotId, claimable, redeemableAdded, supply);
    }

    /// @inheritdoc IERC7641
    function claimableRevenue(address account, uint256 snapshotId) external view returns (uint256) {
        _requireSnapshot(snapshotId);
        if (_claimed[snapshotId][account]) return 0;
        return _shareOf(account, snapshotId);
    }

    /// @inheritdoc IERC7641
    function claim(uint256 snapshotId) external nonReentrant {
        _requireSnapshot(snapshotId);
        if (_claimed[snapshotId][msg.sender]) {
            revert RevShareReceiptAlreadyClaimed(msg.sender, snapshotId);
        }
        uint256 amount = _shareOf(msg.sender, snapshotId);
        if (amount == 0) revert RevShareReceiptNothingToClaim(msg.sender, snapshotId);

        _claimed[snapshotId][msg.sender] = true;
        // Shares are rounded down and the balances at a snapshot sum to its supply, so the claims
        // of one snapshot never exceed its claimable revenue, which is part of `_outstandingClaims`.
        _snapshots[snapshotId].claimedRevenue += amount;
        _outstandingClaims -= amount;
        emit RevenueClaimed(msg.sender, snapshotId, amount);
        Address.sendValue(payable(msg.sender), amount);
    }

    /// @inheritdoc IERC7641
    function redeemableOnBurn(uint256 amount) public view returns (uint256) {
        uint256 supply = totalSupply();
        if (supply == 0) return 0;
        return Math.mulDiv(_redeemablePool, amount, supply);
    }

    /// @inheritdoc IERC7641
    function burn(uint256 amount) external nonReentrant {
        if (amount == 0) revert RevShareReceiptZeroAmount();
        uint256 redeemed = redeemableOnBurn(amount);
        _burn(msg.sender, amount);
        _redeemablePool -= redeemed;
        emit Redeemed(msg.sender, amount, redeemed);
        if (redeemed != 0) Address.sendValue(payable(msg.sender), redeemed);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IRevShareReceipt
    function currentSnapshotId() external view returns (uint256) {
        return _currentSnapshotId;
    }

    /// @inheritdoc IRevShareReceipt
    function nextSnapshotAt() external view returns (uint256) {
        return _currentSnapshotId == 0 ? block.timestamp : _lastSnapshotAt + _snapshotInterval;
    }

    /// @inheritdoc IRevShareReceipt
    function snapshotInfo(uint256 snapshotId) external view returns (SnapshotInfo memory) {
        _requireSnapshot(snapshotId);
        Snapshot storage snap = _snapshots[snapshotId];
        return
            SnapshotInfo({
                timestamp: snap.timestamp,
                totalSupply: _supplyAt(snapshotId),
                claimableRevenue: snap.claimableRevenue,
                claimedRevenue: snap.claimedRevenue
            });
    }

    /// @inheritdoc IRevShareReceipt
    function balanceOfAt(address account, uint256 snapshotId) external view returns (uint256) {
        _requireSnapshot(snapshotId);
        return _balanceAt(account, snapshotId);
    }

    /// @inheritdoc IRevShareReceipt
    function totalSupplyAt(uint256 snapshotId) external view returns (uint256) {
        _requireSnapshot(snapshotId);
        return _supplyAt(snapshotId);
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

    /// @dev Checkpoints every balance and supply change under the snapshot it will first count in.
    function _update(address from, address to, uint256 value) internal override {
        super._update(from, to, value);
        // Snapshot ids stay far below 2^48: each one is a rate-limited transaction.
        uint48 key = uint48(_currentSnapshotId + 1);
        // Balances never exceed the supply, which is capped at 2^208 - 1 on mint.
        if (from == address(0) || to == address(0)) {
            uint256 supply = totalSupply();
            if (supply > _MAX_SUPPLY) revert RevShareReceiptSupplyCapExceeded(supply, _MAX_SUPPLY);
            _supplyCheckpoints.push(key, uint208(supply));
        }
        if (from != address(0)) _balanceCheckpoints[from].push(key, uint208(balanceOf(from)));
        if (to != address(0)) _balanceCheckpoints[to].push(key, uint208(balanceOf(to)));
    }

    function _shareOf(address account, uint256 snapshotId) private view returns (uint256) {
        uint256 supply = _supplyAt(snapshotId);
        if (supply == 0) return 0;
        return
            Math.mulDiv(
                _snapshots[snapshotId].claimableRevenue,
                _balanceAt(account, snapshotId),
                supply
            );
    }

    function _balanceAt(address account, uint256 snapshotId) private view returns (uint256) {
        return _balanceCheckpoints[account].upperLookupRecent(uint48(snapshotId));
    }

    function _supplyAt(uint256 snapshotId) private view returns (uint256) {
        return _supplyCheckpoints.upperLookupRecent(uint48(snapshotId));
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
