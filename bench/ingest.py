"""Ingestion and monitoring throughput over HTTP, the way issue 4's "Figures" measure it.

    .venv/bin/python bench/ingest.py [--transactions 100000] [--million] [--concurrency 4] [--keep-alive]
                                     [--workers N] [--threads N] [--celery-concurrency 2] [--history-days 31]
                                     [--per-day 10000] [--single-seconds 30] [--profile DIR]

(Figures, setup and where the time goes: docs/monitoring-performance.md.)

Creates a fresh PostgreSQL database (`bench_ingest`; BENCH_DATABASE_URL), Redis db 6 for cache, limiter
and broker (BENCH_REDIS_URL), an organization and premium admin keys (management commands), 10,000
entities with three registered wallets each in both modes (ORM bulk insert), tags for the service
counterparties (`load_address_tags`) and `--history-days` of earlier traffic (COPY), then VACUUM ANALYZE,
so that the timed run sees a steady-state history (and, on a server with autovacuum off, VACUUM and
ANALYZE between rounds wherever autovacuum's own thresholds would have started them). Then starts
gunicorn and one Celery worker (make run's settings by default) and sends:

- first, single transfers to `POST /v1/monitoring/transfers` at `--single-rate` requests/s on the calm
  system (open loop: latency counts from the scheduled send time, so a slow server cannot hide behind
  a slow client);
- then the same 1,000-transaction batches to `POST /v1/monitoring/transfers/batch` twice, interleaved
  in rounds: to the test mode with `run_monitoring: false` (storage alone) and to the live mode with
  all 53 rules on (the default settings), `--concurrency` in flight, each on a connection of its own
  unless `--keep-alive`.

Resident memory of the web and worker processes is sampled through the run, and what PostgreSQL's
backends wait for during the batches. Prints a table.
The mix: 10,000 customers, each transferring about once a day (most between 0.6 and 1.6 times, in a
rhythm of their own rather than at random moments), transfers on chain 1 (USDC, ETH),
chain 137 (USDT) and off-chain USD accounts (chain 0, fiat-like), mostly with a pool of tagged
services (exchanges, payment processors), some with each customer's own untagged counterparties,
some between customers and some to fresh addresses. Three in five customers spend (outflows around 60 USD, a
top-up of about 150 USD for every two or three of them), the others are paid (inflows around 80 USD);
one transfer in 250 is large (around 6,000 USD), either way.
"""

import argparse
import bisect
import contextlib
import heapq
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    ROOT,
    fresh_database,
    gunicorn_settings,
    manage,
    settle_database,
    start_celery_worker,
    start_gunicorn,
    stop_process,
)

SERVICE_CATEGORIES = ("exchange", "exchange", "exchange", "custodian", "payment_processor", "merchant")
CRYPTO = ((1, "USDC", Decimal(1)), (1, "ETH", Decimal(3000)), (137, "USDT", Decimal(1)))


# --- The traffic --------------------------------------------------------------------------------

def evm(label: str) -> str:
    return "0x" + uuid.uuid5(uuid.NAMESPACE_URL, label).hex + uuid.uuid5(uuid.NAMESPACE_DNS, label).hex[:8]


