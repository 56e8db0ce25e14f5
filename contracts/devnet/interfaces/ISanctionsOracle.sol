// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title ISanctionsOracle
/// @notice Chainalysis-compatible sanctions oracle: the same `isSanctioned(address)` view, list
///         management functions and events as Chainalysis' on-chain sanctions oracle, so code written
///         against the devnet works unchanged against the production oracle.
interface ISanctionsOracle {
    /// @notice Emitted after addresses were added to the sanctions list.
    /// @param addrs The addresses added (already-listed addresses are included and stay listed).
    event SanctionedAddressesAdded(address[] addrs);

    /// @notice Emitted after addresses were removed from the sanctions list.
    /// @param addrs The addresses removed.
    event SanctionedAddressesRemoved(address[] addrs);

    /// @notice The zero address cannot be listed.
    error SanctionsOracleZeroAddress();

    /// @notice Whether `addr` is on the sanctions list.
    /// @param addr The address to check.
    /// @return True when the address is sanctioned.
    function isSanctioned(address addr) external view returns (bool);

    /// @notice Alias of `isSanctioned` kept for Chainalysis compatibility.
    /// @param addr The address to check.
    /// @return True when the address is sanctioned.
    function isSanctionedVerbose(address addr) external returns (bool);

    /// @notice Adds addresses to the list. Owner only.
    /// @param newSanctions The addresses to add.
    function addToSanctionsList(address[] calldata newSanctions) external;

    /// @notice Removes addresses from the list. Owner only.
    /// @param removeSanctions The addresses to remove.
    function removeFromSanctionsList(address[] calldata removeSanctions) external;

    /// @notice Human-readable name of the list.
    /// @return The oracle name.
    function name() external pure returns (string memory);
}
