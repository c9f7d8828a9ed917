// SPDX-License-Identifier: MIT
pragma solidity ^0.8.37;

import {IComplianceOracle} from "./IComplianceOracle.sol";

/// @title An ERC-3643 (T-REX) compliance module backed by the compliance oracle (docs/oracle.md)
/// @notice Add it to a token's ModularCompliance (`addModule`): the compliance then calls `moduleCheck`
/// before each transfer and mint, and this module allows it only when the oracle's `isCompliant` is true
/// for the sender and the receiver (a flagged, unknown or expired wallet is refused). The zero address
/// stands for a mint's sender or a burn's receiver and is not asked. The module keeps no state about
/// transfers: the three action hooks do nothing. It is plug and play: any compliance may bind it.
contract ComplianceOracleModule {
    IComplianceOracle public immutable oracle;
    mapping(address compliance => bool) private _bound;

    event ComplianceBound(address indexed _compliance);
    event ComplianceUnbound(address indexed _compliance);

    error ZeroAddress();
    error ComplianceAlreadyBound(address compliance);
    error ComplianceNotBound(address compliance);
    /// @notice bind/unbind and the action hooks are for the compliance contract itself.
    error OnlyComplianceCanCall(address caller);

    constructor(IComplianceOracle oracle_) {
        if (address(oracle_) == address(0)) revert ZeroAddress();
        oracle = oracle_;
    }

    /// @notice True when the oracle finds both sides compliant (the zero address is not asked).
    function moduleCheck(address _from, address _to, uint256, address) external view returns (bool) {
        if (_from != address(0) && !oracle.isCompliant(_from)) return false;
        if (_to != address(0) && !oracle.isCompliant(_to)) return false;
        return true;
    }

    /// @notice Called by a compliance contract for itself (ModularCompliance.addModule).
    function bindCompliance(address _compliance) external {
        if (_compliance == address(0)) revert ZeroAddress();
        if (msg.sender != _compliance) revert OnlyComplianceCanCall(msg.sender);
        if (_bound[_compliance]) revert ComplianceAlreadyBound(_compliance);
        _bound[_compliance] = true;
        emit ComplianceBound(_compliance);
    }

    /// @notice Called by a bound compliance contract for itself (ModularCompliance.removeModule).
    function unbindCompliance(address _compliance) external {
        if (msg.sender != _compliance) revert OnlyComplianceCanCall(msg.sender);
        if (!_bound[_compliance]) revert ComplianceNotBound(_compliance);
        _bound[_compliance] = false;
        emit ComplianceUnbound(_compliance);
    }

    /// @notice No state to update on a transfer. Bound compliance only.
    function moduleTransferAction(address, address, uint256) external view {
        _onlyBound();
    }

    /// @notice No state to update on a mint. Bound compliance only.
    function moduleMintAction(address, uint256) external view {
        _onlyBound();
    }

    /// @notice No state to update on a burn. Bound compliance only.
    function moduleBurnAction(address, uint256) external view {
        _onlyBound();
    }

    function isComplianceBound(address _compliance) external view returns (bool) {
        return _bound[_compliance];
    }

    /// @notice Any compliance may bind this module.
    function canComplianceBind(address) external pure returns (bool) {
        return true;
    }

    function isPlugAndPlay() external pure returns (bool) {
        return true;
    }

    function name() external pure returns (string memory _name) {
        return "ComplianceOracleModule";
    }

    function _onlyBound() private view {
        if (!_bound[msg.sender]) revert OnlyComplianceCanCall(msg.sender);
    }
}
