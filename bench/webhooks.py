"""Webhook delivery benchmark: N events to a local HTTPS receiver through one real Celery worker.

    .venv/bin/python bench/webhooks.py                       # 10,000 events, then again with a kill
    .venv/bin/python bench/webhooks.py --events 2000 --runs plain

Runs against PostgreSQL and Redis (defaults below; the database is created if missing). Each run
first emits the N events (one business transaction each, as services do: rows in PostgreSQL, task
messages in Redis), then starts the worker and prints deliveries per second from the first delivery
received to the last, the rate counting the worker's start-up, and events lost (emitted but never
received; must be 0). The "kill" run SIGKILLs the worker (its whole process group) once half the
events are delivered and starts it again: the new worker hands back the leases of the killed one's
attempts at once (their holder is gone) and its batches claim the deliveries whose messages the
killed worker had prefetched; what the receiver got before the kill but the worker never recorded
is sent again (counted as duplicates). The receiver checks every signature (stdlib hmac, as a
customer would); a bad one is answered 400 and counted, never as received.
"""

import argparse
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# This file is named like the app: take its own folder off the path so `webhooks` is the app.
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/bench_webhooks"
DEFAULT_BROKER = "redis://127.0.0.1:6379/3"


def serve_receiver(tls_dir: str, log_path: str, secret_path: str, ready) -> None:
    """The receiver process: checks each POST's signature as a customer would (stdlib hmac over the
    raw bytes, timestamp within 300 s), answers 200 and logs the event id, or 400 and logs it as
    rejected (the delivery is then retried, and the event counts as received only when it passes)."""
    import hashlib
    import hmac
    import threading

    from tests.webhooks.receiver import Receiver, TlsFiles

    folder = Path(tls_dir)
    lock = threading.Lock()
    log = open(log_path, "a", buffering=1)  # noqa: SIM115 - open for the life of the process
    rejected = open(log_path + ".rejected", "a", buffering=1)  # noqa: SIM115
    secret = {}

    def record(n, request):
        if "value" not in secret:  # written by the main process once the endpoint exists
            secret["value"] = Path(secret_path).read_text().strip().encode()
        timestamp = request.headers.get("x-svc-timestamp", "")
        expected = hmac.new(secret["value"], timestamp.encode() + b"." + request.body, hashlib.sha256).hexdigest()
        fresh = timestamp.isdigit() and abs(time.time() - int(timestamp)) <= 300
        good = fresh and hmac.compare_digest(expected, request.headers.get("x-svc-signature", ""))
        with lock:
            (log if good else rejected).write(request.event_id + "\n")
        return 200 if good else 400

    receiver = Receiver(TlsFiles(folder / "ca.pem", folder / "server.pem", folder / "server.key"), record)
    ready.put(receiver.port)
    signal.sigwait({signal.SIGTERM})
    receiver.stop()


def create_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


class Worker:
    def __init__(self, env: dict, pool: str, concurrency: int):
        self.env, self.pool, self.concurrency, self.process = env, pool, concurrency, None
        self.cpu_used = 0.0

    def start(self) -> None:
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", self.pool, "-c", str(self.concurrency),
                   "-l", "WARNING", "--without-gossip", "--without-mingle", "--without-heartbeat", "-Q", "celery"]
        self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, start_new_session=True)

    def cpu_seconds(self) -> float:
        """CPU time used so far by the worker's process group (main process and pool children)."""
        ticks = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if self.process and int(fields[2]) == self.process.pid:
                ticks += sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
        return ticks / os.sysconf("SC_CLK_TCK")

    def signal(self, sig) -> None:
        if self.process and self.process.poll() is None:
            self.cpu_used += self.cpu_seconds()
            os.killpg(self.process.pid, sig)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def received_ids(log_path: Path) -> list[str]:
    return log_path.read_text().split() if log_path.exists() else []


