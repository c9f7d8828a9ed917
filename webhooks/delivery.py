"""Delivering events: one attempt of one delivery, and the sweeper that finds what is due.

An attempt is claimed with a conditional update (pending, due, then `attempts + 1` and a lease in
`next_attempt_at`), so two workers holding the same task message cannot both send the same
attempt; a delivery already succeeded is never claimed again. The outcome is recorded only if the
lease is still this attempt's. A worker killed in between leaves the delivery pending: when the
lease ends, the sweeper hands it out again. Delivery is therefore at least once; receivers use the
event `id` as idempotency key (docs/webhooks.md). An attempt whose outcome was lost counts like any
other: if it was the delivery's last allowed one, the delivery becomes failed instead of being
handed out again (a worker killed at every attempt cannot send an event forever).

Schedule (docs/webhooks.md; docs/architecture.md §6): after failed attempt n (1..6) the next is due RETRY_DELAYS[n-1] after it;
the 7th failure makes the delivery permanently failed. Retries are handed out by the beat sweeper
(every SWEEP_INTERVAL), so a retry starts at most that much after its due time.

A batch's outcomes are recorded whatever happens to some of its sends: an error of one send is
that attempt's outcome, and what has finished is recorded even when the task is stopped (Celery's
soft time limit) or the batch runs out of time; an attempt without an outcome then is recorded as
timed out.
"""

import logging
import os
import socket
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from celery.exceptions import SoftTimeLimitExceeded
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
OUTCOME_LOST = "attempt outcome lost: its worker stopped before recording the answer, and it was the last attempt"
# Due (its lease over) yet still held: the outcome of its last allowed attempt was never recorded.
_LAST_OUTCOME_LOST = Q(attempts__gte=MAX_ATTEMPTS) & ~Q(claimed_by="")


def lease() -> timedelta:
    """How long a claimed attempt may run before the delivery is handed out again: longer than
    the connect and read timeouts together."""
    return timedelta(seconds=getattr(settings, "WEBHOOK_DELIVERY_LEASE_SECONDS", 60))


def requeue_after() -> timedelta:
    """How long a task message is trusted to arrive before the sweeper sends another."""
    return timedelta(seconds=getattr(settings, "WEBHOOK_REQUEUE_AFTER_SECONDS", 120))


def send_budget() -> timedelta:
    """How long a batch's sends may take in all before what has not finished is recorded as timed
    out: well inside the deliver task's soft time limit (40 s) and the lease, so this worker records
    the outcomes. Each send ends at its own deadline (5 s) anyway; this bounds a batch of many."""
    return min(timedelta(seconds=30), lease() / 2)


def batch_size() -> int:
    """How many due deliveries of one endpoint a task claims and sends in one go."""
    return max(1, settings.WEBHOOK_DELIVERY_BATCH)


@dataclass
class _Claimed:
    delivery: Delivery
    attempt: DeliveryAttempt
    outcome: transport.Outcome | None = None
    final: bool = False
    sent_at: float | None = None  # time.monotonic() when its send started


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
    try:
        _send(claimed)
    except SoftTimeLimitExceeded:  # the task is being stopped: record what there is while we may
        logger.warning("delivery %s: the task's soft time limit ended its batch; unfinished attempts are "
                       "recorded as timed out", delivery_id)
    finally:
        recorded = _record(claimed)
    return recorded.get(delivery_id)


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
    due = (Delivery.objects.select_for_update(skip_locked=True).filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
           .exclude(_LAST_OUTCOME_LOST))  # the sweeper makes those failed
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
        _post_concurrently(to_send)


def _post_concurrently(items: list[_Claimed]) -> None:
    """At most WEBHOOK_SEND_CONCURRENCY at a time, in threads of this batch alone: a batch of a slow
    endpoint never queues another task's sends behind its own. Waits at most send_budget(); a send
    still running then goes on in its thread until its deadline, its outcome no longer recorded."""
    sender = ThreadPoolExecutor(min(len(items), max(1, settings.WEBHOOK_SEND_CONCURRENCY)),
                                thread_name_prefix="webhook-send")
    try:
        wait([sender.submit(_post, item) for item in items], timeout=send_budget().total_seconds())
    finally:
        sender.shutdown(wait=False, cancel_futures=True)


def _post(item: _Claimed) -> None:
    item.sent_at = time.monotonic()
    try:
        endpoint = item.delivery.endpoint
        body = signing.envelope_body(item.delivery.event)
        timestamp = str(int(item.attempt.at.timestamp()))
        item.outcome = transport.post(endpoint.url, body, {
            "x-svc-timestamp": timestamp,
            "x-svc-signature": signing.signature(endpoint.signing_secret, timestamp, body),
        })
    except SoftTimeLimitExceeded:
        raise  # stops the task (delivery_attempt records the batch), not this attempt alone
    except Exception as exc:  # noqa: BLE001 - one attempt's error is its outcome, never the batch's
        logger.exception("delivery %s: attempt %s failed before it had an answer", item.delivery.pk, item.attempt.number)
        item.outcome = transport.Outcome(None, f"{type(exc).__name__}: {exc}"[:500], _elapsed_ms(item))


