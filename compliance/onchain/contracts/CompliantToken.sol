// SPDX-License-Identifier: MIT
pragma solidity ^0.8.37;

import {IComplianceOracle} from "./IComplianceOracle.sol";

/// @title A demo ERC-20 that moves only between compliant wallets (docs/oracle.md)
/// @notice Every transfer, transferFrom and mint asks the compliance oracle about the sender and the
/// receiver and reverts with `NotCompliant(account)` unless `isCompliant` is true for both: a wallet
/// that is flagged, never published (unknown) or whose status expired can neither send nor receive.
/// Refusing unknown wallets too is deliberate: otherwise a fresh address would escape every flag. The
/// spender of a transferFrom is not asked (routers and other contracts act for compliant holders).
/// Mint (owner only) checks the receiver; there is no burn.
///
/// `transferWithCommitment` is a transfer that also emits `TransferCommitment`, binding the transaction
/// to a travel-rule record by its commitment (compliance/commitment.py) for the travel-rule indexer.
contract CompliantToken {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    IComplianceOracle public immutable oracle;
    address public immutable owner;

    mapping(address account => uint256) public balanceOf;
    mapping(address account => mapping(address spender => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    /// @notice A transfer carrying the commitment to its travel-rule record.
    event TransferCommitment(address indexed from, address indexed to, uint256 amount, bytes32 indexed commitment);

    error NotCompliant(address account);
    error NotOwner(address caller);
    error InsufficientBalance(address account, uint256 balance, uint256 needed);
    error InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    error ZeroAddress();

    constructor(string memory name_, string memory symbol_, IComplianceOracle oracle_, address owner_) {
        if (address(oracle_) == address(0) || owner_ == address(0)) revert ZeroAddress();
        name = name_;
        symbol = symbol_;
        oracle = oracle_;
        owner = owner_;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    /// @notice A transfer that also emits `TransferCommitment(from, to, amount, commitment)`.
    function transferWithCommitment(address to, uint256 amount, bytes32 commitment) external returns (bool) {
        _transfer(msg.sender, to, amount);
        emit TransferCommitment(msg.sender, to, amount, commitment);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < amount) revert InsufficientAllowance(msg.sender, allowed, amount);
            unchecked { allowance[from][msg.sender] = allowed - amount; }
        }
        _transfer(from, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        if (spender == address(0)) revert ZeroAddress();
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    /// @notice Creates `amount` tokens for `to`, who must be compliant. Owner only.
    function mint(address to, uint256 amount) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        if (to == address(0)) revert ZeroAddress();
        _requireCompliant(to);
        totalSupply += amount;
        unchecked { balanceOf[to] += amount; }
        emit Transfer(address(0), to, amount);
    }

    function _transfer(address from, address to, uint256 amount) private {
        if (to == address(0)) revert ZeroAddress();
        _requireCompliant(from);
        _requireCompliant(to);
        uint256 balance = balanceOf[from];
        if (balance < amount) revert InsufficientBalance(from, balance, amount);
        unchecked {
            balanceOf[from] = balance - amount;
            balanceOf[to] += amount;
        }
        emit Transfer(from, to, amount);
    }

    function _requireCompliant(address account) private view {
        if (!oracle.isCompliant(account)) revert NotCompliant(account);
    }
}
