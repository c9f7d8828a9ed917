"""Addresses per docs/architecture.md §5: chain_id > 0 is an EVM chain (20-byte hex, EIP-55 checksum verified
when mixed-case, stored lower-case); chain_id 0 or absent is off-chain (free-form identifiers)."""

import re

from eth_utils import is_checksum_address

MAX_CHAIN_ID = 2**63 - 1
"""Chain ids are stored in a (positive) 64-bit integer column."""
EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
MAX_OFFCHAIN_LENGTH = 200


class AddressError(ValueError):
    pass


def is_evm(chain_id: int | None) -> bool:
    return bool(chain_id) and chain_id > 0


def normalized_address(chain_id: int | None, address: str) -> str:
    """The stored form of `address` on `chain_id`, or AddressError saying what is wrong."""
    address = (address or "").strip()
    if not address:
        raise AddressError("The address is empty.")
    if not is_evm(chain_id):
        if len(address) > MAX_OFFCHAIN_LENGTH:
            raise AddressError(f"Off-chain identifiers are at most {MAX_OFFCHAIN_LENGTH} characters.")
        return address
    if not EVM_ADDRESS.match(address):
        raise AddressError("An EVM address is 0x followed by 40 hexadecimal characters.")
    body = address[2:]
    if body != body.lower() and body != body.upper() and not is_checksum_address(address):
        raise AddressError("The mixed-case address fails its EIP-55 checksum (a typo?).")
    return address.lower()


def normalize_transfer_addresses(attrs: dict, names=("from_address", "to_address")) -> dict:
    """Replace each named address of a validated body by its stored form on attrs["chain_id"];
    returns the field errors ({name: [why]}) of those that are not addresses there."""
    errors = {}
    for name in names:
        try:
            attrs[name] = normalized_address(attrs["chain_id"], attrs[name])
        except AddressError as exc:
            errors[name] = [str(exc)]
    return errors
