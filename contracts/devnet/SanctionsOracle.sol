// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {ISanctionsOracle} from "./interfaces/ISanctionsOracle.sol";

/// @title SanctionsOracle
/// @notice Owner-managed sanctions list with the Chainalysis oracle interface (devnet stand-in).
contract SanctionsOracle is ISanctionsOracle, Ownable2Step {
    mapping(address => bool) private _sanctioned;

    /// @param owner_ The list manager.
    /// @param initialSanctions Addresses listed at deployment (the devnet's documented sanctioned test accounts).
    constructor(address owner_, address[] memory initialSanctions) Ownable(owner_) {
        _add(initialSanctions);
    }

    /// @inheritdoc ISanctionsOracle
    function isSanctioned(address addr) external view returns (bool) {
        return _sanctioned[addr];
    }

    /// @inheritdoc ISanctionsOracle
    function isSanctionedVerbose(address addr) external view returns (bool) {
        return _sanctioned[addr];
    }

    /// @inheritdoc ISanctionsOracle
    function addToSanctionsList(address[] calldata newSanctions) external onlyOwner {
        _add(newSanctions);
    }

    /// @inheritdoc ISanctionsOracle
    function removeFromSanctionsList(address[] calldata removeSanctions) external onlyOwner {
        for (uint256 i = 0; i < removeSanctions.length; ++i) {
            _sanctioned[removeSanctions[i]] = false;
        }
        emit SanctionedAddressesRemoved(removeSanctions);
    }

    /// @inheritdoc ISanctionsOracle
    function name() external pure returns (string memory) {
        return "Veriflow devnet sanctions oracle (Chainalysis-compatible)";
    }

    function _add(address[] memory addrs) private {
        for (uint256 i = 0; i < addrs.length; ++i) {
            if (addrs[i] == address(0)) revert SanctionsOracleZeroAddress();
            _sanctioned[addrs[i]] = true;
        }
        emit SanctionedAddressesAdded(addrs);
    }
}
