"""Resolving the API key a request presents, and counting the request against its limit.

With Redis, a resolved key is kept in this process's memory and re-validated on every request by
a version number that the rate-limit script reads in the same round trip: revoking a key (or
changing its organization) bumps the version, so every process drops its copy on the very next
request. One Redis call per request, no database query; memory is only a cache, never the truth.
Without Redis (the embedded default) every request reads the key from the database.
"""

import threading
import time
from collections import OrderedDict
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from common import ratelimit
from common.secrets import secret_hash
from organizations import selectors
from organizations.models import ApiKey

MAX_ENTRIES = 10_000
MAX_AGE_SECONDS = 60  # re-read from the database now and then even without a version change

_local: "OrderedDict[str, tuple[ApiKey, str, float]]" = OrderedDict()
_lock = threading.Lock()


def _version_key(key_hash: str) -> str:
    return f"keyver:{key_hash}"


def _remembered(key_hash: str) -> tuple[ApiKey, str] | None:
    with _lock:
        entry = _local.get(key_hash)
        if entry is None or time.monotonic() - entry[2] > MAX_AGE_SECONDS:
            return None
        _local.move_to_end(key_hash)
        return entry[0], entry[1]


def _remember(key_hash: str, api_key: ApiKey, version: str) -> None:
    with _lock:
        _local[key_hash] = (api_key, version, time.monotonic())
        _local.move_to_end(key_hash)
        while len(_local) > MAX_ENTRIES:
            _local.popitem(last=False)


def _forget(key_hash: str) -> None:
    with _lock:
        _local.pop(key_hash, None)


def _touch(api_key: ApiKey) -> None:
    """Record use at most once a minute (a write per request would cost more than the request)."""
    now = timezone.now()
    if api_key.last_used_at is None or now - api_key.last_used_at > timedelta(minutes=1):
        ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=now)
        api_key.last_used_at = now


def authenticate(secret: str) -> tuple[ApiKey, ratelimit.LimitResult] | None:
    """The active key with this secret and this request's limit result, or None."""
    key_hash = secret_hash(secret)
    if not settings.REDIS_URL:
        api_key = selectors.api_key_by_hash(key_hash)
        if api_key is None:
            return None
        _touch(api_key)
        return api_key, ratelimit.check_api_key(api_key)
    remembered = _remembered(key_hash)
    if remembered is not None:
        api_key, version = remembered
        result = ratelimit.check_api_key(api_key, version_key=_version_key(key_hash))
        if result.version == version:
            _touch(api_key)
            return api_key, result
        _forget(key_hash)  # revoked or changed since: read it again (this request is already counted)
        version = result.version
    else:
        version = ratelimit.current_version(_version_key(key_hash))
    # The version is the one read BEFORE the key: a revocation committed in between bumps it after,
    # so the next request finds it changed and reads the key again (remembered under the version
    # read after, a key revoked meanwhile would pass in this process until MAX_AGE_SECONDS).
    api_key = selectors.api_key_by_hash(key_hash)
    if api_key is None:
        return None
    if remembered is None:
        result = ratelimit.check_api_key(api_key, version_key=_version_key(key_hash))
    _remember(key_hash, api_key, version)
    _touch(api_key)
    return api_key, result


def invalidate(*key_hashes: str) -> None:
    """After the current transaction commits, make every process re-read these keys."""

    def bump():
        for key_hash in key_hashes:
            _forget(key_hash)
            ratelimit.bump_version(_version_key(key_hash))

    transaction.on_commit(bump)
