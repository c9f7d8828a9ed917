"""Compliance status look-ups: requests/s and latency on gunicorn + PostgreSQL + Redis.

    .venv/bin/python bench/status.py [--duration 15] [--rounds 3] [--connections 16] [--rate 1000] [--paced 10]
                                      [--warmup 2] [--trace FILE] [--workers N] [--threads N] [--entities 2000] [--wallets-per-entity 5]
                                      [--batches 40]

Starts gunicorn on a fresh PostgreSQL database `bench_status` (override with BENCH_DATABASE_URL) and
Redis (BENCH_REDIS_URL), seeds entities with EVM wallets, issues premium viewer keys, and measures:

- `GET /v1/developer/whoami` first, as the reference: the platform layer alone (key, limiter, role);
- `GET /v1/compliance/status/wallet/{chain_id}/{address}` (wrk; random wallets, mixed-case addresses;
  goal >= 1,000 requests/s with p99 <= 20 ms);
- `GET /v1/compliance/status/{entity_id}` (wrk; random entities);
- the wallet look-up again at a fixed offered rate (`--rate`, 1,000/s, for `--paced` seconds), open
  loop (bench/harness.paced_run: latency from each request's due time, so queueing shows): wrk's
  closed loop at 16 connections cannot show p99 at a given rate (by Little's law its mean latency
  is 16 / throughput); its first `--warmup` seconds are not counted (the client opening its
  connections), `--trace` writes every request's due time and latency;
- `POST /v1/compliance/batch/status` with 1,000 wallets (sequential requests; goal <= 200 ms).

Requests rotate over enough keys that none reaches the 1,000/min premium limit (non-200 answers are
counted and printed). wrk (Debian package `wrk`) is installed when missing and run as root. The
server and the load generator share the machine's cores. gunicorn runs with gunicorn.conf.py, the
production settings, unless --workers/--threads override them.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import ensure_wrk, fresh_database, gunicorn, gunicorn_settings, manage, paced_run, parse_wrk, settle_database  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

SEED = """
import json, random
from onboarding.models import Entity, Wallet
from organizations.models import Organization
from organizations.services import api_key_issue
org = Organization.objects.get(slug="bench")
random.seed(7)
entities = Entity.objects.bulk_create([
    Entity(organization=org, mode="live", legal_name=f"Bench Entity {i}", entity_type="business", jurisdiction="US",
           status=random.choice(["active", "active", "active", "pending", "suspended"]), risk_score=random.randint(0, 100),
           risk_tier=random.choice(["low", "medium", "high", "critical"]), sanctioned=random.random() < 0.02)
    for i in range(%(entities)d)], batch_size=1000)
wallets = [Wallet(organization=org, mode="live", entity=e, chain_id=1, address="0x" + random.randbytes(20).hex(),
                  flagged=random.random() < 0.05) for e in entities for _ in range(%(per)d)]
