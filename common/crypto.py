"""Field encryption and keyed hashes for identifiers (tax ids) kept at rest.

Keys derive from FIELD_ENCRYPTION_KEY (falling back to SECRET_KEY) with HKDF, one per purpose, so
the encryption key and the matching-hash key are never the same bytes.
"""

import base64
import hashlib
import hmac
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings


@lru_cache(maxsize=8)
def _derived(purpose: str) -> bytes:
    master = (settings.FIELD_ENCRYPTION_KEY or settings.SECRET_KEY).encode()
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"compliance-service", info=purpose.encode()).derive(master)


def _fernet() -> Fernet:
    return Fernet(base64.urlsafe_b64encode(_derived("field-encryption")))


def encrypt(plaintext: str) -> str:
    return _fernet().encrypt(plaintext.encode()).decode()


def decrypt(token: str) -> str | None:
    """The plaintext, or None when the token was made with another key or is damaged."""
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken:
        return None


def keyed_hash(value: str, purpose: str) -> str:
    """HMAC-SHA256 of a normalised value: equal inputs match without the value being readable."""
    return hmac.new(_derived(f"keyed-hash:{purpose}"), value.encode(), hashlib.sha256).hexdigest()


def normalized_tax_id(value: str) -> str:
    return "".join(ch for ch in value.upper() if ch.isalnum())


def tax_id_fields(value: str | None) -> dict:
    """The three stored forms of a tax id: encrypted, last four characters, matching hash."""
    if not value:
        return {"tax_id_encrypted": "", "tax_id_last4": "", "tax_id_hash": ""}
    normal = normalized_tax_id(value)
    return {"tax_id_encrypted": encrypt(value), "tax_id_last4": normal[-4:], "tax_id_hash": keyed_hash(normal, "tax-id")}


def masked(last4: str) -> str | None:
    return f"•••••{last4}" if last4 else None
