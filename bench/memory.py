"""Do the web and worker processes keep memory per unit of work? Each part repeats its process's
work on the ingestion path over the database `bench/ingest.py` left, in this process, and prints the
resident memory after each pass.

    .venv/bin/python bench/memory.py web    [--passes 6] [--batches 15] [--trace]
    .venv/bin/python bench/memory.py worker [--passes 6] [--group 25] [--changed] [--trace]
    .venv/bin/python bench/memory.py celery [--passes 6] [--group 25]

- `web`: 1,000-transfer batches with all 53 rules, posted through Django's request handler (the
  middleware, the API key's authentication and rate limit, validation, storing, the rules, alerts
  and cases) as gunicorn's workers serve them; each pass sends other batches of the benchmark's mix
  (another random stream, the same customers), from a day before the stored history's end (at
  10,000 a day, so `--batches` up to 18 keep within the day ahead of the clock the API accepts).
- `worker`: the worker's task on the ingestion path, `monitoring.recompute_entity_risk`, over every
  live entity in groups of `--group`. `--changed` first sets the group's scores to 0, so that
  every score changes and the task also writes history rows, events and audit entries.
- `celery`: the same task in a real Celery worker (make run's settings, prefork, two children),
  the tasks sent through the broker (BENCH_REDIS_URL, as for bench/ingest.py, emptied first), each
  process's memory read once the queue is empty; Celery's own bookkeeping per message counts too.
  These tasks commit: once bench/ingest.py's worker has caught up, no score changes and nothing
  is written.

In `web` and `worker` nothing is kept: each pass is rolled back after it and all of them at the end (the API key the web
part issues itself included), so every pass reads the same stored history. `--trace` adds tracemalloc's
count of the Python heap (several times slower) and, at the end, where it grew most between the
end of the first pass and the last (with the allocating lines' callers). BENCH_DATABASE_URL as for bench/ingest.py.

Memory that grows pass after pass would be kept per request or per task: a process would grow with
the traffic it has served. Flat passes after the first mean it does not (the first pass allocates
what a process holds once: statements, caches bounded by size, the allocator's high-water mark).
"""

import argparse
import gc
import json
import os
import sys
import time
import tracemalloc
from datetime import timedelta

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ROOT  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("web", "worker", "celery"))
    parser.add_argument("--passes", type=int, default=6)
    parser.add_argument("--batches", type=int, default=15, help="web: 1,000-transfer batches a pass")
    parser.add_argument("--group", type=int, default=25, help="worker: entities a task (an ingested batch's hits)")
    parser.add_argument("--changed", action="store_true", help="worker: every score changes, so the task writes too")
    parser.add_argument("--trace", action="store_true", help="also tracemalloc's count of the Python heap")
    return parser.parse_args()


def setup_django() -> None:
    """Django on the benchmark's database, with its Redis as cache, rate limiter and broker (as bench/ingest.py's servers)."""
    os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench_ingest")
    os.environ["REDIS_URL"] = os.environ["CELERY_BROKER_URL"] = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/6")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def web_work(args):
    """One callable per pass: `--batches` new batches posted through the request handler."""
    from django.test import Client
    from ingest import Traffic

    from monitoring.models import Transaction
    from onboarding.models import Entity
    from organizations.choices import Mode, Role, Tier
    from organizations.selectors import organization_by_slug
    from organizations.services import api_key_issue

    organization = organization_by_slug("bench")
    if organization is None:
        sys.exit("no benchmark organization: run bench/ingest.py first")
    secret = api_key_issue(organization=organization, mode=Mode.LIVE, tier=Tier.PREMIUM, role=Role.ADMIN,
                           name="bench/memory.py").secret
    start = Transaction.objects.filter(organization=organization, mode=Mode.LIVE).latest("timestamp").timestamp - timedelta(days=1)
    entities = Entity.objects.filter(organization=organization, mode=Mode.LIVE).count()
    client = Client(headers={"authorization": f"Bearer {secret}"})
    print(f"{entities:,} live customers; {args.batches} batches of 1,000 a pass, all 53 rules")

    def one_pass(number):
        traffic = Traffic(entities, 10_000, start, stream=number)  # the same customers, other transfers
        for _ in range(args.batches):
            body = json.dumps({"run_monitoring": True, "transactions": traffic.batch(1000)})
            response = client.post("/v1/monitoring/transfers/batch", body, content_type="application/json")
            if response.status_code != 200:
                sys.exit(f"answer {response.status_code}: {response.content[:300]!r}")
    return one_pass


