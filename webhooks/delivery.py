"""Delivering events: one attempt of one delivery, and the sweeper that finds what is due.

An attempt is claimed with a conditional update (pending, due, then `attempts + 1` and a lease in
`next_attempt_at`), so two workers holding the same task message cannot both send the same
attempt; a delivery already succeeded is never claimed again. The outcome is recorded only if the
lease is still this attempt's. A worker killed in between leaves the delivery pending: when the
lease ends, the sweeper hands it out again. Delivery is therefore at least once; receivers use the
event `id` as idempotency key (spec "Events").

Schedule (spec "Limits"): after failed attempt n (1..6) the next is due RETRY_DELAYS[n-1] after it;
the 7th failure makes the delivery permanently failed. Retries are handed out by the beat sweeper
(every SWEEP_INTERVAL), so a retry starts at most that much after its due time.
"""

import logging
import os
import socket
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q

from common.outbox import enqueue_on_commit
from webhooks import clock, signing, transport
from webhooks.models import Delivery, DeliveryAttempt, DeliveryStatus

logger = logging.getLogger("webhooks.delivery")

RETRY_DELAYS = (
    timedelta(seconds=5), timedelta(seconds=30), timedelta(minutes=2),
    timedelta(minutes=15), timedelta(hours=1), timedelta(hours=4),
)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
SWEEP_INTERVAL = timedelta(seconds=5)


def lease() -> timedelta:
    """How long a claimed attempt may run before the delivery is handed out again: longer than
    the connect and read timeouts together."""
    return timedelta(seconds=getattr(settings, "WEBHOOK_DELIVERY_LEASE_SECONDS", 60))


def requeue_after() -> timedelta:
    """How long a task message is trusted to arrive before the sweeper sends another."""
    return timedelta(seconds=getattr(settings, "WEBHOOK_REQUEUE_AFTER_SECONDS", 120))


def batch_size() -> int:
    """How many due deliveries of one endpoint a task claims and sends in one go."""
    return max(1, settings.WEBHOOK_DELIVERY_BATCH)


@dataclass
class _Claimed:
    delivery: Delivery
    attempt: DeliveryAttempt
    outcome: transport.Outcome | None = None
    final: bool = False


def delivery_attempt(delivery_id) -> Delivery | None:
    """Make the next attempt of a delivery if it is pending and due, and in the same go the next
    attempts of other due deliveries of its endpoint (up to batch_size(), sent concurrently). Their
    own task messages then find nothing to do. Returns this delivery, or None if it had nothing to do."""
    delivery_id = str(delivery_id)
    if delivery_id in _succeeded_here:  # delivered by this process already: no query needed
        return None
    if not _due(delivery_id).exists():  # done or in flight elsewhere: one query, no transaction
        return None
    claimed = _claim(delivery_id)
    if not claimed:
        return None
    _send(claimed)
    return _record(claimed).get(delivery_id)


