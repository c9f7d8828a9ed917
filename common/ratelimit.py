"""Sliding-window rate limiting (README, "Rate limits"): an exact log of request times per bucket.

A request is counted when fewer than `limit` requests of the same bucket fall in the last
`window` seconds. django-ratelimit, the usual Django package, counts in fixed windows and cannot
answer "when does the window reset" exactly, so it is not used here (docs/decisions.md).

Two backends with the same behaviour:
- Redis (REDIS_URL set): one Lua script per check, atomic on the server, times from Redis's clock
  so web processes on several machines agree.
- Database (embedded default): a row lock on the bucket, then count and insert in one transaction.
"""

import math
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from django.conf import settings
from django.db import transaction

from common.models import RateLimitBucket, RateLimitHit


@dataclass(frozen=True)
class LimitResult:
    allowed: bool
    limit: int
    remaining: int
    reset_at: int  # Unix seconds when the oldest counted request leaves the window
    version: str | None = None  # the value at `version_key`, read in the same round trip (Redis only)

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_at),
        }

    def refusal_headers(self) -> dict[str, str]:
        """A 429's headers: the three above and Retry-After (RFC 9110 §10.2.3, seconds), which HTTP
        clients and proxies honour without knowing the X-RateLimit-* names."""
        return {**self.headers(), "Retry-After": str(self.retry_after())}

    def retry_after(self) -> int:
        """Whole seconds until the oldest counted request leaves the window (at least 1)."""
        return max(self.reset_at - int(time.time()), 1)

    def retry_when(self) -> str:
        """'in 42 s (2026-11-25T11:49:52Z)': for the message; the header keeps the Unix time."""
        at = datetime.fromtimestamp(self.reset_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return f"in {self.retry_after()} s ({at})"


# KEYS[1] bucket, KEYS[2] a version key read in the same round trip (or the bucket again);
# ARGV: window_ms, limit, member suffix, count (1 = record, 0 = peek)
_REDIS_SCRIPT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  allowed = 1
  if ARGV[4] == '1' then
    redis.call('ZADD', KEYS[1], now, now .. '-' .. ARGV[3])
    count = count + 1
    redis.call('PEXPIRE', KEYS[1], window)
  end
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local first = now
if oldest[2] then first = tonumber(oldest[2]) end
local version = '0'
if KEYS[2] ~= KEYS[1] then version = redis.call('GET', KEYS[2]) or '0' end
return {allowed, count, first + window, version}
"""


@lru_cache(maxsize=1)
def _redis_script():
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL)
    return client.register_script(_REDIS_SCRIPT)


@lru_cache(maxsize=1)
def _script_runner():
    """The check's own lean connection (common.redis_wire); redis-py's script for other URLs."""
    from common.redis_wire import ScriptRunner

    runner = ScriptRunner.for_url(settings.REDIS_URL, _REDIS_SCRIPT)
    if runner is not None:
        return runner
    script = _redis_script()
    return lambda keys, args: script(keys=keys, args=args)


def redis_key(bucket: str) -> str:
    return f"{settings.RATE_LIMIT_KEY_PREFIX}:rl:{bucket}"


def _redis_check(bucket: str, limit: int, window: int, record: bool, version_key: str | None) -> LimitResult:
    key = redis_key(bucket)
    allowed, count, reset_ms, version = _script_runner()(
        [key, redis_key(version_key) if version_key else key],
        [window * 1000, limit, os.urandom(6).hex(), "1" if record else "0"],
    )
    return LimitResult(bool(allowed), limit, max(limit - int(count), 0), math.ceil(int(reset_ms) / 1000),
                       version.decode() if version_key else None)


def _database_check(bucket: str, limit: int, window: int, record: bool, version_key: str | None) -> LimitResult:
    now = time.time()
    with transaction.atomic():
        RateLimitBucket.objects.get_or_create(bucket=bucket)
        RateLimitBucket.objects.select_for_update().filter(bucket=bucket).update(touched_at=now)
        RateLimitHit.objects.filter(bucket=bucket, at__lte=now - window).delete()
        times = list(RateLimitHit.objects.filter(bucket=bucket).order_by("at").values_list("at", flat=True)[:limit])
        allowed = len(times) < limit
        if allowed and record:
            RateLimitHit.objects.create(bucket=bucket, at=now)
            times.append(now)
    first = times[0] if times else now
    return LimitResult(allowed, limit, max(limit - len(times), 0), math.ceil(first + window))


def check(bucket: str, *, limit: int, window: int | None = None, record: bool = True,
          version_key: str | None = None) -> LimitResult:
    """Count one request against `bucket` (when `record`) and say whether it is allowed. With
    Redis, `version_key`'s value comes back in the same round trip (see organizations.keyauth)."""
    window = window or settings.RATE_LIMIT_WINDOW_SECONDS
    backend = _redis_check if settings.REDIS_URL else _database_check
    return backend(bucket, limit, window, record, version_key)


def bump_version(version_key: str) -> None:
    """Change the value a later `check(..., version_key=...)` reads (Redis only)."""
    if settings.REDIS_URL:
        _redis_script().registered_client.incr(redis_key(version_key))


def current_version(version_key: str) -> str | None:
    """The value a `check(..., version_key=...)` would read now, as it reads it (Redis only)."""
    if not settings.REDIS_URL:
        return None
    value = _redis_script().registered_client.get(redis_key(version_key))
    return value.decode() if value is not None else "0"


def reset(bucket: str) -> None:
    """Forget a bucket (after a successful login, for the failure counter)."""
    if settings.REDIS_URL:
        _redis_script().registered_client.delete(redis_key(bucket))
    else:
        RateLimitHit.objects.filter(bucket=bucket).delete()


def reset_all() -> None:
    """Forget every bucket of this deployment (tests; an operator after an incident)."""
    if settings.REDIS_URL:
        client = _redis_script().registered_client
        for key in client.scan_iter(match=redis_key("*"), count=1000):
            client.delete(key)
    else:
        RateLimitHit.objects.all().delete()


def check_api_key(api_key, *, version_key: str | None = None) -> LimitResult:
    """The per-key limit of the key's tier. Each key is its own bucket, so test and live keys
    (always distinct keys) are counted apart. With limits switched off nothing is counted."""
    return check(f"key:{api_key.pk}", limit=settings.RATE_LIMIT_TIERS[api_key.tier],
                 record=settings.RATE_LIMIT_ENABLED, version_key=version_key)
