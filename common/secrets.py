"""Random credentials and their stored form."""

import hashlib
import secrets
import string

BASE62 = string.digits + string.ascii_letters


def random_base62(length: int) -> str:
    return "".join(secrets.choice(BASE62) for _ in range(length))


def new_secret(prefix: str, length: int = 40) -> str:
    """`prefix` + `length` base62 characters (40 chars ≈ 238 bits)."""
    return prefix + random_base62(length)


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
