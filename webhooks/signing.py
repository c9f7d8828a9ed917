"""HMAC-SHA256 signatures over `{timestamp}.{raw body}` (docs/webhooks.md), outbound and inbound."""

import hashlib
import hmac
import json

from common.secrets import new_secret
from webhooks.catalogue import iso_utc
from webhooks.models import Event

TOLERANCE_SECONDS = 300
SECRET_PREFIX = "whsec_"


def new_signing_secret() -> str:
    return new_secret(SECRET_PREFIX, 40)


def new_event_id() -> str:
    return new_secret("evt_", 24)


def signature(secret: str, timestamp: str, body: bytes) -> str:
    return hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def signature_matches(secret: str, timestamp: str, body: bytes, presented: str) -> bool:
    """Constant-time comparison; a presented value that is not ASCII simply does not match."""
    try:
        presented_bytes = presented.strip().lower().encode("ascii")
    except UnicodeEncodeError:
        return False
    return hmac.compare_digest(signature(secret, timestamp, body).encode(), presented_bytes)


def envelope_body(event: Event) -> bytes:
    """The exact bytes POSTed and signed: {id, type, created_at, data}."""
    envelope = {"id": event.public_id, "type": event.type, "created_at": iso_utc(event.created_at), "data": event.data}
    return json.dumps(envelope, separators=(",", ":"), ensure_ascii=False).encode()
