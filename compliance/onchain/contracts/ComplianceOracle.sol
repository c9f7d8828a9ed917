// SPDX-License-Identifier: MIT
pragma solidity ^0.8.37;

import {IComplianceOracle} from "./IComplianceOracle.sol";

/// @title Compliance oracle: wallet statuses published by the compliance service (docs/oracle.md)
/// @notice Operators (the service's publisher accounts) write statuses in batches; anyone reads them.
/// The owner adds and removes operators and hands ownership on (two steps: transfer, then accept).
///
/// Status word, one storage slot per wallet (bit 0 is the least significant):
///
///   bits   0..7    riskTier   uint8   0 none, 1 low, 2 medium, 3 high, 4 critical
///   bits   8..23   flags      uint16  bit 0 sanctioned, 1 suspended, 2 high risk, 3 under review,
///                                     4 PEP, 5 frozen; 6..15 reserved (they count as flags)
///   bits  24..63   updatedAt  uint40  when the service decided the status (unix seconds)
///   bits  64..103  expiresAt  uint40  current while block.timestamp < expiresAt (unix seconds)
///   bits 104..167  version    uint64  grows with every update of the wallet; 0 = never published
///   bits 168..255  zero
///
/// Ordering: an update whose version is not greater than the stored one is SKIPPED, not reverted, and
/// emits `StatusSkipped`, so a replayed or reordered batch changes nothing and never fails the others.
/// Expiry: a status past `expiresAt` is unknown (`known` false, `isCompliant` false, `isFlagged` true);
/// its sanctioned bit still counts for `isSanctioned`. To withdraw a status, publish a newer version
/// with `expiresAt` in the past (unknown) or without flags (cleared).
contract ComplianceOracle is IComplianceOracle {
    /// @notice Flag bits of the status word's `flags` field.
    uint16 public constant FLAG_SANCTIONED = 1 << 0;
    uint16 public constant FLAG_SUSPENDED = 1 << 1;
    uint16 public constant FLAG_HIGH_RISK = 1 << 2;
    uint16 public constant FLAG_UNDER_REVIEW = 1 << 3;
    uint16 public constant FLAG_PEP = 1 << 4;
    uint16 public constant FLAG_FROZEN = 1 << 5;

    uint256 private constant _FLAGS_SHIFT = 8;
    uint256 private constant _UPDATED_AT_SHIFT = 24;
    uint256 private constant _EXPIRES_AT_SHIFT = 64;
    uint256 private constant _VERSION_SHIFT = 104;
    uint256 private constant _USED_BITS = 168;

    address public owner;
    address public pendingOwner;
    mapping(address account => bool) public isOperator;
    mapping(address wallet => uint256 word) private _statuses;

    /// @notice A wallet's status was written (the fields of the new word).
    event StatusUpdated(
        address indexed wallet, uint64 version, uint8 riskTier, uint16 flags, uint40 updatedAt, uint40 expiresAt
    );
    /// @notice An update was skipped: its version was not greater than the stored one.
    event StatusSkipped(address indexed wallet, uint64 version, uint64 storedVersion);
    event OperatorAdded(address indexed operator);
    event OperatorRemoved(address indexed operator);
    event OwnershipTransferStarted(address indexed previousOwner, address indexed newOwner);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error NotOwner(address caller);
    error NotPendingOwner(address caller);
    error NotOperator(address caller);
    error ZeroAddress();
    error LengthMismatch(uint256 wallets, uint256 statuses);
    /// @notice The status word at `index` has bits set above bit 167.
    error MalformedStatus(uint256 index);

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    constructor(address initialOwner) {
        if (initialOwner == address(0)) revert ZeroAddress();
        owner = initialOwner;
        emit OwnershipTransferred(address(0), initialOwner);
    }

    // ---- reads ----

    /// @inheritdoc IComplianceOracle
    function statusOf(address wallet) external view returns (Status memory) {
        uint256 word = _statuses[wallet];
        // The ABI encoding of a Status is its six fields, a word each: written into scratch memory and
        // returned from there (the function ends here), which keeps the read near the cost of its SLOAD.
        assembly {
            let expiresAt := and(shr(_EXPIRES_AT_SHIFT, word), 0xffffffffff)
            mstore(0x00, and(word, 0xff))
            mstore(0x20, and(shr(_FLAGS_SHIFT, word), 0xffff))
            mstore(0x40, and(shr(_UPDATED_AT_SHIFT, word), 0xffffffffff))
            mstore(0x60, expiresAt)
            mstore(0x80, shr(_VERSION_SHIFT, word)) // the bits above the version are zero (setStatuses checks)
            mstore(0xa0, and(iszero(iszero(word)), lt(timestamp(), expiresAt)))
            return(0x00, 0xc0)
        }
    }

    /// @inheritdoc IComplianceOracle
    function statusesOf(address[] calldata wallets) external view returns (Status[] memory statuses) {
        statuses = new Status[](wallets.length);
        for (uint256 i; i < wallets.length; ++i) {
            statuses[i] = _unpack(_statuses[wallets[i]]);
        }
    }

    /// @inheritdoc IComplianceOracle
    function packedStatusOf(address wallet) external view returns (uint256) {
        return _statuses[wallet];
    }

    /// @inheritdoc IComplianceOracle
    function isFlagged(address wallet) external view returns (bool) {
        uint256 word = _statuses[wallet];
        if (word == 0) return false;
        return uint16(word >> _FLAGS_SHIFT) != 0 || block.timestamp >= uint40(word >> _EXPIRES_AT_SHIFT);
    }

    /// @inheritdoc IComplianceOracle
    function isCompliant(address wallet) external view returns (bool) {
        uint256 word = _statuses[wallet];
        return word != 0 && uint16(word >> _FLAGS_SHIFT) == 0 && block.timestamp < uint40(word >> _EXPIRES_AT_SHIFT);
    }

    /// @inheritdoc IComplianceOracle
    function isSanctioned(address addr) external view returns (bool) {
        return (_statuses[addr] >> _FLAGS_SHIFT) & FLAG_SANCTIONED != 0;
    }

    // ---- writes ----

    /// @notice Writes `packed[i]` (a status word, layout above) as the status of `wallets[i]`, unless its
    /// version is not greater than the stored one: then it is skipped (`StatusSkipped`). Operators only.
    /// @return written how many statuses were written (the others were skipped)
    function setStatuses(address[] calldata wallets, uint256[] calldata packed) external returns (uint256 written) {
        if (!isOperator[msg.sender]) revert NotOperator(msg.sender);
        uint256 count = wallets.length;
        if (packed.length != count) revert LengthMismatch(count, packed.length);
        for (uint256 i; i < count; ) {
            address wallet = wallets[i];
            uint256 word = packed[i];
            if (word >> _USED_BITS != 0) revert MalformedStatus(i);
            uint64 version = uint64(word >> _VERSION_SHIFT);
            uint64 storedVersion = uint64(_statuses[wallet] >> _VERSION_SHIFT);
            if (version > storedVersion) {
                _statuses[wallet] = word;
                emit StatusUpdated(
                    wallet, version, uint8(word), uint16(word >> _FLAGS_SHIFT), uint40(word >> _UPDATED_AT_SHIFT),
                    uint40(word >> _EXPIRES_AT_SHIFT)
                );
                unchecked { ++written; }
            } else {
                emit StatusSkipped(wallet, version, storedVersion);
            }
            unchecked { ++i; }
        }
    }

    // ---- administration ----

    /// @notice Lets `operator` write statuses. Owner only; no event when it already is one.
    function addOperator(address operator) external onlyOwner {
        if (operator == address(0)) revert ZeroAddress();
        if (isOperator[operator]) return;
        isOperator[operator] = true;
        emit OperatorAdded(operator);
    }

    /// @notice Stops `operator` writing statuses. Owner only; no event when it is not one.
    function removeOperator(address operator) external onlyOwner {
        if (!isOperator[operator]) return;
        isOperator[operator] = false;
        emit OperatorRemoved(operator);
    }

    /// @notice Starts handing ownership to `newOwner`, who must call `acceptOwnership`. Owner only.
    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert ZeroAddress();
        pendingOwner = newOwner;
        emit OwnershipTransferStarted(owner, newOwner);
    }

    /// @notice Completes a transfer of ownership; called by the pending owner.
    function acceptOwnership() external {
        if (msg.sender != pendingOwner) revert NotPendingOwner(msg.sender);
        emit OwnershipTransferred(owner, msg.sender);
        owner = msg.sender;
        pendingOwner = address(0);
    }

    function _unpack(uint256 word) private view returns (Status memory status) {
        status.riskTier = uint8(word);
        status.flags = uint16(word >> _FLAGS_SHIFT);
        status.updatedAt = uint40(word >> _UPDATED_AT_SHIFT);
        status.expiresAt = uint40(word >> _EXPIRES_AT_SHIFT);
        status.version = uint64(word >> _VERSION_SHIFT);
        status.known = word != 0 && block.timestamp < status.expiresAt;
    }
}
