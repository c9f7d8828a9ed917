"""Random credentials and their stored form."""

import hashlib
import secrets
import string

BASE62 = string.digits + string.ascii_letters


_UNBIASED = 256 - 256 % len(BASE62)  # 248: bytes below it map onto the 62 characters evenly


def random_base62(length: int) -> str:
    """`length` characters drawn uniformly from BASE62: random bytes, those of 248 and over dropped
    (so that each character is equally likely), the rest taken modulo 62. One read of the system's
    random source rather than one per character (secrets.choice): monitoring makes an event id for
    every alert and case it opens."""
    out: list[str] = []
    while len(out) < length:
        out += [BASE62[byte % len(BASE62)] for byte in secrets.token_bytes(length + 8) if byte < _UNBIASED]
    return "".join(out[:length])


def new_secret(prefix: str, length: int = 40) -> str:
    """`prefix` + `length` base62 characters (40 chars ≈ 238 bits)."""
    return prefix + random_base62(length)


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