Wallet.objects.bulk_create(wallets, batch_size=2000)
keys = [api_key_issue(organization=org, mode="live", tier="premium", role="viewer", name=f"bench {i}").secret for i in range(%(keys)d)]
print(json.dumps({"keys": keys, "entities": [str(e.pk) for e in entities], "wallets": [w.address for w in wallets]}))
"""

WRK_SCRIPT = """
keys = {%(keys)s}
paths = {%(paths)s}
counter = 0
non200 = 0
request = function()
  counter = counter + 1
  local key = keys[(counter %% #keys) + 1]
  local path = paths[(counter * 7919 %% #paths) + 1]
  return wrk.format("GET", path, {["Authorization"] = "Bearer " .. key})
end
response = function(status, headers, body)
  if status ~= 200 then non200 = non200 + 1 end
end
done = function(summary, latency, requests)
  io.write(string.format("NON200 %%d\\n", non200))
end
"""


def mixed_case(address: str) -> str:
    return "0x" + "".join(ch.upper() if random.random() < 0.5 else ch for ch in address[2:])


def run_wrk(wrk, base, keys, paths, duration, connections) -> dict:
    script = Path(tempfile.mkstemp(suffix=".lua")[1])
    script.write_text(WRK_SCRIPT % {"keys": ", ".join(f'"{k}"' for k in keys), "paths": ", ".join(f'"{p}"' for p in paths)})
    out = subprocess.run([wrk, "-t2", f"-c{connections}", f"-d{duration}s", "--latency", "-s", str(script), base],
                         check=True, capture_output=True, text=True).stdout
    script.unlink()
    return parse_wrk(out)


def combine(results: list[dict]) -> dict:
    """Rounds of one endpoint: mean requests/s, median of the p50s, worst p99, summed non-200."""
    return {"rps": statistics.fmean(r["rps"] for r in results), "p50": statistics.median(r["p50"] for r in results),
            "p99": max(r["p99"] for r in results), "non200": sum(r["non200"] for r in results)}


def run_batches(base, keys, wallets, count) -> dict:
    timings, sizes = [], []
    for index in range(count):
        body = json.dumps({"wallets": [{"chain_id": 1, "address": a} for a in random.sample(wallets, 1000)]}).encode()
        request = urllib.request.Request(base + "/v1/compliance/batch/status", data=body, method="POST", headers={
            "Authorization": f"Bearer {keys[index % len(keys)]}", "Content-Type": "application/json"})
        start = time.perf_counter()
        with urllib.request.urlopen(request, timeout=30) as response:
            payload = response.read()
        timings.append((time.perf_counter() - start) * 1000)
        sizes.append(len(json.loads(payload)))
    timings.sort()
    return {"median": statistics.median(timings), "p99": timings[min(len(timings) - 1, int(len(timings) * 0.99))],
            "max": timings[-1], "items": sizes[0]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=int, default=15)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=None, help="gunicorn processes (default: gunicorn.conf.py)")
    parser.add_argument("--threads", type=int, default=None, help="threads per process (default: gunicorn.conf.py)")
    parser.add_argument("--rate", type=float, default=1000, help="offered requests/s of the open-loop wallet run")
    parser.add_argument("--paced", type=float, default=10, help="seconds of the open-loop wallet run (0: skip)")
    parser.add_argument("--warmup", type=float, default=2, help="seconds of the open-loop run before it is counted (connections opening)")
    parser.add_argument("--trace", type=Path, help="write each open-loop request's due time and latency (s, ms) to this file")
    parser.add_argument("--entities", type=int, default=2000)
    parser.add_argument("--wallets-per-entity", type=int, default=5)
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per endpoint (duration is split over them)")
    args = parser.parse_args()
    random.seed(11)

    wrk = ensure_wrk()
    load_before = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    data_dir = Path(tempfile.mkdtemp(prefix="bench-status-"))
    redis_url = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/6")
    env = {
        **os.environ,
        "DATABASE_URL": fresh_database(os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench_status")),
        "REDIS_URL": redis_url, "CELERY_BROKER_URL": redis_url, "CACHE_KEY_PREFIX": f"bench-status-{os.getpid()}",
        "DATA_DIR": str(data_dir), "LOG_LEVEL": "WARNING",
    }
    manage(env, "migrate", "-v0")
    manage(env, "create_org", "--slug", "bench", "--name", "Bench", "--admin-email", "bench@example.com")
    key_count = max(16, args.duration * 3000 // 1000 + 16)  # rotation keeps every key under 1,000 requests a minute
    seeded = json.loads(manage(env, "shell", "-c", SEED % {"entities": args.entities, "per": args.wallets_per_entity,
                                                           "keys": key_count}).strip().splitlines()[-1])
    keys, wallets = seeded["keys"], seeded["wallets"]
    settle_database(env["DATABASE_URL"])
    wallet_paths = [f"/v1/compliance/status/wallet/1/{mixed_case(a) if i % 2 else a}" for i, a in enumerate(random.sample(wallets, 2000))]
    entity_paths = [f"/v1/compliance/status/{e}" for e in random.sample(seeded["entities"], min(2000, len(seeded["entities"])))]

    try:
        with gunicorn(env, workers=args.workers, threads=args.threads) as base:
            run_wrk(wrk, base, keys, wallet_paths, 3, args.connections)  # warm-up: key caches, connections
            manage(env, "shell", "-c", "from common.ratelimit import reset_all; reset_all()")
            # Interleaved rounds, so that a change of background load hits every endpoint alike.
            slices = {"whoami": [], "wallet": [], "entity": []}
            for _ in range(args.rounds):
                for name, paths in (("whoami", ["/v1/developer/whoami"]), ("wallet", wallet_paths), ("entity", entity_paths)):
                    manage(env, "shell", "-c", "from common.ratelimit import reset_all; reset_all()")
                    slices[name].append(run_wrk(wrk, base, keys, paths, max(1, args.duration // args.rounds), args.connections))
            whoami, wallet, entity = (combine(slices[name]) for name in ("whoami", "wallet", "entity"))
            paced = None
            if args.paced:
                manage(env, "shell", "-c", "from common.ratelimit import reset_all; reset_all()")
                requests = [f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {keys[i % len(keys)]}\r\n\r\n"
                            .encode() for i, path in enumerate(wallet_paths)]
                paced = paced_run(base, requests, rate=args.rate, duration=args.paced, warmup=args.warmup, trace=args.trace)
            manage(env, "shell", "-c", "from common.ratelimit import reset_all; reset_all()")
            run_batches(base, keys, wallets, 3)
            batch = run_batches(base, keys, wallets, args.batches)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)

    print(f"{gunicorn_settings(args.workers, args.threads)}; wrk 2 threads, {args.connections} connections, "
          f"{args.duration}s each in {args.rounds} interleaved rounds; PostgreSQL + Redis; {os.cpu_count()} cores shared by server and "
          f"load generator (load average before: {load_before}); {args.entities} entities, {len(wallets)} wallets")
    print(f"{'endpoint':52} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'non-200':>8}")
    rows = (("GET /v1/developer/whoami (platform reference)", whoami), ("GET /v1/compliance/status/wallet/{chain}/{address}", wallet),
            ("GET /v1/compliance/status/{entity_id}", entity))
    for name, result in rows:
        print(f"{name:52} {result['rps']:8.0f} {result['p50']:8.2f} {result['p99']:8.2f} {result['non200']:8d}")
    if paced:
        print(f"{'wallet look-up, open loop at ' + format(paced['offered'], '.0f') + '/s':52} {paced['rps']:8.0f} "
              f"{paced['p50']:8.2f} {paced['p99']:8.2f} {paced['non200']:8d}   (max {paced['max']:.1f} ms, "
              f"{paced['requests']} requests over {args.paced:.0f}s; client used {paced['client_cpu'] * 100:.0f}% of a core, "
              f"sent at most {paced['send_lag_max']:.1f} ms late, {paced['late_sends']} over 5 ms)")
    print(f"POST /v1/compliance/batch/status, {batch['items']} wallets: median {batch['median']:.1f} ms, p99 {batch['p99']:.1f} ms, "
          f"max {batch['max']:.1f} ms over {args.batches} requests")
    print(f"wallet look-up / whoami: {wallet['rps'] / whoami['rps']:.2f} of the platform's own authenticated GET")
    print("goals: wallet look-up >= 1,000 req/s with p99 <= 20 ms; batch of 1,000 wallets <= 200 ms")


if __name__ == "__main__":
    main()
