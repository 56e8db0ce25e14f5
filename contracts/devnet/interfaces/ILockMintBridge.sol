// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title ILockMintBridge
/// @notice The `lockmint` bridge. On the source chain `deposit` takes the tokens (escrowed, or
///         burned for burn-and-mint tokens), charges the fee declared on chain and emits `Deposited`
///         with a per-bridge nonce. On the destination chain `release` pays the recipient (from escrow,
///         or by minting) once an attester (the relayer's operator key) has signed an EIP-712
///         `Release` of exactly that deposit. Each (source chain, nonce) is released at most once.
/// @dev EIP-712 domain: name "Veriflow LockMint", version "1", chainId = the destination chain,
///      verifyingContract = the destination bridge. The signed struct carries the source chain id and
///      source bridge, so an attestation binds both chains and both bridges.
interface ILockMintBridge {
    /// @notice How a token crosses this bridge on this chain.
    /// @dev `Escrow`: deposits are held here, releases pay from the held balance.
    ///      `MintBurn`: deposits are burned, releases mint (the bridge holds the token's minter role).
    enum TokenMode {
        Unsupported,
        Escrow,
        MintBurn
    }

    /// @notice The message an attester signs to release a deposit on this (the destination) chain.
    /// @param sourceChainId Chain id where the deposit happened.
    /// @param sourceBridge The bridge contract on the source chain that emitted `Deposited`.
    /// @param nonce The deposit's nonce on the source bridge.
    /// @param token The token paid out on this chain (the deposit's `remoteToken`).
    /// @param recipient Who receives the tokens on this chain.
    /// @param amount Amount paid out, net of the source-chain fee, in base units.
    struct Release {
        uint256 sourceChainId;
        address sourceBridge;
        uint256 nonce;
        address token;
        address recipient;
        uint256 amount;
    }

    /// @notice Emitted after a deposit was taken on this (the source) chain.
    /// @param nonce The deposit's nonce, unique per bridge.
    /// @param destinationChainId Where the tokens are to be released.
    /// @param sender Who paid.
    /// @param recipient Who receives on the destination chain.
    /// @param token The token taken on this chain.
    /// @param remoteToken The token to pay out on the destination chain.
    /// @param amount Amount to release on the destination, net of `fee`.
    /// @param fee Fee kept on this chain (sent to the fee recipient).
    event Deposited(
        uint256 indexed nonce,
        uint256 indexed destinationChainId,
        address indexed sender,
        address recipient,
        address token,
        address remoteToken,
        uint256 amount,
        uint256 fee
    );

    /// @notice Emitted after a deposit from another chain was paid out here.
    /// @param sourceChainId Chain id of the deposit.
    /// @param nonce Nonce of the deposit on the source bridge.
    /// @param recipient Who was paid.
    /// @param token The token paid.
    /// @param amount Amount paid.
    /// @param attester The attester whose signature authorised the release.
    event Released(
        uint256 indexed sourceChainId,
        uint256 indexed nonce,
        address indexed recipient,
        address token,
        uint256 amount,
        address attester
    );

    /// @notice Emitted after a token's mode on this chain changed.
    /// @param token The token.
    /// @param mode The new mode.
    event TokenConfigured(address indexed token, TokenMode mode);

    /// @notice Emitted after the token paid out on a destination chain for a local token changed.
    /// @param destinationChainId The destination chain.
    /// @param token The local token.
    /// @param remoteToken The token on the destination chain (zero: route removed).
    event RouteConfigured(uint256 indexed destinationChainId, address indexed token, address remoteToken);

    /// @notice Emitted after the trusted bridge on another chain changed.
    /// @param chainId The other chain.
    /// @param bridge Its bridge contract (zero: peer removed).
    event PeerConfigured(uint256 indexed chainId, address bridge);

    /// @notice Emitted after the fee changed.
    /// @param feeBps Fee in basis points of the deposited amount.
    /// @param feeRecipient Who receives fees.
    event FeeConfigured(uint256 feeBps, address feeRecipient);

    /// @notice The amount is zero or does not exceed the fee.
    /// @param amount The amount.
    error LockMintBridgeInvalidAmount(uint256 amount);

    /// @notice The recipient is the zero address.
    error LockMintBridgeInvalidRecipient();

    /// @notice No route exists for this token to this destination chain.
    /// @param destinationChainId The destination.
    /// @param token The token.
    error LockMintBridgeUnsupportedRoute(uint256 destinationChainId, address token);

    /// @notice The token is not supported on this chain.
    /// @param token The token.
    error LockMintBridgeUnsupportedToken(address token);

    /// @notice The fee exceeds the caller's cap.
    /// @param fee The fee the bridge charges.
    /// @param maxFee The caller's cap.
    error LockMintBridgeFeeExceedsCap(uint256 fee, uint256 maxFee);