class Traffic:
    """A deterministic stream of transfers in time order (the same stream for both modes)."""

    def __init__(self, entities: int, per_day: int, start: datetime, seed: int = 7, stream: int | None = None):
        self.rnd = random.Random(seed)
        weights = [self.rnd.lognormvariate(0, 0.25) for _ in range(entities)]
        total, running = sum(weights), 0.0
        self.cumulative = []
        for weight in weights:
            running += weight
            self.cumulative.append(running / total)
        self.payee = [self.rnd.random() < 0.4 for _ in range(entities)]
        if stream is not None:  # the same customers, another stream of transfers
            self.rnd = random.Random(stream)
        # Customers keep a rhythm (each transfers every 1/rate days, give or take half of that),
        # rather than at Poisson moments: bunched random arrivals trip rule 18 (5x the daily average
        # within 24 hours) for a third of all customers, which real once-a-day customers do not.
        self.days_between = [total / (per_day * weight) for weight in weights]
        self.due = [(start + timedelta(days=self.rnd.random() * gap), entity) for entity, gap in enumerate(self.days_between)]
        heapq.heapify(self.due)
        self.entities, self.now, self.counter = entities, start, 0
        self.services = {chain: [evm(f"service-{chain}-{i}") for i in range(1500)] for chain in (1, 137)}
        self.services[0] = [f"psp-{i:05d}" for i in range(500)]

    @staticmethod
    def account(entity: int, chain: int) -> str:
        return f"acct-{entity:06d}" if chain == 0 else evm(f"customer-{entity}")

    def tags(self) -> list[tuple[int, str, str]]:
        return [(chain, address, SERVICE_CATEGORIES[i % len(SERVICE_CATEGORIES)])
                for chain, addresses in self.services.items() for i, address in enumerate(addresses)]

    def _next_entity(self) -> int:
        """The customer whose turn it is; the clock moves to that moment."""
        self.now, entity = heapq.heappop(self.due)
        gap = self.days_between[entity] * (0.5 + self.rnd.random())
        heapq.heappush(self.due, (self.now + timedelta(days=gap), entity))
        return entity

    def _customer(self, payee: bool) -> int:
        """Another customer, the busier more often."""
        while True:
            other = min(bisect.bisect_left(self.cumulative, self.rnd.random()), self.entities - 1)
            if self.payee[other] == payee:
                return other

    def _counterparty(self, entity: int, chain: int, outgoing: bool) -> tuple[str, int | None]:
        roll = self.rnd.random()
        if roll < 0.82:
            pool = self.services[chain]
            return pool[min(int(self.rnd.paretovariate(1.2)) - 1, len(pool) - 1)], None  # popular services repeat
        if roll < 0.92:  # the customer's own few counterparties (untagged)
            slot = self.rnd.randrange(3)
            return (f"ext-{entity}-{slot}" if chain == 0 else evm(f"own-cp-{entity}-{slot}")), None
        if roll < 0.95 and (outgoing or self.payee[entity]):  # customers pay customers (payers pay payees)
            other = self._customer(payee=not self.payee[entity])
            return self.account(other, chain), other
        return (f"ext-{self.rnd.getrandbits(48):x}" if chain == 0 else "0x" + f"{self.rnd.getrandbits(160):040x}"), None

    def item(self) -> tuple[dict, int, int | None]:
        """(API item, entity index, counterparty entity index or None)."""
        self.counter += 1
        entity = self._next_entity()
        if self.rnd.random() < 0.4:
            chain, asset, price = 0, "USD", Decimal(1)
        else:
            chain, asset, price = CRYPTO[self.rnd.choices((0, 1, 2), (6, 2, 3))[0]]
        if self.rnd.random() < 0.004:  # now and then a large transfer, either way
            outgoing, median, sigma = self.rnd.random() < 0.5, 6000, 0.6
        elif self.payee[entity]:  # receives payments (and settles to a bank account, outside this stream)
            outgoing, median, sigma = False, 80, 0.5
        else:  # spends, and tops up by a fixed amount now and then
            outgoing = self.rnd.random() < 0.7
            median, sigma = (60, 0.5) if outgoing else (150, 0.2)
        usd = Decimal(str(round(min(self.rnd.lognormvariate(math.log(median), sigma), 250000), 2)))
        amount = usd if price == 1 else (usd / price).quantize(Decimal("0.000001"))
        mine = self.account(entity, chain)
        other, other_entity = self._counterparty(entity, chain, outgoing)
        item = {"chain_id": chain, "from_address": mine if outgoing else other, "to_address": other if outgoing else mine,
                "amount": str(amount), "asset": asset, "timestamp": self.now.isoformat().replace("+00:00", "Z"),
                "tx_hash": f"0x{self.counter:016x}{self.rnd.getrandbits(64):016x}"}
        return item, entity, other_entity

    def batch(self, size: int) -> list[dict]:
        return [self.item()[0] for _ in range(size)]


# --- Seeding (in this process, through the ORM and COPY) ----------------------------------------

def setup_django(env: dict) -> None:
    os.environ.update({k: v for k, v in env.items() if k in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL",
                                                           "CACHE_KEY_PREFIX", "DATA_DIR")})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def seed_entities(org_slug: str, count: int, traffic: Traffic) -> dict[str, list[str]]:
    """`count` active entities per mode, each with an EVM wallet on chains 1 and 137 and an off-chain account;
    the ETH price (USDC, USDT and USD come with the organization)."""
    from monitoring.models import AssetPrice
    from onboarding.models import Entity, Wallet
    from organizations.models import Organization

    org = Organization.objects.get(slug=org_slug)
    for _, asset, price in CRYPTO:
        AssetPrice.objects.update_or_create(organization=org, asset=asset, defaults={"usd_rate": price})
    rnd = random.Random(3)
    ids = {}
    for mode in ("live", "test"):
        rows = [Entity(organization=org, mode=mode, legal_name=f"Customer {i:05d}", entity_type=rnd.choice(("business", "individual")),
                       jurisdiction=rnd.choices(("US", "CA", "GB", "DE", "IR"), (80, 8, 6, 5.9, 0.1))[0], status="active",
                       expected_monthly_volume_usd=Decimal(rnd.choice((50000, 250000))) if rnd.random() < 0.3 else None)
                for i in range(count)]
        Entity.objects.bulk_create(rows, batch_size=2000)
        wallets = [Wallet(organization=org, mode=mode, entity=row, chain_id=chain, address=traffic.account(i, chain))
                   for i, row in enumerate(rows) for chain in (0, 1, 137)]
        Wallet.objects.bulk_create(wallets, batch_size=5000)
        ids[mode] = [str(row.pk) for row in rows]
    return ids


