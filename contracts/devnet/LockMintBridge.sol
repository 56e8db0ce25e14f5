// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {ILockMintBridge} from "./interfaces/ILockMintBridge.sol";
import {ITestToken} from "./interfaces/ITestToken.sol";

/// @title LockMintBridge
/// @notice The `lockmint` bridge: escrow or burn on the source chain, attested release or mint on the destination.
contract LockMintBridge is ILockMintBridge, AccessControl, EIP712, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @notice Role whose EIP-712 signatures authorise releases (the relayer's operator key).
    bytes32 public constant ATTESTER_ROLE = keccak256("ATTESTER_ROLE");

    /// @notice Highest configurable fee: 10 %.
    uint256 public constant MAX_FEE_BPS = 1_000;

    bytes32 private constant _RELEASE_TYPEHASH =
        keccak256(
            "Release(uint256 sourceChainId,address sourceBridge,uint256 nonce,address token,address recipient,uint256 amount)"
        );

    uint256 private _nextNonce;
    uint256 private _feeBps;
    address private _feeRecipient;
    mapping(address token => TokenMode) private _tokenModes;
    mapping(uint256 chainId => mapping(address token => address)) private _routes;
    mapping(uint256 chainId => address) private _peers;
    mapping(uint256 chainId => mapping(uint256 nonce => bool)) private _released;

    /// @param admin Receives the admin role (configuration).
    /// @param attester Receives the attester role (the relayer's operator key).
    /// @param feeBps_ Initial fee in basis points.
    /// @param feeRecipient_ Initial fee recipient.
    constructor(
        address admin,
        address attester,
        uint256 feeBps_,
        address feeRecipient_
    ) EIP712("Veriflow LockMint", "1") {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(ATTESTER_ROLE, attester);
        _setFee(feeBps_, feeRecipient_);
    }

    /// @inheritdoc ILockMintBridge
    function deposit(
        address token,
        uint256 amount,
        uint256 destinationChainId,
        address recipient,
        uint256 maxFee
    ) external nonReentrant returns (uint256 nonce) {
        if (recipient == address(0)) revert LockMintBridgeInvalidRecipient();
        TokenMode mode = _tokenModes[token];
        if (mode == TokenMode.Unsupported) revert LockMintBridgeUnsupportedToken(token);
        address remote = _routes[destinationChainId][token];
        if (remote == address(0)) revert LockMintBridgeUnsupportedRoute(destinationChainId, token);
        uint256 fee = quoteFee(amount);
        if (fee > maxFee) revert LockMintBridgeFeeExceedsCap(fee, maxFee);
        if (amount == 0 || amount <= fee) revert LockMintBridgeInvalidAmount(amount);
        // Safe: fee < amount was just checked.
        uint256 net;
        unchecked {
            net = amount - fee;
        }

        nonce = _nextNonce;
        // Safe: a uint256 counter incremented once per deposit cannot overflow.
        unchecked {
            _nextNonce = nonce + 1;
        }
        IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
        if (fee > 0) IERC20(token).safeTransfer(_feeRecipient, fee);
        if (mode == TokenMode.MintBurn) ITestToken(token).burn(net);

        emit Deposited(nonce, destinationChainId, msg.sender, recipient, token, remote, net, fee);
    }

    /// @inheritdoc ILockMintBridge
    function release(Release calldata release_, bytes calldata signature) external nonReentrant {
        if (_peers[release_.sourceChainId] != release_.sourceBridge || release_.sourceBridge == address(0)) {
            revert LockMintBridgeUnknownPeer(release_.sourceChainId, release_.sourceBridge);
        }
        if (_released[release_.sourceChainId][release_.nonce]) {
            revert LockMintBridgeAlreadyReleased(release_.sourceChainId, release_.nonce);
        }
        if (release_.recipient == address(0)) revert LockMintBridgeInvalidRecipient();
        if (release_.amount == 0) revert LockMintBridgeInvalidAmount(0);
        (address signer, ECDSA.RecoverError err, ) = ECDSA.tryRecover(hashRelease(release_), signature);
        if (err != ECDSA.RecoverError.NoError || !hasRole(ATTESTER_ROLE, signer)) {
            revert LockMintBridgeInvalidAttestation(signer);
        }
        TokenMode mode = _tokenModes[release_.token];
        if (mode == TokenMode.Unsupported) revert LockMintBridgeUnsupportedToken(release_.token);

        _released[release_.sourceChainId][release_.nonce] = true;
        if (mode == TokenMode.MintBurn) {
            ITestToken(release_.token).mint(release_.recipient, release_.amount);
        } else {
            uint256 available = IERC20(release_.token).balanceOf(address(this));
            if (available < release_.amount) {
                revert LockMintBridgeInsufficientLiquidity(release_.token, available, release_.amount);
            }
            IERC20(release_.token).safeTransfer(release_.recipient, release_.amount);
        }
        emit Released(
            release_.sourceChainId,
            release_.nonce,
            release_.recipient,
            release_.token,
            release_.amount,
            signer
        );
    }

    /// @inheritdoc ILockMintBridge
    function hashRelease(Release calldata release_) public view returns (bytes32) {
        return
            _hashTypedDataV4(
                keccak256(
                    abi.encode(
                        _RELEASE_TYPEHASH,
                        release_.sourceChainId,
                        release_.sourceBridge,
                        release_.nonce,
                        release_.token,
                        release_.recipient,
                        release_.amount
                    )
                )
            );
    }

    /// @inheritdoc ILockMintBridge
    function quoteFee(uint256 amount) public view returns (uint256 fee) {
        return (amount * _feeBps) / 10_000;
    }

    /// @inheritdoc ILockMintBridge
    function isReleased(uint256 sourceChainId, uint256 nonce) external view returns (bool) {
        return _released[sourceChainId][nonce];
    }

    /// @inheritdoc ILockMintBridge
    function nextNonce() external view returns (uint256) {
        return _nextNonce;
    }

    /// @inheritdoc ILockMintBridge
    function feeBps() external view returns (uint256) {
        return _feeBps;
    }

    /// @inheritdoc ILockMintBridge
    function feeRecipient() external view returns (address) {
        return _feeRecipient;
    }

    /// @inheritdoc ILockMintBridge
    function tokenMode(address token) external view returns (TokenMode) {
        return _tokenModes[token];
    }

    /// @inheritdoc ILockMintBridge
    function remoteToken(uint256 destinationChainId, address token) external view returns (address) {
        return _routes[destinationChainId][token];
    }

    /// @inheritdoc ILockMintBridge
    function peer(uint256 chainId) external view returns (address) {
        return _peers[chainId];
    }

    /// @inheritdoc ILockMintBridge
    function configureToken(address token, TokenMode mode) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _tokenModes[token] = mode;
        emit TokenConfigured(token, mode);
    }

    /// @inheritdoc ILockMintBridge
    function configureRoute(
        uint256 destinationChainId,
        address token,
        address remoteToken_
    ) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _routes[destinationChainId][token] = remoteToken_;
        emit RouteConfigured(destinationChainId, token, remoteToken_);
    }

    /// @inheritdoc ILockMintBridge
    function configurePeer(uint256 chainId, address bridge) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _peers[chainId] = bridge;
        emit PeerConfigured(chainId, bridge);
    }

    /// @inheritdoc ILockMintBridge
    function configureFee(uint256 feeBps_, address feeRecipient_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setFee(feeBps_, feeRecipient_);
    }

    /// @inheritdoc ILockMintBridge
    function version() external pure returns (string memory) {
        return "1.0.0";
    }

    function _setFee(uint256 feeBps_, address feeRecipient_) private {
        if (feeBps_ > MAX_FEE_BPS) revert LockMintBridgeFeeTooHigh(feeBps_);
        if (feeRecipient_ == address(0)) revert LockMintBridgeInvalidRecipient();
        _feeBps = feeBps_;
        _feeRecipient = feeRecipient_;
        emit FeeConfigured(feeBps_, feeRecipient_);
    }
}