    /// @notice A fee above `MAX_FEE_BPS` was configured.
    /// @param feeBps The rejected fee.
    error LockMintBridgeFeeTooHigh(uint256 feeBps);

    /// @notice The release names a source bridge that is not this bridge's peer for that chain.
    /// @param sourceChainId The source chain.
    /// @param sourceBridge The bridge named by the release.
    error LockMintBridgeUnknownPeer(uint256 sourceChainId, address sourceBridge);

    /// @notice This deposit was already released.
    /// @param sourceChainId The source chain.
    /// @param nonce The deposit nonce.
    error LockMintBridgeAlreadyReleased(uint256 sourceChainId, uint256 nonce);

    /// @notice The signature does not come from an attester.
    /// @param signer The recovered signer.
    error LockMintBridgeInvalidAttestation(address signer);

    /// @notice An escrow release exceeds the tokens held by the bridge.
    /// @param token The token.
    /// @param available Balance held.
    /// @param needed Amount to pay.
    error LockMintBridgeInsufficientLiquidity(address token, uint256 available, uint256 needed);

    /// @notice Takes `amount` of `token` from the caller for release to `recipient` on `destinationChainId`.
    /// @dev The caller approves this contract for `amount` first. The fee is taken out of `amount`.
    /// @param token The token to bridge.
    /// @param amount Gross amount in base units (fee included).
    /// @param destinationChainId The destination chain.
    /// @param recipient Who receives on the destination chain.
    /// @param maxFee The highest fee the caller accepts (reverts above it).
    /// @return nonce The deposit's nonce.
    function deposit(
        address token,
        uint256 amount,
        uint256 destinationChainId,
        address recipient,
        uint256 maxFee
    ) external returns (uint256 nonce);

    /// @notice Pays out a deposit from another chain, authorised by an attester's EIP-712 signature.
    /// @param release The deposit being released.
    /// @param signature The attester's signature over `hashRelease(release)`.
    function release(Release calldata release, bytes calldata signature) external;

    /// @notice The EIP-712 digest an attester signs for `release`.
    /// @param release The release.
    /// @return The typed-data digest.
    function hashRelease(Release calldata release) external view returns (bytes32);

    /// @notice The fee charged on a deposit of `amount`.
    /// @param amount Gross amount.
    /// @return fee The fee, in the same token.
    function quoteFee(uint256 amount) external view returns (uint256 fee);

    /// @notice Whether a deposit from another chain has been released here.
    /// @param sourceChainId The source chain.
    /// @param nonce The deposit nonce.
    /// @return True when released.
    function isReleased(uint256 sourceChainId, uint256 nonce) external view returns (bool);

    /// @notice The nonce the next deposit will get.
    /// @return The nonce.
    function nextNonce() external view returns (uint256);

    /// @notice Fee in basis points of the gross deposit.
    /// @return The fee in basis points.
    function feeBps() external view returns (uint256);

    /// @notice Who receives fees.
    /// @return The fee recipient.
    function feeRecipient() external view returns (address);

    /// @notice How `token` crosses the bridge on this chain.
    /// @param token The token.
    /// @return The mode.
    function tokenMode(address token) external view returns (TokenMode);

    /// @notice The token paid on `destinationChainId` for a deposit of `token` (zero: unsupported).
    /// @param destinationChainId The destination.
    /// @param token The local token.
    /// @return The remote token.
    function remoteToken(uint256 destinationChainId, address token) external view returns (address);

    /// @notice The trusted bridge on `chainId`.
    /// @param chainId The chain.
    /// @return The bridge address (zero: none).
    function peer(uint256 chainId) external view returns (address);

    /// @notice Sets how `token` crosses the bridge here. Admin only.
    /// @param token The token.
    /// @param mode Its mode.
    function configureToken(address token, TokenMode mode) external;

    /// @notice Sets the token paid on `destinationChainId` for deposits of `token`. Admin only.
    /// @param destinationChainId The destination.
    /// @param token The local token.
    /// @param remoteToken_ The remote token (zero removes the route).
    function configureRoute(uint256 destinationChainId, address token, address remoteToken_) external;

    /// @notice Sets the trusted bridge on `chainId`. Admin only.
    /// @param chainId The chain.
    /// @param bridge Its bridge.
    function configurePeer(uint256 chainId, address bridge) external;

    /// @notice Sets the fee. Admin only; at most `MAX_FEE_BPS`.
    /// @param feeBps_ Fee in basis points.
    /// @param feeRecipient_ Who receives fees.
    function configureFee(uint256 feeBps_, address feeRecipient_) external;

    /// @notice Semantic version of this contract.
    /// @return The version string.
    function version() external pure returns (string memory);
}
