"""A real Celery worker subprocess, killed in the middle of a delivery: after a restart every event
is still delivered, and acknowledged once per event id from the receiver's point of view."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from celery import Celery
from django.conf import settings as django_settings
from django.db import connection

from config.celery import app as project_app
from tests.webhooks.conftest import alert_data
from tests.webhooks.receiver import HANG, TRICKLE
from webhooks import services
from webhooks.models import Delivery

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def database_url() -> str:
    """The test database, for the subprocess (a file on SQLite, the test database on PostgreSQL)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    credentials = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def broker_app(tmp_path, monkeypatch):
    """The tasks published by this test go to a filesystem broker in tmp_path, which the worker reads.

    Celery reads the CELERY_BROKER_URL environment variable before the broker an app is given
    (celery.app.utils.Settings.broker_url): on the PostgreSQL + Redis run it is set, and the tasks
    went to Redis while the worker read the folder. So it is taken out of this process's environment."""
    monkeypatch.delenv("CELERY_BROKER_URL", raising=False)
    queue = tmp_path / "broker" / "queue"
    for folder in (queue, tmp_path / "broker" / "processed"):
        folder.mkdir(parents=True)
    publisher = Celery("webhook-kill-test", broker="filesystem://")
    publisher.conf.update(
        broker_transport_options={"data_folder_in": str(queue), "data_folder_out": str(queue),
                                  "processed_folder": str(tmp_path / "broker" / "processed"), "store_processed": False,
                                  "control_folder": str(tmp_path / "broker" / "control")},
        task_always_eager=False, task_serializer="json", accept_content=["json"], task_ignore_result=True,
    )
    assert publisher.conf.broker_url == "filesystem://"
    publisher.set_current()
    yield publisher
    project_app.set_current()


class Worker:
    def __init__(self, data_dir: Path, ca: Path):
        self.data_dir, self.ca, self.process = data_dir, ca, None

    def start(self, *, beat: bool = False) -> None:
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.webhooks.worker_settings", "DATABASE_URL": database_url(),
               "DATA_DIR": str(self.data_dir), "CELERY_BROKER_URL": "filesystem://", "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
               "WEBHOOK_CA_BUNDLE": str(self.ca), "CELERY_TASK_ALWAYS_EAGER": "false",
               "PYTHONPATH": str(django_settings.BASE_DIR)}
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-c", "2", "-l", "INFO",
                   "--without-gossip", "--without-mingle", "--without-heartbeat"]
        if beat:  # beat inside the worker: the static schedule's sweeper, as `make run` would run it
            command += ["-B", "-s", str(self.data_dir / "beat-schedule")]
        # In its data folder: the filesystem transport keeps its control files in the working directory.
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(command, cwd=self.data_dir, env=env, start_new_session=True,
                                            stdout=log, stderr=subprocess.STDOUT)

    @property
    def log_path(self) -> Path:
        return self.data_dir / "worker.log"

    def log_tail(self, lines: int = 40) -> str:
        """The end of the worker's output, for the message of a failed assertion."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def kill(self) -> None:
        """SIGKILL the whole process group: main process and pool children, no chance to clean up."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)


@pytest.fixture
def worker(tmp_path, tls):
    running = Worker(tmp_path, tls.ca)
    yield running
    running.kill()  # its work is checked; a warm shutdown would only slow the suite


def wait_until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def test_a_worker_killed_mid_delivery_still_delivers_each_event_once(local_receivers, receiver, make_endpoint, org,
                                                                      broker_app, worker):
    hook = receiver(lambda n, request: HANG if n == 0 else 200, hang_seconds=60)
    make_endpoint(hook.url())

    def emit():
        return services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data()).public_id

    worker.start()
    first = emit()
    assert hook.wait_for(1, timeout=60), f"the worker never posted the first event; its log:\n{worker.log_tail()}"
    worker.kill()  # while the receiver holds the request: no answer ever reaches the worker
    hook.release.set()
    claimed = Delivery.objects.get(event__public_id=first)
    assert (claimed.status, claimed.attempts) == ("pending", 1)

    later = [emit() for _ in range(4)]  # queued while no worker runs
    worker.start(beat=True)

    everything = {first, *later}
    def all_delivered() -> bool:  # received by the receiver, and recorded by the worker (which follows the answer)
        return ({r.event_id for r in hook.acknowledged()} == everything
                and not Delivery.objects.exclude(status="succeeded").exists())

    assert wait_until(all_delivered, timeout=90), (hook.requests, worker.log_tail())
    acknowledged = [r.event_id for r in hook.acknowledged()]
    assert sorted(acknowledged) == sorted(everything)  # once per event id
    received = [r.event_id for r in hook.requests]
    assert received.count(first) == 2 and all(received.count(event_id) == 1 for event_id in later)

    deliveries = {d.event.public_id: d for d in Delivery.objects.select_related("event")}
    assert {d.status for d in deliveries.values()} == {"succeeded"}
    lost, delivered = deliveries[first].attempt_log.order_by("number")
    assert (lost.number, lost.finished_at, lost.status_code) == (1, None, None)  # the attempt the kill interrupted
    assert (delivered.number, delivered.status_code) == (2, 200)


def test_receivers_trickling_their_answers_hold_up_another_endpoint_only_until_their_deadline(
        local_receivers, receiver, make_endpoint, org, broker_app, worker):
    fast = receiver()
    make_endpoint(fast.url("/fast"))  # created first: its delivery is the last of the event's three
    slow = [receiver(lambda n, request: TRICKLE, hang_seconds=40) for _ in range(2)]
    for each in slow:
        make_endpoint(each.url("/slow"))
    worker.start()  # two processes: both may be busy with a slow endpoint first

    event = services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data())
    assert all(each.wait_for(1, timeout=60) for each in slow), worker.log_tail()
    started = time.monotonic()

    assert fast.wait_for(1, timeout=30), worker.log_tail()
    assert time.monotonic() - started < 8  # the slow sends ended at their 5-second deadline
    assert [r.event_id for r in fast.acknowledged()] == [event.public_id]
    assert wait_until(lambda: not Delivery.objects.filter(attempt_log__finished_at__isnull=True).exists(), 30)
    stored = {d.endpoint.url: d for d in Delivery.objects.select_related("endpoint")}
    assert stored[fast.url("/fast")].status == "succeeded"
    for each in slow:
        first = stored[each.url("/slow")].attempt_log.get(number=1)
        assert (first.status_code, first.error.startswith("timed out")) == (None, True)
        assert 5000 <= first.duration_ms < 6500