def seed_history(org_slug: str, traffic: Traffic, ids: list[str], count: int) -> None:
    """Earlier traffic of the live mode, stored as already monitored (COPY, no evaluation)."""
    from django.db import connection

    from common.ids import uuid7
    from organizations.models import Organization

    org = Organization.objects.get(slug=org_slug)
    prices = {"USD": Decimal(1), **{asset: price for _, asset, price in CRYPTO}}
    columns = ("id", "created_at", "updated_at", "organization_id", "mode", "chain_id", "tx_hash", "log_index", "from_address",
               "to_address", "amount", "asset", "usd_value", "timestamp", "reference", "from_entity_id", "to_entity_id",
               "monitored", "source", "orphaned")
    now = datetime.now(UTC)
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY monitoring_transaction ({', '.join(columns)}) FROM STDIN") as copy:
        for _ in range(count):
            item, entity, other = traffic.item()
            mine_is_from = item["from_address"] == traffic.account(entity, item["chain_id"])
            sides = (ids[entity], ids[other] if other is not None else None)
            from_entity, to_entity = sides if mine_is_from else sides[::-1]
            usd = (Decimal(item["amount"]) * prices[item["asset"]]).quantize(Decimal("0.01"))
            copy.write_row((uuid7(), now, now, org.pk, "live", item["chain_id"], item["tx_hash"], 0, item["from_address"],
                            item["to_address"], item["amount"], item["asset"], usd, datetime.fromisoformat(item["timestamp"]), "",
                            from_entity, to_entity, True, "backfill", False))
    with connection.cursor() as cursor:
        cursor.execute("UPDATE onboarding_wallet SET first_seen_at = %s WHERE mode = 'live'", [traffic.now - timedelta(days=400)])


def write_tags(traffic: Traffic) -> Path:
    path = Path(tempfile.mkstemp(suffix=".csv", prefix="bench-tags-")[1])
    path.write_text("chain_id,address,category\n" + "".join(f"{c},{a},{k}\n" for c, a, k in traffic.tags()))
    return path


# --- Processes and memory -----------------------------------------------------------------------

