"""Digital-currency addresses: the one canonical form both the loader and the wallet screen use.

EVM addresses (0x + 40 hex) are case-insensitive (mixed case is only the EIP-55 checksum) and so
are bech32 addresses (bc1..., ltc1..., tb1...): both are lower-cased. Base58 addresses (Bitcoin
legacy, Tron, Litecoin legacy, Monero, ...) are case-sensitive and kept exactly as written.
"""

from __future__ import annotations

import re

_EVM = re.compile(r"^0x[0-9a-fA-F]{40}$")
_BECH32 = re.compile(r"^(bc|tb|ltc|tltc|bcrt)1[0-9a-zA-Z]{6,}$", re.IGNORECASE)


def is_evm_address(address: str) -> bool:
    return bool(_EVM.match(address))


def canonical_address(address: str, *, chain_id: int | None = None) -> str:
    """The matching form of an address; `chain_id` > 0 (an EVM chain) always lower-cases."""
    text = (address or "").strip()
    if (chain_id is not None and chain_id > 0) or is_evm_address(text) or _BECH32.match(text):
        return text.lower()
    return text