def _elapsed_ms(item: _Claimed) -> int:
    return int((time.monotonic() - item.sent_at) * 1000) if item.sent_at is not None else 0


def _outcome(item: _Claimed) -> transport.Outcome:
    """The attempt's outcome, or the time-out of one that has none (its task stopped, its batch's
    time ran out): it is recorded as a failed attempt and retried on the schedule."""
    if item.outcome is not None:
        return item.outcome
    if item.sent_at is None:
        return transport.Outcome(None, "timed out: not sent before the batch's time ran out", 0)
    return transport.Outcome(None, "timed out: no answer before the batch's time ran out", _elapsed_ms(item))


@transaction.atomic
def _record(claimed: list[_Claimed]) -> dict[str, Delivery]:
    """Every outcome in one transaction. A delivery's state changes only if the lease is still this
    attempt's (pending, same attempt count); the attempt row keeps its outcome in any case.
    Succeeded deliveries of the batch change alike (one UPDATE); the attempt rows in one
    executemany (PostgreSQL pipelines it)."""
    _bookkeeping()
    finished = clock.now()
    outcomes = [_outcome(item) for item in claimed]  # taken once: a send still running may set one later
    ids = [item.delivery.pk for item in claimed]
    current = dict(Delivery.objects.select_for_update().filter(pk__in=ids, status=DeliveryStatus.PENDING)
                   .order_by("pk").values_list("pk", "attempts"))
    at = connection.ops.adapt_datetimefield_value(finished)
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {DeliveryAttempt._meta.db_table} SET finished_at = %s, status_code = %s, error = %s, duration_ms = %s "
            "WHERE id = %s",
            [(at, outcome.status_code, outcome.error, outcome.duration_ms, item.attempt.pk)
             for item, outcome in zip(claimed, outcomes, strict=True)],
        )
    succeeded: dict[int, list[str]] = {}  # status code → delivery ids
    gone = set()  # deleted with their endpoint during the send (services.endpoint_delete): nothing left to record
    for item, outcome in zip(claimed, outcomes, strict=True):
        delivery, attempt = item.delivery, item.attempt
        attempt.finished_at, attempt.status_code = finished, outcome.status_code
        attempt.error, attempt.duration_ms = outcome.error, outcome.duration_ms
        if current.get(delivery.pk) != attempt.number:
            try:
                delivery.refresh_from_db()
            except Delivery.DoesNotExist:
                logger.info("delivery %s: deleted with its endpoint during attempt %s", delivery.pk, attempt.number)
                gone.add(delivery.pk)
                continue
            logger.warning("delivery %s: attempt %s finished after its lease; outcome kept on the attempt only",
                           delivery.pk, attempt.number)
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
    return {str(item.delivery.pk): item.delivery for item in claimed if item.delivery.pk not in gone}


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


def _fail_when_out_of_attempts(lost, now) -> int:
    """Of the deliveries `lost` (pending, their last attempt's outcome lost), those whose attempt was
    the last allowed one become permanently failed; a manual retry can still send them."""
    failed = lost.filter(status=DeliveryStatus.PENDING, attempts__gte=MAX_ATTEMPTS).update(
        status=DeliveryStatus.FAILED, next_attempt_at=None, claimed_by="", enqueued_at=None, last_status=None,
        last_error=OUTCOME_LOST, updated_at=now)
    if failed:
        logger.warning("%s deliveries failed: the outcome of their last attempt was lost", failed)
    return failed


def delivery_release_dead_leases() -> int:
    """Hand back at once the attempts claimed by processes of this host that died (a worker killed
    mid-delivery and restarted): they are due again now instead of when their lease ends. Called
    when a worker starts and by every sweep. Each such attempt counts as made (its row has no end):
    a delivery that has had all its attempts becomes failed instead."""
    now = clock.now()
    held = (Delivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__gt=now).exclude(claimed_by="")
            .order_by("claimed_by").values_list("claimed_by", flat=True).distinct())  # no default ordering in DISTINCT
    gone = [holder for holder in held if _holder_is_gone(holder)]
    if not gone:
        return 0
    lost = Delivery.objects.filter(status=DeliveryStatus.PENDING, claimed_by__in=gone)
    failed = _fail_when_out_of_attempts(lost, now)
    released = lost.update(next_attempt_at=now, claimed_by="", updated_at=now)
    logger.warning("released %s delivery leases of processes that are gone: %s", released + failed, ", ".join(gone))
    return released + failed


@transaction.atomic
def delivery_sweep(limit: int = 1000) -> list[str]:
    """Hand out every pending delivery that is due and has no task message on its way (or whose
    message is overdue: a lost broker message, a killed worker's prefetch)."""
    from webhooks import tasks

    delivery_release_dead_leases()
    now = clock.now()
    _fail_when_out_of_attempts(Delivery.objects.filter(next_attempt_at__lte=now).exclude(claimed_by=""), now)  # lease over
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