def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(p) for p in (task / "children").read_text().split()]
    return found


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def reaped_cpu_seconds(pid: int) -> float:
    """CPU time of the process's children that have exited and been waited for (cutime + cstime)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """CPU time of the web workers, the Celery worker and PostgreSQL: what a phase cost whatever
    else the machine was doing. PostgreSQL's is that of the backends serving this database plus
    that of the server's processes that exited during the phase (parallel query workers, which
    live for one statement, and autovacuum workers), read off the postmaster's reaped-children
    time; a backend that exited counts from the snapshot before."""

    def __init__(self, web_pid: int, worker_pid: int):
        self.web_pid, self.worker_pid, self.postmaster_pid = web_pid, worker_pid, None

    def snapshot(self) -> dict[str, dict[int, float]]:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
            backends = [pid for (pid,) in cursor.fetchall()]
            if self.postmaster_pid is None:
                cursor.execute("SELECT pg_backend_pid()")
                own = cursor.fetchone()[0]
                self.postmaster_pid = int(Path(f"/proc/{own}/stat").read_text().rpartition(")")[2].split()[1])
        return {"web": {pid: cpu_seconds(pid) for pid in children(self.web_pid)},
                "worker": {pid: cpu_seconds(pid) for pid in (self.worker_pid, *children(self.worker_pid))},
                "db": {pid: cpu_seconds(pid) for pid in backends},
                "reaped": {self.postmaster_pid: reaped_cpu_seconds(self.postmaster_pid)}}

    @staticmethod
    def spent(before: dict, after: dict) -> dict[str, float]:
        used = {part: sum(max(0.0, value - before[part].get(pid, 0.0)) for pid, value in after[part].items())
                for part in ("web", "worker", "db")}
        gone = sum(value for pid, value in before["db"].items() if pid not in after["db"])
        reaped = sum(after["reaped"].values()) - sum(before["reaped"].values())
        used["db"] += max(0.0, reaped - gone)
        return used


class MemorySampler(threading.Thread):
    """RSS of every gunicorn worker and Celery process, every `every` seconds, with the transactions sent so far."""

    def __init__(self, groups: dict[str, int], progress, every: float = 2.0):
        super().__init__(daemon=True)
        self.groups, self.progress, self.every = groups, progress, every
        self.samples: list[tuple[int, dict[str, float]]] = []
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.wait(self.every):
            sample = {}
            for name, root in self.groups.items():
                for index, pid in enumerate([root, *children(root)]):
                    sample[f"{name}[{index}]" if index else f"{name} (main)"] = rss_mb(pid)
            self.samples.append((self.progress(), sample))


class DatabaseSampler(threading.Thread):
    """What the PostgreSQL backends of this database are doing, every `every` seconds: running a
    statement, waiting for a lock (and which), idle inside a transaction (the web or worker process
    is busy in Python between statements)."""

    def __init__(self, url: str, every: float = 0.2):
        super().__init__(daemon=True)
        self.url, self.every = url, every
        self.counts: dict[str, int] = {}
        self.stopped = threading.Event()

    def run(self):
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.stopped.wait(self.every):
                rows = conn.execute("SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE datname = "
                                    "current_database() AND pid <> pg_backend_pid() AND state <> 'idle' AND application_name <> %s",
                                    [Vacuum.NAME]).fetchall()
                for state, wait_type, wait in rows:
                    key = "running" if state == "active" and wait_type in (None, "CPU") else \
                        f"waiting: {wait_type} {wait}" if state == "active" else state
                    self.counts[key] = self.counts.get(key, 0) + 1

    def report(self) -> None:
        total = sum(self.counts.values())
        if total:
            print("\nPostgreSQL backends of this database, during the batches (share of non-idle samples):")
            for key, n in sorted(self.counts.items(), key=lambda item: -item[1])[:8]:
                print(f"  {key:52} {n / total:6.1%}")


# --- Sending ------------------------------------------------------------------------------------

class Client:
    """Threads with keep-alive sessions; every request rotates over the mode's keys."""

    def __init__(self, base: str, keys: list[str], threads: int):
        import requests

        self.base, self.keys, self.local = base, keys, threading.local()
        self.pool = ThreadPoolExecutor(max_workers=threads)
        self.requests, self.counter, self.lock = requests, 0, threading.Lock()
        self.errors: list[str] = []

    def _session(self):
        if not hasattr(self.local, "session"):
            self.local.session = self.requests.Session()
        return self.local.session

    def post(self, path: str, body: str, *, keep_alive: bool = True) -> tuple[float, dict | None]:
        """keep_alive=False: a connection of its own (closed after the answer), which any free web
        worker accepts, as behind a load balancer; a kept-alive connection stays with the worker
        that accepted it, so a few of them can leave one of two workers idle."""
        with self.lock:
            self.counter += 1
            key = self.keys[self.counter % len(self.keys)]
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        started = time.perf_counter()
        if keep_alive:
            response = self._session().post(self.base + path, data=body, timeout=300, headers=headers)
        else:
            response = self.requests.post(self.base + path, data=body, timeout=300, headers={**headers, "Connection": "close"})
        elapsed = time.perf_counter() - started
        if response.status_code != 200:
            self.errors.append(f"{response.status_code} {response.text[:300]}")
            return elapsed, None
        return elapsed, response.json()


def send_batches(client: Client, bodies: list[str], keep_alive: bool) -> tuple[float, list[float], list[dict]]:
    started = time.perf_counter()
    results = list(client.pool.map(lambda body: client.post("/v1/monitoring/transfers/batch", body, keep_alive=keep_alive), bodies))
    return time.perf_counter() - started, [r[0] for r in results], [r[1] for r in results if r[1]]


def single_ingest(client: Client, traffic: Traffic, rate: float, seconds: float) -> tuple[list[float], list[float]]:
    """Open loop: request i is due at start + i/rate. Returns the latencies counted from that moment
    (queueing included, also the client's own on a loaded machine) and the response times alone."""
    count = int(rate * seconds)
    bodies = [json.dumps(traffic.item()[0]) for _ in range(count)]
    start = time.perf_counter() + 0.5

    def one(index: int) -> tuple[float, float]:
        due = start + index / rate
        time.sleep(max(0.0, due - time.perf_counter()))
        elapsed, _ = client.post("/v1/monitoring/transfers", bodies[index])
        return time.perf_counter() - due, elapsed

    results = list(client.pool.map(one, range(count)))
    return [due for due, _ in results], [response for _, response in results]


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(pct / 100 * len(ordered)) - 1))] if ordered else float("nan")


