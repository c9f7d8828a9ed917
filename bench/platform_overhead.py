"""Platform overhead: an authenticated, rate-limited GET against a bare Django view, same server.

    .venv/bin/python bench/platform_overhead.py [--duration 15] [--connections 16] [--workers N] [--threads N]

Starts gunicorn on PostgreSQL + Redis (a fresh database `bench_platform`; override with
BENCH_DATABASE_URL / BENCH_REDIS_URL), issues premium admin API keys, and drives two endpoints with
wrk (Debian package `wrk`, installed when missing and run as root):

- `GET /health/live`: a bare Django view returning constant JSON, through the same middleware stack;
- `GET /v1/developer/whoami` with a premium key: the platform layer alone (key lookup, sliding-window
  limiter in Redis, role check, error mapping, limit headers) around a tiny response;
- `GET /v1/developer/api-keys` with a premium key: the same plus a tenant-scoped count and a page of
  20 serialized rows, for scale.

Requests rotate over enough keys that none is refused by the 1,000/min limit (429s are counted and
printed). Prints requests/s, p50 and p99 of both, and their ratio (goal ≥ 0.5).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import ensure_wrk, fresh_database, gunicorn, gunicorn_settings, manage, parse_wrk  # noqa: E402

ENDPOINTS = [
    ("GET /health/live (bare Django view)", "/health/live", False),
    ("GET /v1/developer/whoami (premium key)", "/v1/developer/whoami", True),
    ("GET /v1/developer/api-keys (20-row page)", "/v1/developer/api-keys", True),
]

WRK_SCRIPT = """
keys = {%(keys)s}
counter = 0
non200 = 0
request = function()
  counter = counter + 1
  local key = keys[(counter %% #keys) + 1]
  return wrk.format("GET", "%(path)s", {["Authorization"] = "Bearer " .. key})
end
response = function(status, headers, body)
  if status ~= 200 then non200 = non200 + 1 end
end
done = function(summary, latency, requests)
  io.write(string.format("NON200 %%d\\n", non200))
end
"""


def run_wrk(wrk, url, path, keys, duration, connections) -> dict:
    script = Path(tempfile.mkstemp(suffix=".lua")[1])
    quoted = ", ".join(f'"{k}"' for k in keys) if keys else ""
    script.write_text(WRK_SCRIPT % {"keys": quoted, "path": path} if keys else
                      WRK_SCRIPT.replace("local key = keys[(counter %% #keys) + 1]\n", "")
                      .replace('{["Authorization"] = "Bearer " .. key}', "{}") % {"keys": "", "path": path})
    out = subprocess.run([wrk, "-t2", f"-c{connections}", f"-d{duration}s", "--latency", "-s", str(script), url],
                         check=True, capture_output=True, text=True).stdout
    script.unlink()
    return parse_wrk(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=int, default=15)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=None, help="gunicorn processes (default: gunicorn.conf.py)")
    parser.add_argument("--threads", type=int, default=None, help="threads per process (default: gunicorn.conf.py)")
    args = parser.parse_args()

    wrk = ensure_wrk()
    data_dir = Path(tempfile.mkdtemp(prefix="bench-platform-"))
    env = {
        **os.environ,
        "DATABASE_URL": fresh_database(os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench_platform")),
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5"),
        "CELERY_BROKER_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5"),
        "CACHE_KEY_PREFIX": f"bench-{os.getpid()}",
        "DATA_DIR": str(data_dir),
        "LOG_LEVEL": "WARNING",
    }
    manage(env, "migrate", "-v0")
    manage(env, "create_org", "--slug", "bench", "--name", "Bench", "--admin-email", "bench@example.com")
    # Enough premium keys that the rotation never reaches 1,000 requests per key per minute.
    key_count = max(8, int(args.duration * 4000 / 1000 * 60 / 60) + 8)
    keys = [manage(env, "create_api_key", "--org", "bench", "--mode", "live", "--tier", "premium", "--role", "admin")
            .strip().splitlines()[-1] for _ in range(key_count)]

    try:
        with gunicorn(env, workers=args.workers, threads=args.threads) as base:
            run_wrk(wrk, base, "/health/live", [], 3, args.connections)  # warm-up
            run_wrk(wrk, base, "/v1/developer/whoami", keys, 3, args.connections)
            results = {}
            for name, path, use_keys in ENDPOINTS:
                manage(env, "shell", "-c", "from common.ratelimit import reset_all; reset_all()")
                results[name] = run_wrk(wrk, base, path, keys if use_keys else [], args.duration, args.connections)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)

    print(f"{gunicorn_settings(args.workers, args.threads)}; wrk 2 threads, {args.connections} connections, "
          f"{args.duration}s each; PostgreSQL + Redis; {os.cpu_count()} cores shared by server and load generator")
    print(f"{'endpoint':46} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'non-200':>8} {'ratio':>6}")
    bare = results[ENDPOINTS[0][0]]["rps"]
    for name, result in results.items():
        print(f"{name:46} {result['rps']:9.0f} {result['p50']:8.2f} {result['p99']:8.2f} {result['non200']:8d} "
              f"{result['rps'] / bare:6.2f}")
    print("ratio = req/s of the endpoint / req/s of the bare view (goal for the authenticated GET: >= 0.5)")


if __name__ == "__main__":
    main()
