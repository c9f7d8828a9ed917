"""Time-ordered identifiers (UUID version 7, RFC 9562) for high-volume rows.

Ids that grow with ingestion keep the primary-key index append-only (no random page splits on a
million-row table) and give same-timestamp events a stable order: ingestion order, which is what
makes a replay evaluate events exactly as live ingestion did.
"""

import os
import threading
import time
import uuid

_lock = threading.Lock()
_last = {"ms": 0, "counter": 0}


def uuid7() -> uuid.UUID:
    """48-bit Unix milliseconds, then a 12-bit counter (monotonic within a process and
    millisecond), then 62 random bits."""
    with _lock:
        ms = time.time_ns() // 1_000_000
        if ms <= _last["ms"]:
            _last["counter"] += 1
            if _last["counter"] > 0xFFF:  # 4,096 ids in one millisecond: borrow the next one
                _last["ms"] += 1
                _last["counter"] = 0
            ms = _last["ms"]
        else:
            _last["ms"], _last["counter"] = ms, 0
        counter = _last["counter"]
    random_bits = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    value = (ms << 80) | (0x7 << 76) | (counter << 64) | (0b10 << 62) | random_bits
    return uuid.UUID(int=value)