# --- The run ------------------------------------------------------------------------------------

def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--transactions", type=int, default=100_000, help="transactions sent to each mode (timed)")
    parser.add_argument("--million", action="store_true", help="1,000,000 transactions to each mode")
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--round", type=int, default=20, help="batches per mode before switching modes")
    parser.add_argument("--concurrency", type=int, default=4, help="batch requests in flight")
    parser.add_argument("--keep-alive", action="store_true", help="send the batches over kept-alive connections (one per "
                                                                   "client thread) rather than a connection each")
    parser.add_argument("--workers", type=int, help="gunicorn worker processes (default: gunicorn.conf.py's, as make run)")
    parser.add_argument("--threads", type=int, help="gunicorn threads per worker (default: gunicorn.conf.py's, as make run)")
    parser.add_argument("--celery-concurrency", type=int, default=2, help="the Celery worker's processes (make run: 2)")
    parser.add_argument("--per-day", type=int, default=10_000, help="transactions per day of data time (all entities)")
    parser.add_argument("--history-days", type=int, default=31, help="days of earlier traffic stored before the run")
    parser.add_argument("--warmup", type=int, default=8_000,
                        help="transactions sent to each mode before anything is measured (the web processes keep the "
                             "histories they read: steady state needs each to have seen most entities, ~100,000)")
    parser.add_argument("--compare-typologies", action="store_true",
                        help="time all the rules against all but the network typologies (rules 6, 7, 15, 51-53) instead of "
                             "monitoring against storage alone: a second organization with the same customers and history, "
                             "those rules disabled, gets the same batches in the same rounds (issue 30)")
    parser.add_argument("--single-rate", type=float, default=50)
    parser.add_argument("--single-seconds", type=float, default=30)
    parser.add_argument("--profile", type=Path, help="record the web and Celery workers with py-spy (PY_SPY names the binary) "
                                                     "during the batches")
    args = parser.parse_args()
    if args.million:
        args.transactions = 1_000_000
    return args


def start_processes(env: dict, args) -> tuple[subprocess.Popen, subprocess.Popen, str]:
    web, base = start_gunicorn(env, workers=args.workers, threads=args.threads, extra=("--timeout", "300"))
    return web, start_celery_worker(env, concurrency=args.celery_concurrency), base


