"""Schemathesis hooks for tests/fuzz/run.py (loaded through SCHEMATHESIS_HOOKS).

- Every request carries the next of the run's API keys, in turn, so that no one key's per-minute
  limit shapes the answers (FUZZ_API_KEYS, comma-separated).
- Two path ids in three are replaced by a real one of the seeded demo organization (FUZZ_IDS: JSON
  {"name": id, "/path/prefix/{id}": id}), so that the operations behind an id are reached, not
  only their 404; the third keeps the generated value (malformed and unknown ids stay covered).
  The choice follows the generated value (a CRC), so a replayed case is the same request.
"""

import itertools
import json
import os
import threading
import zlib

import schemathesis

KEYS = [key for key in os.environ.get("FUZZ_API_KEYS", "").split(",") if key]
IDS = json.loads(os.environ.get("FUZZ_IDS") or "{}")
_turn = itertools.cycle(KEYS)
_lock = threading.Lock()


@schemathesis.auth(refresh_interval=None)
class RotatingBearer:
    def get(self, case, ctx):
        with _lock:  # schemathesis' workers are threads
            return next(_turn)

    def set(self, case, data, ctx):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


def real_id(path: str, name: str):
    """The seeded id for a path parameter: by the path's prefix for the generic {id}, else by name."""
    if name == "id":
        return next((value for prefix, value in IDS.items() if prefix.startswith("/") and path.startswith(prefix)), None)
    return IDS.get(name)


@schemathesis.hook
def before_call(context, case, **kwargs):
    for name, value in list((case.path_parameters or {}).items()):
        wanted = real_id(case.operation.path, name)
        if wanted is not None and zlib.crc32(repr(value).encode()) % 3:
            case.path_parameters[name] = wanted