def _bookkeeping() -> None:
    """On PostgreSQL, this transaction's commit does not wait for the WAL flush: a crash could
    forget the last few milliseconds of claims and outcomes, which only means a delivery is sent
    again (receivers dedupe by event id); the event and delivery rows themselves were committed
    durably by the business transaction."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


def _due(delivery_id: str):
    return Delivery.objects.filter(pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=clock.now())


@transaction.atomic
def _claim(delivery_id: str) -> list[_Claimed]:
    """Claim this delivery if it is due, then up to batch_size() - 1 other due deliveries of its
    endpoint, oldest first. On PostgreSQL the rows are locked with SKIP LOCKED (two workers claiming
    at once take different rows; neither waits); on SQLite the transaction holds the write lock
    from its start. The UPDATE is the claim (attempts + 1, a lease in `next_attempt_at`, the holder
    in `claimed_by`); the attempt rows are written with it."""
    now = clock.now()
    due = Delivery.objects.select_for_update(skip_locked=True).filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
    endpoint_id = next(iter(due.filter(pk=delivery_id).values_list("endpoint_id", flat=True)), None)
    if endpoint_id is None:
        return []
    _bookkeeping()
    others = due.filter(endpoint_id=endpoint_id).exclude(pk=delivery_id).order_by("next_attempt_at")
    ids = [delivery_id, *others.values_list("pk", flat=True)[:batch_size() - 1]]
    Delivery.objects.filter(pk__in=ids).update(
        attempts=F("attempts") + 1, next_attempt_at=now + lease(), claimed_by=lease_holder(), updated_at=now,
    )
    deliveries = list(Delivery.objects.filter(pk__in=ids).select_related("event", "endpoint"))
    attempts = DeliveryAttempt.objects.bulk_create(
        [DeliveryAttempt(delivery=delivery, number=delivery.attempts, at=now) for delivery in deliveries])
    return [_Claimed(delivery, attempt) for delivery, attempt in zip(deliveries, attempts, strict=True)]


def _send(claimed: list[_Claimed]) -> None:
    """POST each claimed attempt; several at once through the connection pool when there are several."""
    for item in claimed:
        if not item.delivery.endpoint.enabled:
            item.outcome, item.final = transport.Outcome(None, "the endpoint is disabled: not sent", 0), True
    to_send = [item for item in claimed if item.outcome is None]
    if len(to_send) == 1:
        _post(to_send[0])
    elif to_send:
        list(_sender().map(_post, to_send))


def _post(item: _Claimed) -> None:
    endpoint = item.delivery.endpoint
    body = signing.envelope_body(item.delivery.event)
    timestamp = str(int(item.attempt.at.timestamp()))
    item.outcome = transport.post(endpoint.url, body, {
        "x-svc-timestamp": timestamp,
        "x-svc-signature": signing.signature(endpoint.signing_secret, timestamp, body),
    })


_senders: dict[int, ThreadPoolExecutor] = {}


def _sender() -> ThreadPoolExecutor:
    """A thread pool per process (created after a fork, never inherited from the parent)."""
    pid = os.getpid()
    if pid not in _senders:
        _senders.clear()
        _senders[pid] = ThreadPoolExecutor(max(1, settings.WEBHOOK_SEND_CONCURRENCY),
                                           thread_name_prefix="webhook-send")
    return _senders[pid]


@transaction.atomic
def _record(claimed: list[_Claimed]) -> dict[str, Delivery]:
    """Every outcome in one transaction. A delivery's state changes only if the lease is still this
    attempt's (pending, same attempt count); the attempt row keeps its outcome in any case.
    Succeeded deliveries of the batch change alike (one UPDATE); the attempt rows in one
    executemany (PostgreSQL pipelines it)."""
    _bookkeeping()
    finished = clock.now()
    ids = [item.delivery.pk for item in claimed]
    current = dict(Delivery.objects.select_for_update().filter(pk__in=ids, status=DeliveryStatus.PENDING)
                   .order_by("pk").values_list("pk", "attempts"))
    at = connection.ops.adapt_datetimefield_value(finished)
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {DeliveryAttempt._meta.db_table} SET finished_at = %s, status_code = %s, error = %s, duration_ms = %s "
            "WHERE id = %s",
            [(at, item.outcome.status_code, item.outcome.error, item.outcome.duration_ms, item.attempt.pk) for item in claimed],
        )
    succeeded: dict[int, list[str]] = {}  # status code → delivery ids
    for item in claimed:
        delivery, attempt, outcome = item.delivery, item.attempt, item.outcome
        attempt.finished_at, attempt.status_code = finished, outcome.status_code
        attempt.error, attempt.duration_ms = outcome.error, outcome.duration_ms
        if current.get(delivery.pk) != attempt.number:
            logger.warning("delivery %s: attempt %s finished after its lease; outcome kept on the attempt only",
                           delivery.pk, attempt.number)
            delivery.refresh_from_db()
            continue
        if outcome.succeeded:
            changes = {"status": DeliveryStatus.SUCCEEDED, "delivered_at": finished, "next_attempt_at": None}
        elif item.final or attempt.number >= MAX_ATTEMPTS:
            changes = {"status": DeliveryStatus.FAILED, "next_attempt_at": None}
        else:
            changes = {"next_attempt_at": finished + RETRY_DELAYS[attempt.number - 1]}
        changes.update(last_status=outcome.status_code, last_error=outcome.error, enqueued_at=None, claimed_by="",
                       updated_at=finished)
        for field, value in changes.items():
            setattr(delivery, field, value)
        if outcome.succeeded:  # the same changes for all of a status code: one UPDATE each
            succeeded.setdefault(outcome.status_code, []).append(delivery.pk)
        else:
            Delivery.objects.filter(pk=delivery.pk).update(**changes)
    for status_code, delivery_ids in succeeded.items():
        Delivery.objects.filter(pk__in=delivery_ids).update(
            status=DeliveryStatus.SUCCEEDED, delivered_at=finished, next_attempt_at=None, last_status=status_code,
            last_error="", enqueued_at=None, claimed_by="", updated_at=finished)
    done = [str(pk) for delivery_ids in succeeded.values() for pk in delivery_ids]
    transaction.on_commit(lambda: _succeeded_here.add_all(done))
    return {str(item.delivery.pk): item.delivery for item in claimed}


class _RecentIds:
    """The ids of deliveries this process recorded as succeeded (a final state: nothing ever makes a
    succeeded delivery pending again), so their own task messages are dropped without a query.
    Bounded: the oldest are forgotten first, and a forgotten one costs one query again."""

    def __init__(self, size: int = 100_000):
        self.size, self.order, self.ids = size, deque(), set()

    def __contains__(self, delivery_id: str) -> bool:
        return delivery_id in self.ids

    def add_all(self, delivery_ids: list[str]) -> None:
        for delivery_id in delivery_ids:
            if delivery_id not in self.ids:
                self.ids.add(delivery_id)
                self.order.append(delivery_id)
        while len(self.order) > self.size:
            self.ids.discard(self.order.popleft())


_succeeded_here = _RecentIds()


# --- Leases of dead processes ----------------------------------------------------------------------

def _process_stat(pid: int) -> tuple[str, str]:
    """The process's state letter and start (clock ticks since boot, to tell it from a later process
    with its pid); empty strings where /proc cannot tell."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return fields[0], fields[19]
    except (OSError, IndexError):
        return "", ""