def start_profiler(args, web_pid: int, worker_pid: int) -> list[subprocess.Popen]:
    if not args.profile:
        return []
    args.profile.mkdir(parents=True, exist_ok=True)
    # py-spy installed into the project's virtualenv sits beside its interpreter, not on PATH.
    beside = Path(sys.executable).with_name("py-spy")
    spy = os.environ.get("PY_SPY") or (str(beside) if beside.exists() else "py-spy")
    return [subprocess.Popen([spy, "record", "--pid", str(pid), "--format", "raw", "--rate", "200", "--nonblocking",
                              "--output", str(args.profile / f"{name}-{pid}.txt")], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
            for name, root in (("web", web_pid), ("celery", worker_pid)) for pid in children(root)]


def run_singles(args, base: str, keys: list[str], traffic: Traffic, meter: CpuMeter) -> tuple[tuple[list, list], dict]:
    client = Client(base, keys, 16)
    single_ingest(client, traffic, args.single_rate, 2)  # every thread's first request, not counted
    time.sleep(1)
    before = meter.snapshot()
    singles = single_ingest(client, traffic, args.single_rate, args.single_seconds)
    time.sleep(2)  # the requests' after-effects in the worker (risk recomputation)
    return singles, {part: used / len(singles[0]) * 1000 for part, used in meter.spent(before, meter.snapshot()).items()}


class Vacuum:
    """Stands in for autovacuum when the server has it off (a CI setting; production servers keep it
    on). Between rounds, each table of the database is vacuumed and analysed where autovacuum would
    have done it by then, by autovacuum's own rules: VACUUM past `autovacuum_vacuum_threshold +
    _scale_factor × rows` dead rows or `autovacuum_vacuum_insert_threshold + _scale_factor × rows`
    rows inserted since the last (-1: never), ANALYZE past `autovacuum_analyze_threshold +
    _scale_factor × rows` rows changed, read from pg_stat_user_tables (the statistics autovacuum
    reads). Then a CHECKPOINT, so that the pages it dirtied are written before the next round rather
    than during it. Without it the new transfers never become all-visible and the sums' index-only
    scans turn into heap visits as a run goes on, which no production table shows. One connection,
    named so that DatabaseSampler leaves it out; its time is reported on its own, in neither mode's."""

    NAME = "bench-autovacuum-stand-in"
    SETTINGS = ("vacuum_threshold", "vacuum_scale_factor", "vacuum_insert_threshold", "vacuum_insert_scale_factor",
                "analyze_threshold", "analyze_scale_factor")

    def __init__(self, url: str):
        import psycopg

        self.runs, self.seconds = 0, 0.0
        self.conn = psycopg.connect(url, autocommit=True, application_name=self.NAME)
        self.server_on = self.conn.execute("SHOW autovacuum").fetchone()[0] == "on"
        self.limits = {name: float(self.conn.execute(f"SHOW autovacuum_{name}").fetchone()[0]) for name in self.SETTINGS}

    def due(self) -> list[tuple[str, str]]:
        """(command, table) for every table autovacuum would have vacuumed or analysed by now."""
        limit, due = self.limits, []
        rows = self.conn.execute("SELECT s.relname, greatest(c.reltuples, 0), s.n_dead_tup, s.n_ins_since_vacuum, "
                                 "s.n_mod_since_analyze FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid").fetchall()
        for table, tuples, dead, inserted, changed in rows:
            vacuum = dead > limit["vacuum_threshold"] + limit["vacuum_scale_factor"] * tuples or (
                limit["vacuum_insert_threshold"] >= 0
                and inserted > limit["vacuum_insert_threshold"] + limit["vacuum_insert_scale_factor"] * tuples)
            analyze = changed > limit["analyze_threshold"] + limit["analyze_scale_factor"] * tuples
            if vacuum or analyze:
                due.append(("VACUUM (ANALYZE)" if vacuum and analyze else "VACUUM" if vacuum else "ANALYZE", table))
        return due

    def maybe(self) -> None:
        if self.server_on:
            return
        due = self.due()
        if not due:
            return
        started = time.perf_counter()
        for command, table in due:
            self.conn.execute(f'{command} "{table}"')
        self.conn.execute("CHECKPOINT")
        self.seconds += time.perf_counter() - started
        self.runs += 1

    def describe(self) -> str:
        if self.server_on:
            return "autovacuum on"
        return (f"autovacuum off on this server: the benchmark vacuumed and analysed by autovacuum's rules between rounds "
                f"{self.runs} time(s) in its stead ({self.seconds:.1f} s, in neither mode's time)")


def run_batches(args, clients: dict, traffic: Traffic, meter: CpuMeter, sent: dict, vacuum: Vacuum) -> tuple[dict, dict]:
    """The same batches to storage alone (test mode) and with all 53 rules (live mode), in rounds."""
    totals = {"test": [0.0, [], []], "live": [0.0, [], []]}
    cpu = {mode: {"web": 0.0, "worker": 0.0, "db": 0.0} for mode in ("test", "live")}
    batches = math.ceil(args.transactions / args.batch)
    for first in range(0, batches, args.round):
        items = [json.dumps(traffic.batch(args.batch)) for _ in range(min(args.round, batches - first))]
        for mode, flag in (("test", "true" if args.compare_typologies else "false"), ("live", "true")):
            before = meter.snapshot()
            elapsed, latencies, bodies = send_batches(clients[mode], [f'{{"run_monitoring": {flag}, "transactions": {i}}}'
                                                                     for i in items], args.keep_alive)
            for part, used in meter.spent(before, meter.snapshot()).items():
                cpu[mode][part] += used
            totals[mode][0] += elapsed
            totals[mode][1] += latencies
            totals[mode][2] += bodies
        sent["n"] += len(items) * args.batch
        vacuum.maybe()
        done = first + len(items)
        baseline = BASELINE[args.compare_typologies]
        print(f"  {done * args.batch:>9,} per mode: {baseline} {done * args.batch / totals['test'][0]:7,.0f} tx/s, "
              f"monitoring {done * args.batch / totals['live'][0]:7,.0f} tx/s", flush=True)
    return totals, cpu


NETWORK_TYPOLOGIES = ("fan_in", "fan_out", "cyclic_flow", "scatter_gather", "gather_scatter", "layering_chain")
BASELINE = {False: "storage", True: "typologies off"}


def typologies_off_organization(env: dict, args, start: datetime, ids_count: int) -> list[str]:
    """The comparison organization: the same customers, wallets, tags and history, the network
    typologies disabled; returns its live-mode keys."""
    manage(env, "create_org", "--slug", "bench-off", "--name", "Bench without typologies", "--admin-email", "off@example.com")
    keys = [manage(env, "create_api_key", "--org", "bench-off", "--mode", "live", "--tier", "premium", "--role", "admin")
            .strip().splitlines()[-1] for _ in range(6)]
    traffic = Traffic(args.entities, args.per_day, start)  # the same stream: the same history as the first organization's
    tags = write_tags(traffic)
    manage(env, "load_address_tags", str(tags), "--org", "bench-off", "--source", "bench")
    tags.unlink()
    ids = seed_entities("bench-off", args.entities, traffic)
    seed_history("bench-off", traffic, ids["live"], ids_count)
    from monitoring.models import RuleSetting
    from organizations.models import Organization

    off = Organization.objects.get(slug="bench-off")
    RuleSetting.objects.bulk_create([RuleSetting(organization=off, rule_code=code, enabled=False) for code in NETWORK_TYPOLOGIES])
    return keys


def main():
    args = parse_args()
    redis = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/6")
    env = {**os.environ,
           "DATABASE_URL": fresh_database(os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench_ingest")),
           "REDIS_URL": redis, "CELERY_BROKER_URL": redis, "CACHE_KEY_PREFIX": f"bench-ingest-{os.getpid()}",
           "DATA_DIR": tempfile.mkdtemp(prefix="bench-ingest-"), "LOG_LEVEL": "WARNING"}
    subprocess.run(["redis-cli", "-u", redis, "FLUSHDB"], check=False, capture_output=True)
    print("setting up ...", flush=True)
    manage(env, "migrate", "-v0")
    manage(env, "create_org", "--slug", "bench", "--name", "Bench", "--admin-email", "bench@example.com")
    keys = {mode: [manage(env, "create_api_key", "--org", "bench", "--mode", mode, "--tier", "premium", "--role", "admin")
                   .strip().splitlines()[-1] for _ in range(6)] for mode in ("live", "test")}
    setup_django(env)
    days = args.history_days + (args.transactions + 2 * args.warmup + 20 * args.batch) / args.per_day  # the data ends about now
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=days)
    traffic = Traffic(args.entities, args.per_day, start)
    tags = write_tags(traffic)
    manage(env, "load_address_tags", str(tags), "--org", "bench", "--source", "bench")
    tags.unlink()
    ids = seed_entities("bench", args.entities, traffic)
    history = args.history_days * args.per_day
    print(f"seeded {args.entities:,} entities per mode; storing {history:,} earlier transfers ...", flush=True)
    seed_history("bench", traffic, ids["live"], history)
    if args.compare_typologies:
        keys["test"] = typologies_off_organization(env, args, start, history)
    from django.db import connections

    connections.close_all()
    # A steady state: the stored history vacuumed and analysed, as autovacuum leaves a production
    # table's older rows (all-visible: the sums read the covering indexes alone), whether or not
    # this server runs autovacuum, and whenever it would have woken up.
    settle_database(env["DATABASE_URL"])
    vacuum = Vacuum(env["DATABASE_URL"])

    web, worker, base = start_processes(env, args)
    sent = {"n": 0}
    sampler = MemorySampler({"gunicorn": web.pid, "celery": worker.pid}, lambda: sent["n"])
    clients = {mode: Client(base, keys[mode], args.concurrency) for mode in ("live", "test")}
    meter, profilers = CpuMeter(web.pid, worker.pid), []
    try:
        for mode, flag in (("test", "true" if args.compare_typologies else "false"), ("live", "true")):  # warm-up, not counted
            for start in range(0, args.warmup, args.round * args.batch):
                count = math.ceil(min(args.round * args.batch, args.warmup - start) / args.batch)
                send_batches(clients[mode], [f'{{"run_monitoring": {flag}, "transactions": {json.dumps(traffic.batch(args.batch))}}}'
                                             for _ in range(count)], args.keep_alive)
        print(f"warmed up with {args.warmup:,} transactions per mode", flush=True)
        sampler.start()
        singles, single_cpu = run_singles(args, base, keys["live"], traffic, meter)  # first, on a calm system
        profilers = start_profiler(args, web.pid, worker.pid)
        database = DatabaseSampler(env["DATABASE_URL"])
        database.start()
        totals, cpu = run_batches(args, clients, traffic, meter, sent, vacuum)
        database.stopped.set()
        for profiler in profilers:
            profiler.send_signal(signal.SIGINT)
        cpu["single"] = single_cpu
        sampler.stopped.set()
        time.sleep(0.2)
        report(args, totals, cpu, singles, sampler, clients, vacuum)
        database.report()
    finally:
        for profiler in profilers:
            profiler.wait(timeout=30)
        for process in (web, worker):  # warm shutdown: the Celery task in hand finishes, the queue is left
            stop_process(process)


def report(args, totals, cpu, singles, sampler, clients, vacuum):
    from monitoring.models import Alert, AlertHit, Transaction

    n = {mode: sum(body["ingested"] for body in totals[mode][2]) for mode in totals}
    rate = {mode: n[mode] / totals[mode][0] for mode in totals}
    hit_events = AlertHit.objects.filter(alert__mode="live").values("event_id").distinct().count()
    evaluated = Transaction.objects.filter(mode="live", source="api").count()
    print(f"\n{os.cpu_count()} cores shared by PostgreSQL, Redis, {gunicorn_settings(args.workers, args.threads)}, "
          f"one Celery worker (concurrency {args.celery_concurrency}) and this client ({args.concurrency} batch requests in "
          f"flight, {'kept-alive connections' if args.keep_alive else 'a connection each'}); load average now "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{args.entities:,} entities, {args.per_day:,} transfers/day of data time, {args.history_days} days stored before; "
          f"{n['live']:,} transactions per mode in {args.batch:,}-transaction batches")
    print(f"PostgreSQL: {vacuum.describe()}")
    print(f"{'figure':52} {'value':>16} {'goal':>10}")
    latency = {mode: f"{percentile(totals[mode][1], 50):.2f} / {percentile(totals[mode][1], 99):.2f}" for mode in totals}
    rows = [
        *((("batch throughput, all rules but the network typologies (tx/s)", f"{rate['test']:,.0f}", ">= 3,000"),
           ("batch throughput, all 53 rules (tx/s)", f"{rate['live']:,.0f}", ">= 3,000"),
           ("typologies on / off", f"{rate['live'] / rate['test']:.2f}", ""))
          if args.compare_typologies else
          (("batch throughput, storage alone (tx/s)", f"{rate['test']:,.0f}", ""),
           ("batch throughput, all 53 rules (tx/s)", f"{rate['live']:,.0f}", ">= 3,000"),
           ("monitoring / storage alone", f"{rate['live'] / rate['test']:.2f}", ">= 0.33"))),
        (f"batch latency p50 / p99, {BASELINE[args.compare_typologies]} (s)", latency["test"], ""),
        ("batch latency p50 / p99, monitoring (s)", latency["live"], ""),
        (f"single ingest p50 / p99 at {args.single_rate:g}/s, from due (ms)",
         f"{percentile(singles[0], 50) * 1000:.1f} / {percentile(singles[0], 99) * 1000:.1f}", "p99 <= 35"),
        ("single ingest response time p50 / p99 (ms)",
         f"{percentile(singles[1], 50) * 1000:.1f} / {percentile(singles[1], 99) * 1000:.1f}", ""),
        ("CPU ms per single ingest: web / worker / PostgreSQL",
         " / ".join(f"{cpu['single'][part]:.1f}" for part in ("web", "worker", "db")), ""),
        ("transactions that hit a rule", f"{hit_events / max(evaluated, 1):.2%}", "0.5-3 %"),
        ("open alerts (live) / alerts triggered", f"{Alert.objects.filter(mode='live').count():,} / "
                                                  f"{sum(b['alerts_triggered'] for b in totals['live'][2]):,}", ""),
        *((f"CPU ms per 1,000 tx, {name}: web / worker / PostgreSQL",
           " / ".join(f"{cpu[mode][part] * 1000 / n[mode] * 1000:,.0f}" for part in ("web", "worker", "db")), "")
          for name, mode in ((BASELINE[args.compare_typologies], "test"), ("all 53 rules" if args.compare_typologies else "monitoring",
                                                                           "live"))),
        ("non-200 answers", str(sum(len(c.errors) for c in clients.values())), "0"),
    ]
    for name, value, goal in rows:
        print(f"{name:52} {value:>16} {goal:>10}")
    for client in clients.values():
        for error in client.errors[:3]:
            print("  error:", error)
    if sampler.samples:
        # The first sample (before any batch: the single ingests come first) and the samples nearest to
        # each fifth of the batches' transactions, not each fifth of the samples: the single ingests'
        # 30 s would otherwise fill most columns of a short run with zeros.
        total = sampler.samples[-1][0]
        marks = [sampler.samples[0], *(min(sampler.samples, key=lambda s, at=total * i / 5: abs(s[0] - at)) for i in range(1, 6))]
        print(f"\nresident memory (MB) at {' / '.join(f'{sent:,}' for sent, _ in marks)} transactions sent per mode")
        for name in marks[-1][1]:
            print(f"  {name:20} " + " / ".join(f"{sample.get(name, 0):7.1f}" for _, sample in marks))


if __name__ == "__main__":
    main()
