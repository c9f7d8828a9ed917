// SPDX-License-Identifier: MIT
pragma solidity ^0.8.37;

import {IComplianceOracle} from "../IComplianceOracle.sol";

/// @notice The Chainalysis sanctions oracle's interface, declared on its own, as a protocol that uses
/// that oracle declares it.
interface SanctionsList {
    function isSanctioned(address addr) external view returns (bool);
}

/// @title Test and benchmark helper: a protocol-like contract reading the oracle (not for deployment)
/// @notice `readStatus` and `baseline` take and answer the same types, but baseline does not call the oracle:
/// the difference of their eth_estimateGas is what one `statusOf` call costs the calling contract (the
/// call, the oracle's work, decoding the answer). tests/compliance/onchain and bench/oracle_gas.py use it.
contract OracleReader {
    IComplianceOracle public immutable oracle;

    constructor(IComplianceOracle oracle_) {
        oracle = oracle_;
    }

    function readStatus(address wallet) external view returns (IComplianceOracle.Status memory) {
        return oracle.statusOf(wallet);
    }

    function baseline(address wallet) external pure returns (IComplianceOracle.Status memory status) {
        status.version = uint64(uint160(wallet) >> 160);
    }

    /// @notice isSanctioned through the Chainalysis interface alone.
    function sanctioned(address wallet) external view returns (bool) {
        return SanctionsList(address(oracle)).isSanctioned(wallet);
    }
}