def _process_start(pid: int) -> str:
    return _process_stat(pid)[1]


def _this_host() -> str:
    """The host name and the PID namespace: processes that share both can check each other's pids."""
    try:
        namespace = os.readlink("/proc/self/ns/pid").strip("pid:[]")
    except OSError:
        namespace = ""
    return f"{socket.gethostname()}/{namespace}"


def lease_holder() -> str:
    """Who holds the leases this process takes: host (and PID namespace), pid, the process's start time."""
    pid = os.getpid()
    if _holder.get("pid") != pid:
        _holder.update(pid=pid, name=f"{_this_host()}:{pid}:{_process_start(pid)}")
    return _holder["name"]


_holder: dict = {}


def _holder_is_gone(holder: str) -> bool:
    """True only for a process of this host that no longer runs (a killed worker); a holder on
    another host, or one that cannot be checked, is left to its lease."""
    host, pid, started = (holder.rsplit(":", 2) + ["", ""])[:3]
    if host != _this_host() or not pid.isdigit():
        return False
    pid = int(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass
    state, start = _process_stat(pid)
    return state in ("Z", "X") or start != started  # a killed process not yet reaped is gone too


def delivery_release_dead_leases() -> int:
    """Hand back at once the attempts claimed by processes of this host that died (a worker killed
    mid-delivery and restarted): they are due again now instead of when their lease ends. Called
    when a worker starts and by every sweep. Each such attempt counts as made (its row has no end)."""
    now = clock.now()
    held = (Delivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__gt=now).exclude(claimed_by="")
            .order_by("claimed_by").values_list("claimed_by", flat=True).distinct())  # no default ordering in DISTINCT
    gone = [holder for holder in held if _holder_is_gone(holder)]
    if not gone:
        return 0
    released = Delivery.objects.filter(status=DeliveryStatus.PENDING, claimed_by__in=gone).update(
        next_attempt_at=now, claimed_by="", updated_at=now)
    logger.warning("released %s delivery leases of processes that are gone: %s", released, ", ".join(gone))
    return released


@transaction.atomic
def delivery_sweep(limit: int = 1000) -> list[str]:
    """Hand out every pending delivery that is due and has no task message on its way (or whose
    message is overdue: a lost broker message, a killed worker's prefetch)."""
    from webhooks import tasks

    delivery_release_dead_leases()
    now = clock.now()
    due = (
        Delivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lte=now - requeue_after()))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    ids = [str(pk) for pk in due]
    Delivery.objects.filter(pk__in=ids).update(enqueued_at=now)
    for delivery_id in ids:
        enqueue_on_commit(tasks.deliver, delivery_id)
    # It runs every few seconds: a line at INFO only when it handed something out.
    logger.log(logging.INFO if ids else logging.DEBUG, "sweep: %s due deliveries enqueued", len(ids))
    return ids