def worker_work(args):
    """One callable per pass: the risk recomputation task over every live entity."""
    from monitoring.tasks import recompute_entity_risk
    from onboarding.models import Entity

    ids = [str(pk) for pk in Entity.objects.filter(mode="live").order_by("pk").values_list("pk", flat=True)]
    if not ids:
        sys.exit("no live entities: run bench/ingest.py first")
    groups = [ids[start:start + args.group] for start in range(0, len(ids), args.group)]
    print(f"{len(ids):,} live entities, {len(groups):,} tasks a pass{' (every score changed first)' if args.changed else ''}")

    def one_pass(number):
        for group in groups:
            if args.changed:
                Entity.objects.filter(pk__in=group).update(risk_score=0, risk_tier="low")
            recompute_entity_risk.run(group, "alerts opened")
    return one_pass


def celery_run(args) -> None:
    """The `celery` part: a worker of its own, `--passes` times every live entity's task through the broker."""
    import redis
    from harness import start_celery_worker, stop_process
    from ingest import children
    from ingest import rss_mb as rss_of

    from monitoring.tasks import recompute_entity_risk
    from onboarding.models import Entity

    broker = os.environ["CELERY_BROKER_URL"]
    queue = redis.Redis.from_url(broker)
    queue.flushdb()
    ids = [str(pk) for pk in Entity.objects.filter(mode="live").order_by("pk").values_list("pk", flat=True)]
    groups = [ids[start:start + args.group] for start in range(0, len(ids), args.group)]
    worker = start_celery_worker(dict(os.environ), concurrency=2)
    try:
        time.sleep(5)  # the worker and its children up
        names = ["main", "child 1", "child 2"]
        print(f"{len(ids):,} live entities, {len(groups):,} tasks a pass through the broker")
        print(f"{'pass':>4} {'seconds':>8}  RSS (MB): " + " / ".join(names))

        def memory() -> str:
            return " / ".join(f"{rss_of(pid):6.1f}" for pid in [worker.pid, *children(worker.pid)])
        print(f"{'':>4} {'':>8}  {memory()}  before")
        for number in range(1, args.passes + 1):
            started = time.perf_counter()
            for group in groups:
                recompute_entity_risk.delay(group, "alerts opened")
            while queue.llen("celery") or queue.hlen("unacked"):
                if worker.poll() is not None:
                    sys.exit("the worker stopped")
                time.sleep(0.2)
            print(f"{number:4} {time.perf_counter() - started:8.1f}  {memory()}", flush=True)
    finally:
        stop_process(worker)


def print_growth(before, after, top: int = 8) -> None:
    skip = [tracemalloc.Filter(False, tracemalloc.__file__)]
    changes = [stat for stat in after.filter_traces(skip).compare_to(before.filter_traces(skip), "traceback") if stat.size_diff > 0]
    print(f"\nPython heap grown since pass 1: {sum(stat.size_diff for stat in changes) / 1024:,.1f} KiB in all; the most:")
    for stat in changes[:top]:
        print(f"  +{stat.size_diff / 1024:,.1f} KiB in {stat.count_diff:+,} blocks, allocated at")
        for line in stat.traceback.format(limit=6, most_recent_first=True):
            print("    " + line)


def main():
    args = parse_args()
    setup_django()
    if args.part == "celery":
        celery_run(args)
        return
    from django.db import transaction

    with transaction.atomic():
        one_pass = (web_work if args.part == "web" else worker_work)(args)
        if args.trace:
            tracemalloc.start(12)
        first = None
        print(f"{'pass':>4} {'seconds':>8} {'RSS (MB)':>9}{'  Python heap (MB)' if args.trace else ''}")
        print(f"{'':>4} {'':>8} {rss_mb():9.1f}  before")
        for number in range(1, args.passes + 1):
            started = time.perf_counter()
            with transaction.atomic():
                one_pass(number)
                transaction.set_rollback(True)
            gc.collect()
            heap = f" {tracemalloc.get_traced_memory()[0] / 2**20:17.2f}" if args.trace else ""
            print(f"{number:4} {time.perf_counter() - started:8.1f} {rss_mb():9.1f}{heap}", flush=True)
            if args.trace and number == 1:
                first = tracemalloc.take_snapshot()
        if first is not None and args.passes > 1:
            print_growth(first, tracemalloc.take_snapshot())
        transaction.set_rollback(True)


if __name__ == "__main__":
    main()
