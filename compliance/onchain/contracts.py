"""Deploys the oracle's contracts with web3.py, and packs and unpacks a status word exactly as
ComplianceOracle.sol lays it out (docs/oracle.md, "The status word"):

    bits   0..7    risk_tier   uint8
    bits   8..23   flags       uint16  (Flag)
    bits  24..63   updated_at  uint40  unix seconds
    bits  64..103  expires_at  uint40  unix seconds
    bits 104..167  version     uint64
"""

import enum
from dataclasses import dataclass

from eth_abi import decode as abi_decode
from eth_utils import function_abi_to_4byte_selector, to_checksum_address

from compliance.onchain.artifacts import load_artifact


class Flag(enum.IntFlag):
    """The status word's flag bits (ComplianceOracle.FLAG_*)."""

    SANCTIONED = 1 << 0
    SUSPENDED = 1 << 1
    HIGH_RISK = 1 << 2
    UNDER_REVIEW = 1 << 3
    PEP = 1 << 4
    FROZEN = 1 << 5


class RiskTier(enum.IntEnum):
    NONE = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3
    CRITICAL = 4


# (field, shift, bits): the word's fields from the least significant bit.
LAYOUT = (("risk_tier", 0, 8), ("flags", 8, 16), ("updated_at", 24, 40), ("expires_at", 64, 40), ("version", 104, 64))
USED_BITS = 168


@dataclass(frozen=True)
class Status:
    risk_tier: int
    flags: int
    updated_at: int
    expires_at: int
    version: int


def pack_status(status: Status) -> int:
    """The uint256 status word of `status` (what setStatuses takes). Raises ValueError for a field out of range."""
    word = 0
    for field, shift, bits in LAYOUT:
        value = int(getattr(status, field))
        if not 0 <= value < 1 << bits:
            raise ValueError(f"{field}={value} does not fit in {bits} bits")
        word |= value << shift
    return word


def unpack_status(word: int) -> Status:
    """The fields of a status word (what packedStatusOf returns). Raises ValueError for bits above 167."""
    if not 0 <= word < 1 << USED_BITS:
        raise ValueError(f"not a status word: {word:#x} (bits above {USED_BITS - 1} are set, or it is negative)")
    return Status(**{field: (word >> shift) & ((1 << bits) - 1) for field, shift, bits in LAYOUT})


def contract_at(w3, name: str, address: str):
    """The web3 Contract `name` (its artifact's ABI) at `address`."""
    return w3.eth.contract(address=address, abi=load_artifact(name)["abi"])


def deploy(w3, name: str, *args, sender: str | None = None, gas: int | None = None):
    """Deploys contract `name` from its artifact with constructor `args`, from `sender` (default: the node's
    first account, which must be unlocked), waits for the receipt and returns the web3 Contract."""
    artifact = load_artifact(name)
    factory = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
    tx = {"from": sender or w3.eth.accounts[0]}
    if gas is not None:
        tx["gas"] = gas
    receipt = w3.eth.wait_for_transaction_receipt(factory.constructor(*args).transact(tx))
    if receipt["status"] != 1:
        raise RuntimeError(f"deploying {name} failed: {receipt}")
    return contract_at(w3, name, receipt["contractAddress"])


def decode_custom_error(contract, data) -> tuple[str, tuple]:
    """(name, arguments) of a custom error's revert data, from `contract`'s ABI; ("", ()) when unknown.
    `data` is a ContractCustomError's data (hex) or the raw bytes."""
    raw = bytes.fromhex(data.removeprefix("0x")) if isinstance(data, str) else bytes(data)
    for item in contract.abi:
        if item.get("type") == "error" and function_abi_to_4byte_selector(item) == raw[:4]:
            types = [argument["type"] for argument in item.get("inputs", [])]
            values = abi_decode(types, raw[4:])
            return item["name"], tuple(to_checksum_address(v) if t == "address" else v for t, v in zip(types, values, strict=True))
    return "", ()
