"""The salt and commitment of a travel-rule transfer (docs/travel-rule.md, "Salt and commitment").

The on-chain transfer refers to its travel-rule record by a commitment that reveals nothing of the
personal data, yet binds the transaction to exactly that data:

    payload_digest = sha256(canonical JSON of {"originator": ..., "beneficiary": ...})
    commitment     = keccak256(transfer_id (16 bytes) || salt (32 bytes) || payload_digest (32 bytes))

Canonical JSON: keys sorted, no whitespace (separators "," and ":"), UTF-8, non-ASCII kept as is; a
side without travel-rule data is null. The salt (32 random bytes, per transfer) keeps anyone who can
guess the data (a name, an address) from confirming the guess against the public chain. Whoever holds
the record (the organization, and the customer through the travel-rule operation) can recompute the
commitment and show that the transaction and the record belong together.
"""

import hashlib
import json
import secrets
import uuid

from eth_utils import keccak


def new_salt() -> str:
    return "0x" + secrets.token_hex(32)


def payload_digest(originator, beneficiary) -> bytes:
    text = json.dumps({"originator": originator, "beneficiary": beneficiary}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).digest()


def commitment_of(transfer_id: uuid.UUID, salt: str, originator, beneficiary) -> str:
    preimage = transfer_id.bytes + bytes.fromhex(salt.removeprefix("0x")) + payload_digest(originator, beneficiary)
    return "0x" + keccak(preimage).hex()
