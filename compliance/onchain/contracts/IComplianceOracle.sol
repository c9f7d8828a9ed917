// SPDX-License-Identifier: MIT
pragma solidity ^0.8.37;

/// @title The compliance oracle's read interface (docs/oracle.md)
/// @notice What a protocol imports to read a wallet's compliance status. `isSanctioned` has the same
/// signature as the Chainalysis sanctions oracle, so a contract written against that oracle can point
/// at this one unchanged.
///
/// A status is one 256-bit word (see `ComplianceOracle` for the layout): a risk tier, a flags bitmask,
/// when the compliance service decided it (`updatedAt`), until when it vouches for it (`expiresAt`)
/// and a version that only grows. A wallet the service never published, or whose status has expired,
/// is UNKNOWN: never read an unknown wallet as compliant.
///
/// Flags (bit: meaning): 0 sanctioned, 1 suspended, 2 high risk, 3 under review, 4 politically exposed
/// person (PEP), 5 frozen; bits 6 to 15 are reserved for later flags and count as flags already.
interface IComplianceOracle {
    /// @notice A wallet's status as stored, and whether it is current.
    /// @param riskTier 0 none, 1 low, 2 medium, 3 high, 4 critical (the service's tiers)
    /// @param flags the flags bitmask (bit 0 sanctioned, 1 suspended, 2 high risk, 3 under review, 4 PEP, 5 frozen)
    /// @param updatedAt when the compliance service decided this status (unix seconds)
    /// @param expiresAt the status is current while block.timestamp < expiresAt (unix seconds)
    /// @param version the update's version; 0 = never published
    /// @param known true when the status was published (version > 0) and has not expired; false = unknown
    struct Status {
        uint8 riskTier;
        uint16 flags;
        uint40 updatedAt;
        uint40 expiresAt;
        uint64 version;
        bool known;
    }

    /// @notice The wallet's whole status; `known` is false when it was never published or has expired.
    function statusOf(address wallet) external view returns (Status memory);

    /// @notice `statusOf` for each wallet, in order.
    function statusesOf(address[] calldata wallets) external view returns (Status[] memory);

    /// @notice The stored status word, as `setStatuses` took it (0 = never published).
    function packedStatusOf(address wallet) external view returns (uint256);

    /// @notice True when the wallet has any flag bit set, or when its status has expired (the service no
    /// longer vouches for it). False for a current status without flags, and for a wallet never published:
    /// the oracle knows nothing against it, which is not the same as compliant (see `isCompliant`).
    function isFlagged(address wallet) external view returns (bool);

    /// @notice True only for a current status (published, not expired) without any flag bit. False for an
    /// unknown (never published or expired) wallet.
    function isCompliant(address wallet) external view returns (bool);

    /// @notice True when the last published status has the sanctioned bit (bit 0), expired or not: expiry
    /// never lifts a sanction, only a newer status does. False for a wallet never published. The same
    /// function as the Chainalysis sanctions oracle's.
    function isSanctioned(address addr) external view returns (bool);
}
