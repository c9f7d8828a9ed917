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
from datetime import timedelta

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


def delivery_attempt(delivery_id) -> Delivery | None:
    """Make the next attempt of a delivery if it is pending and due; None if there was nothing to do."""
    claimed = _claim(delivery_id)
    if claimed is None:
        return None
    delivery, attempt = claimed
    endpoint = delivery.endpoint
    if not endpoint.enabled:
        return _record(delivery, attempt, transport.Outcome(None, "the endpoint is disabled: not sent", 0), final=True)
    body = signing.envelope_body(delivery.event)
    timestamp = str(int(attempt.at.timestamp()))
    outcome = transport.post(endpoint.url, body, {
        "x-svc-timestamp": timestamp,
        "x-svc-signature": signing.signature(endpoint.signing_secret, timestamp, body),
    })
    return _record(delivery, attempt, outcome)


def _bookkeeping() -> None:
    """On PostgreSQL, this transaction's commit does not wait for the WAL flush: a crash could
    forget the last few milliseconds of claims and outcomes, which only means a delivery is sent
    again (receivers dedupe by event id); the event and delivery rows themselves were committed
    durably by the business transaction. It halves the fsyncs per delivery."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


@transaction.atomic
def _claim(delivery_id) -> tuple[Delivery, DeliveryAttempt] | None:
    """The conditional UPDATE is the claim; the attempt row is written with it."""
    now = clock.now()
    taken = Delivery.objects.filter(pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now).update(
        attempts=F("attempts") + 1, next_attempt_at=now + lease(), updated_at=now,
    )
    if not taken:
        return None
    _bookkeeping()
    delivery = Delivery.objects.select_related("event", "endpoint").get(pk=delivery_id)
    attempt = DeliveryAttempt.objects.create(delivery=delivery, number=delivery.attempts, at=now)
    return delivery, attempt


@transaction.atomic
def _record(delivery: Delivery, attempt: DeliveryAttempt, outcome: transport.Outcome, *, final: bool = False) -> Delivery:
    _bookkeeping()
    finished = clock.now()
    DeliveryAttempt.objects.filter(pk=attempt.pk).update(
        finished_at=finished, status_code=outcome.status_code, error=outcome.error, duration_ms=outcome.duration_ms,
    )
    if outcome.succeeded:
        changes = {"status": DeliveryStatus.SUCCEEDED, "delivered_at": finished, "next_attempt_at": None}
    elif final or attempt.number >= MAX_ATTEMPTS:
        changes = {"status": DeliveryStatus.FAILED, "next_attempt_at": None}
    else:
        changes = {"next_attempt_at": finished + RETRY_DELAYS[attempt.number - 1]}
    changes.update(last_status=outcome.status_code, last_error=outcome.error, enqueued_at=None, updated_at=finished)
    recorded = Delivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.PENDING, attempts=attempt.number).update(**changes)
    if not recorded:
        logger.warning("delivery %s: attempt %s finished after its lease; outcome kept on the attempt only",
                       delivery.pk, attempt.number)
        delivery.refresh_from_db()
        return delivery
    for field, value in changes.items():
        setattr(delivery, field, value)
    return delivery


@transaction.atomic
def delivery_sweep(limit: int = 1000) -> list[str]:
    """Hand out every pending delivery that is due and has no task message on its way (or whose
    message is overdue: a lost broker message, a killed worker's prefetch)."""
    from webhooks import tasks

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
    return ids