def run(label: str, args, env, org, principal, log_path: Path, kill_midway: bool) -> dict:
    from django.db import transaction

    from tests.webhooks.conftest import alert_data
    from webhooks import services
    from webhooks.models import Delivery, Event, WebhookEndpoint

    load_before = os.getloadavg()[0]
    log_path.write_text("")
    rejected_path = Path(str(log_path) + ".rejected")
    rejected_path.write_text("")
    Delivery.objects.filter(organization=org).delete()
    Event.objects.filter(organization=org).delete()
    endpoint = WebhookEndpoint.objects.get(organization=org, mode="test")
    subprocess.run([sys.executable, "-m", "celery", "-A", "config", "purge", "-f", "-Q", "celery"], cwd=ROOT, env=env,
                   check=True, capture_output=True)

    data = alert_data()
    started = time.monotonic()
    emitted = []
    for _ in range(args.events):
        with transaction.atomic():  # one business transaction per event, as the services do
            emitted.append(services.event_emit(organization=org, mode="test", type="alert.created", data=data).public_id)
    emit_seconds = time.monotonic() - started

    # The rows and messages wait in PostgreSQL and Redis; the delivery clock starts with the worker.
    worker = Worker(env, args.pool, args.concurrency)
    worker_started = time.monotonic()
    worker.start()
    try:
        killed_at, first_seen = None, None
        wanted = set(emitted)
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline:
            seen = received_ids(log_path)
            if seen and first_seen is None:
                first_seen = time.monotonic()
            if kill_midway and killed_at is None and len(seen) >= args.events // 2:
                worker.signal(signal.SIGKILL)
                killed_at = len(seen)
                worker.start()
            if len(set(seen) & wanted) == len(wanted):
                break
            time.sleep(0.05)
        finished = time.monotonic()
    finally:
        worker.signal(signal.SIGTERM)

    seen = received_ids(log_path)
    unique = set(seen) & wanted
    succeeded = Delivery.objects.filter(organization=org, endpoint=endpoint, status="succeeded").count()
    delivering = finished - (first_seen or worker_started)
    return {
        "run": label, "events": args.events, "delivery_seconds": round(delivering, 2),
        "deliveries_per_second": round(len(unique) / delivering, 1),
        "with_worker_startup_per_second": round(len(unique) / (finished - worker_started), 1),
        "emit_seconds": round(emit_seconds, 2), "lost": len(wanted - unique), "duplicates_received": len(seen) - len(unique),
        "succeeded_rows": succeeded, "rejected_signatures": len(received_ids(rejected_path)), "killed_after_received": killed_at,
        "worker_cpu_ms_per_delivery": round(worker.cpu_used * 1000 / max(len(unique), 1), 2),
        "load_average_before": load_before, "load_average": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE))
    parser.add_argument("--broker-url", default=os.environ.get("BENCH_BROKER_URL", DEFAULT_BROKER))
    parser.add_argument("--pool", default="threads", choices=["threads", "prefork", "solo"])
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--runs", default="plain,kill", help="comma-separated: plain, kill")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for every delivery")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="bench-webhooks-"))
    from tests.webhooks.receiver import make_tls_files

    tls = make_tls_files(workdir)
    log_path = workdir / "received.log"
    ready = multiprocessing.get_context("fork").Queue()
    secret_path = workdir / "signing-secret"
    receiver = multiprocessing.get_context("fork").Process(target=serve_receiver,
                                                           args=(str(workdir), str(log_path), str(secret_path), ready))
    receiver.start()
    port = ready.get(timeout=30)

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": args.database_url,
           "CELERY_BROKER_URL": args.broker_url, "DATA_DIR": str(workdir), "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
           "WEBHOOK_CA_BUNDLE": str(tls.ca), "CELERY_TASK_ALWAYS_EAGER": "false", "LOG_LEVEL": "WARNING"}
    os.environ.update(env)
    create_database(args.database_url)

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from organizations.models import Organization
    from tests.webhooks.conftest import principal_of
    from webhooks import services
    from webhooks.models import WebhookEndpoint

    org, _ = Organization.objects.get_or_create(slug="bench-webhooks", defaults={"name": "Bench webhooks"})
    principal = principal_of(org)
    WebhookEndpoint.objects.filter(organization=org).delete()
    endpoint = services.endpoint_create(principal=principal, url=f"https://127.0.0.1:{port}/hooks", event_types=["alert.created"])
    secret_path.write_text(endpoint.signing_secret)

    # Beat, as in production: its sweeper re-sends what a killed worker held (in flight or prefetched).
    beat = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "beat", "-l", "WARNING",
                             "-s", str(workdir / "beat-schedule")], cwd=ROOT, env=env, start_new_session=True)
    results = []
    try:
        for label in args.runs.split(","):
            result = run(label, args, env, org, principal, log_path, kill_midway=(label == "kill"))
            results.append(result)
            print(result, flush=True)
    finally:
        os.killpg(beat.pid, signal.SIGTERM)
        beat.wait(30)
        os.kill(receiver.pid, signal.SIGTERM)
        receiver.join(10)
    print(f"\nworker: 1 process, pool {args.pool}, concurrency {args.concurrency}; {os.cpu_count()} cores; "
          f"database {args.database_url}; broker {args.broker_url}")
    for result in results:
        print(f"{result['run']:>5}: {result['events']} events delivered in {result['delivery_seconds']} s = "
              f"{result['deliveries_per_second']} deliveries/s ({result['with_worker_startup_per_second']}/s counting the worker's "
              f"start-up; emitting them took {result['emit_seconds']} s), lost {result['lost']}, "
              f"duplicates received {result['duplicates_received']}, bad signatures {result['rejected_signatures']}; "
              f"worker CPU {result['worker_cpu_ms_per_delivery']} ms "
              f"per delivery, load average {result['load_average_before']:.1f} before, {result['load_average']:.1f} at the end")


if __name__ == "__main__":
    main()
