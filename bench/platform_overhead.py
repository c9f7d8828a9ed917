"""Platform overhead: an authenticated, rate-limited GET against a bare Django view, same server.

    .venv/bin/python bench/platform_overhead.py [--duration 15] [--connections 16] [--workers 2] [--threads 4]

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
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ensure_wrk() -> str:
    if shutil.which("wrk"):
        return "wrk"
    if os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True, capture_output=True)
        return "wrk"
    sys.exit("wrk is not installed: apt-get install wrk")


def fresh_database(url: str) -> str:
    base, _, name = url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url


def manage(env, *args) -> str:
    return subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout


def wait_for(url: str, timeout: float = 30) -> None:
    import urllib.request

    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"server did not answer at {url}")


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


def to_ms(value: str) -> float:
    number, unit = re.match(r"([\d.]+)(us|ms|s)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def parse_wrk(out: str) -> dict:
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": to_ms(re.search(r"\s50%\s+(\S+)", out).group(1)),
        "p99": to_ms(re.search(r"\s99%\s+(\S+)", out).group(1)),
        "requests": int(re.search(r"(\d+) requests in", out).group(1)),
        "non200": int(re.search(r"NON200 (\d+)", out).group(1)),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=int, default=15)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
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

    port = free_port()
    server = subprocess.Popen(
        [PYTHON, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", str(args.workers),
         "--threads", str(args.threads), "--worker-class", "gthread", "--log-level", "warning"],
        cwd=ROOT, env=env, start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(base + "/health/live")
        run_wrk(wrk, base, "/health/live", [], 3, args.connections)  # warm-up
        run_wrk(wrk, base, "/v1/developer/whoami", keys, 3, args.connections)
        results = {}
        for name, path, use_keys in ENDPOINTS:
            manage(env, "shell", "-c", "from common.ratelimit import reset_all; reset_all()")
            results[name] = run_wrk(wrk, base, path, keys if use_keys else [], args.duration, args.connections)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)
        shutil.rmtree(data_dir, ignore_errors=True)

    print(f"gunicorn gthread {args.workers} workers x {args.threads} threads; wrk 2 threads, {args.connections} connections, "
          f"{args.duration}s each; PostgreSQL + Redis; {os.cpu_count()} cores shared by server and load generator")
    print(f"{'endpoint':46} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'non-200':>8} {'ratio':>6}")
    bare = results[ENDPOINTS[0][0]]["rps"]
    for name, result in results.items():
        print(f"{name:46} {result['rps']:9.0f} {result['p50']:8.2f} {result['p99']:8.2f} {result['non200']:8d} "
              f"{result['rps'] / bare:6.2f}")
    print("ratio = req/s of the endpoint / req/s of the bare view (goal for the authenticated GET: >= 0.5)")


if __name__ == "__main__":
    main()
