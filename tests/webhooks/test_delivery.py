"""Deliveries to real HTTPS receivers on loopback: signatures, the retry schedule, permanent failure
and manual retry, redirects, idempotency and the SSRF guard."""

import contextlib
import datetime as dt
import hashlib
import hmac
import json
import time

import pytest

from tests.webhooks.conftest import alert_data, principal_of
from tests.webhooks.receiver import HANG, TRICKLE
from webhooks import delivery, services, transport
from webhooks.models import Delivery, DeliveryStatus, Event, WebhookEndpoint

pytestmark = pytest.mark.django_db


@pytest.fixture
def emit(org, django_capture_on_commit_callbacks):
    """emit(**overrides) → the alert.created event, its on-commit work (the eager delivery task) run."""

    def run(**overrides):
        with django_capture_on_commit_callbacks(execute=True):
            return services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data(**overrides))

    return run


@pytest.fixture
def sweep(django_capture_on_commit_callbacks):
    def run() -> list[str]:
        with django_capture_on_commit_callbacks(execute=True):
            return delivery.delivery_sweep()

    return run


def expected_signature(secret: str, request) -> str:
    """An independent check: stdlib hmac over the raw bytes the receiver got."""
    message = request.headers["x-svc-timestamp"].encode() + b"." + request.body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def test_delivers_the_signed_envelope(local_receivers, receiver, make_endpoint, emit):
    hook = receiver()
    endpoint = make_endpoint(hook.url())

    event = emit()

    (request,) = hook.requests
    assert hmac.compare_digest(request.headers["x-svc-signature"], expected_signature(endpoint.signing_secret, request))
    assert abs(int(request.headers["x-svc-timestamp"]) - dt.datetime.now(dt.UTC).timestamp()) < 30
    assert request.headers["content-type"] == "application/json"
    assert request.path == "/hooks"
    assert json.loads(request.body) == {
        "id": event.public_id, "type": "alert.created", "created_at": event.created_at.isoformat().replace("+00:00", "Z"),
        "data": {**alert_data(), "created_at": "2026-01-02T03:04:05Z"},
    }
    stored = Delivery.objects.get(event=event)
    assert (stored.status, stored.attempts, stored.last_status) == (DeliveryStatus.SUCCEEDED, 1, 200)
    assert stored.delivered_at is not None and stored.next_attempt_at is None
    (attempt,) = stored.attempt_log.all()
    assert (attempt.number, attempt.status_code, attempt.error) == (1, 200, "")
    assert attempt.finished_at is not None and attempt.duration_ms is not None


def test_two_failures_then_success_makes_three_attempts_at_the_scheduled_delays(
        local_receivers, receiver, make_endpoint, emit, sweep, clock):
    hook = receiver(lambda n, request: 500 if n < 2 else 200)
    make_endpoint(hook.url())
    start = clock.now()

    event = emit()
    stored = Delivery.objects.get(event=event)
    assert (stored.status, stored.attempts, stored.last_status) == ("pending", 1, 500)
    assert stored.next_attempt_at == start + dt.timedelta(seconds=5)
    assert "HTTP 500" in stored.last_error

    clock.advance(seconds=4.9)
    assert sweep() == [] and len(hook.requests) == 1  # not due yet

    clock.set(start + dt.timedelta(seconds=5))
    assert sweep() == [str(stored.pk)]
    stored.refresh_from_db()
    assert (stored.attempts, stored.next_attempt_at) == (2, start + dt.timedelta(seconds=35))

    clock.set(start + dt.timedelta(seconds=35))
    sweep()
    stored.refresh_from_db()
    assert (stored.status, stored.attempts, stored.last_status) == (DeliveryStatus.SUCCEEDED, 3, 200)
    assert [r.answered for r in hook.requests] == [500, 500, 200]
    assert {r.event_id for r in hook.requests} == {event.public_id}
    attempts = list(stored.attempt_log.order_by("number"))
    assert [a.at - start for a in attempts] == [dt.timedelta(0), dt.timedelta(seconds=5), dt.timedelta(seconds=35)]
    assert [a.status_code for a in attempts] == [500, 500, 200]
    assert stored.delivered_at == start + dt.timedelta(seconds=35)

    clock.advance(hours=5)
    assert sweep() == [] and len(hook.requests) == 3  # a delivered event is never sent again


def test_a_receiver_that_never_answers_fails_after_seven_attempts_and_manual_retry_delivers(
        local_receivers, receiver, make_endpoint, emit, sweep, clock, api, key, org, django_capture_on_commit_callbacks):
    fixed = {"yes": False}
    hook = receiver(lambda n, request: 200 if fixed["yes"] else HANG, hang_seconds=6)
    endpoint = make_endpoint(hook.url())
    start = clock.now()

    event = emit()
    stored = Delivery.objects.get(event=event)
    schedule = [5, 30, 120, 900, 3600, 14400]
    for attempt_number, delay in enumerate(schedule, start=1):
        assert (stored.status, stored.attempts) == ("pending", attempt_number)
        assert "timed out" in stored.last_error and stored.last_status is None
        clock.set(stored.next_attempt_at)
        assert stored.next_attempt_at - stored.attempt_log.get(number=attempt_number).finished_at == dt.timedelta(seconds=delay)
        sweep()
        stored.refresh_from_db()
    assert (stored.status, stored.attempts, stored.next_attempt_at) == (DeliveryStatus.FAILED, 7, None)
    assert stored.attempt_log.count() == 7 and len(hook.requests) == 7
    assert clock.now() - start == dt.timedelta(seconds=sum(schedule))
    clock.advance(days=1)
    assert sweep() == []

    fixed["yes"] = True
    client = api(key(org))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/v1/developer/webhook-endpoints/{endpoint.pk}/deliveries/{stored.pk}/retry")
    assert response.status_code == 202, response.json()
    assert (response.json()["status"], response.json()["attempts"]) == ("pending", 7)  # the worker takes it from here
    assert len(hook.acknowledged()) == 1 and hook.acknowledged()[0].event_id == event.public_id
    stored.refresh_from_db()
    assert (stored.status, stored.last_status, stored.attempts) == (DeliveryStatus.SUCCEEDED, 200, 8)

    again = client.post(f"/v1/developer/webhook-endpoints/{endpoint.pk}/deliveries/{stored.pk}/retry")
    assert again.status_code == 409 and again.json()["error"]["code"] == "CONFLICT"
    assert len(hook.requests) == 8


def test_a_failed_manual_retry_leaves_the_delivery_failed(local_receivers, receiver, make_endpoint, emit, clock, org,
                                                          django_capture_on_commit_callbacks):
    hook = receiver(lambda n, request: 503)
    endpoint = make_endpoint(hook.url())
    event = emit()
    Delivery.objects.filter(event=event).update(status=DeliveryStatus.FAILED, attempts=7, next_attempt_at=None)
    stored = Delivery.objects.get(event=event)

    with django_capture_on_commit_callbacks(execute=True):
        services.delivery_retry(principal=principal_of(org), endpoint_id=endpoint.pk, delivery_id=stored.pk)

    stored.refresh_from_db()
    assert (stored.status, stored.attempts, stored.last_status, stored.next_attempt_at) == ("failed", 8, 503, None)


def test_a_receiver_trickling_its_headers_times_out_at_the_deadline(local_receivers, receiver, make_endpoint, emit):
    hook = receiver(lambda n, request: TRICKLE, hang_seconds=12)  # a header line a second: no read ever waits 5 s
    make_endpoint(hook.url())

    started = time.monotonic()
    event = emit()
    elapsed = time.monotonic() - started

    assert [r.event_id for r in hook.requests] == [event.public_id]
    stored = Delivery.objects.get(event=event)
    assert (stored.status, stored.attempts, stored.last_status) == ("pending", 1, None)
    assert stored.last_error.startswith("timed out")
    (attempt,) = stored.attempt_log.all()
    assert (attempt.status_code, attempt.error) == (None, stored.last_error)
    assert 5000 <= attempt.duration_ms < 6500 and elapsed < 8  # one deadline for the whole answer


def test_redirects_are_not_followed(local_receivers, receiver, make_endpoint, emit):
    target = receiver()
    hook = receiver(lambda n, request: (302, {"Location": target.url("/elsewhere")}))
    make_endpoint(hook.url())

    event = emit()

    stored = Delivery.objects.get(event=event)
    assert (stored.status, stored.last_status) == ("pending", 302)
    assert "not followed" in stored.last_error
    assert target.requests == []


def test_a_succeeded_delivery_is_never_claimed_again(local_receivers, receiver, make_endpoint, emit, clock):
    hook = receiver()
    make_endpoint(hook.url())
    event = emit()
    stored = Delivery.objects.get(event=event)

    clock.advance(hours=1)
    assert delivery.delivery_attempt(stored.pk) is None
    Delivery.objects.filter(pk=stored.pk).update(next_attempt_at=clock.now())  # even if made due by hand
    assert delivery.delivery_attempt(stored.pk) is None
    assert len(hook.requests) == 1


def test_a_disabled_endpoint_gets_nothing_and_the_delivery_fails(local_receivers, receiver, make_endpoint, emit,
                                                                  admin_principal, django_capture_on_commit_callbacks):
    hook = receiver()
    endpoint = make_endpoint(hook.url())
    with django_capture_on_commit_callbacks(execute=False):
        event = services.event_emit(organization=endpoint.organization, mode="test", type="alert.created", data=alert_data())
    services.endpoint_update(principal=admin_principal, endpoint_id=endpoint.pk, changes={"enabled": False})

    delivery.delivery_attempt(Delivery.objects.get(event=event).pk)

    stored = Delivery.objects.get(event=event)
    assert (stored.status, stored.last_error) == ("failed", "the endpoint is disabled: not sent")
    assert hook.requests == []


def test_rotating_the_secret_signs_with_the_new_one(local_receivers, receiver, make_endpoint, emit, admin_principal):
    hook = receiver()
    endpoint = make_endpoint(hook.url())
    old = endpoint.signing_secret
    rotated = services.endpoint_rotate_secret(principal=admin_principal, endpoint_id=endpoint.pk)

    emit()

    (request,) = hook.requests
    assert rotated.signing_secret != old
    assert request.headers["x-svc-signature"] == expected_signature(rotated.signing_secret, request)
    assert request.headers["x-svc-signature"] != expected_signature(old, request)


def test_tls_is_verified(settings, receiver, make_endpoint, emit, local_receivers):
    hook = receiver()
    make_endpoint(hook.url())
    settings.WEBHOOK_CA_BUNDLE = ""  # the test CA is no longer trusted

    event = emit()

    stored = Delivery.objects.get(event=event)
    assert stored.status == "pending" and "TLS error" in stored.last_error
    assert hook.requests == []


def test_an_ipv6_receiver_is_reached_with_its_certificate_verified(receiver, make_endpoint, emit, local_receivers):
    hook = receiver(host="::1")
    make_endpoint(hook.url())

    event = emit()

    assert [r.event_id for r in hook.acknowledged()] == [event.public_id]
    assert Delivery.objects.get(event=event).status == "succeeded"


def test_one_task_delivers_the_due_deliveries_of_its_endpoint_in_one_go(
        local_receivers, receiver, make_endpoint, org, clock, django_capture_on_commit_callbacks):
    hook, elsewhere = receiver(), receiver()
    endpoint = make_endpoint(hook.url())
    make_endpoint(elsewhere.url())
    with django_capture_on_commit_callbacks(execute=False):  # their task messages are held back
        events = [services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data())
                  for _ in range(5)]
    first, *others = [Delivery.objects.get(event=event, endpoint=endpoint) for event in events]
    Delivery.objects.filter(pk=others[-1].pk).update(next_attempt_at=clock.now() + dt.timedelta(seconds=5))  # not due

    returned = delivery.delivery_attempt(first.pk)

    assert (returned.pk, returned.status) == (first.pk, "succeeded")
    assert sorted(r.event_id for r in hook.acknowledged()) == sorted(e.public_id for e in events[:4])
    assert elsewhere.requests == []  # another endpoint's deliveries wait for their own tasks
    for stored, expected in zip([first, *others], ["succeeded"] * 4 + ["pending"], strict=True):
        stored.refresh_from_db()
        assert (stored.status, stored.claimed_by) == (expected, "")
        assert stored.attempt_log.filter(finished_at__isnull=False, status_code=200).count() == (expected == "succeeded")
    for request in hook.requests:  # each signed on its own
        assert request.headers["x-svc-signature"] == expected_signature(endpoint.signing_secret, request)

    for stored in others[:3]:  # their own messages find nothing to do
        assert delivery.delivery_attempt(stored.pk) is None
    assert len(hook.requests) == 4


def test_the_leases_of_a_dead_process_of_this_host_are_released_at_once(local_receivers, receiver, make_endpoint, emit,
                                                                         clock, caplog):
    import subprocess
    import sys

    hook = receiver(lambda n, request: 503)
    make_endpoint(hook.url())
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_holder = f"{delivery.lease_holder().split(':')[0]}:{int(gone.stdout)}:1"
    holders = {"dead": dead_holder, "dead too": dead_holder, "alive": delivery.lease_holder(),
               "other host": "elsewhere.example:1:1"}
    leased = {}
    for name, holder in holders.items():
        stored = Delivery.objects.get(event=emit())
        Delivery.objects.filter(pk=stored.pk).update(claimed_by=holder, next_attempt_at=clock.now() + dt.timedelta(seconds=60))
        leased[name] = stored.pk

    assert delivery.delivery_release_dead_leases() == 2
    logged = [record.getMessage() for record in caplog.records if record.name == "webhooks.delivery"]
    assert logged == [f"released 2 delivery leases of processes that are gone: {dead_holder}"]  # each holder once

    for name in ("dead", "dead too"):
        dead = Delivery.objects.get(pk=leased[name])
        assert (dead.status, dead.next_attempt_at, dead.claimed_by) == ("pending", clock.now(), "")
    for name in ("alive", "other host"):
        kept = Delivery.objects.get(pk=leased[name])
        assert (kept.claimed_by, kept.next_attempt_at) == (holders[name], clock.now() + dt.timedelta(seconds=60))


@pytest.fixture
def held_back(org, django_capture_on_commit_callbacks):
    """held_back(n) → n alert.created events whose delivery task messages are never sent."""

    def emit(n: int) -> list:
        with django_capture_on_commit_callbacks(execute=False):
            return [services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data())
                    for _ in range(n)]

    return emit


def test_an_error_of_one_send_is_its_outcome_and_the_rest_of_the_batch_is_recorded(
        local_receivers, receiver, make_endpoint, held_back, sweep, clock, monkeypatch):
    hook = receiver()
    make_endpoint(hook.url())
    first, second, broken = held_back(3)
    real_post = transport.post

    def post(url, body, headers):
        if broken.public_id.encode() in body:
            raise ValueError("an error outside the HTTP exchange")
        return real_post(url, body, headers)

    monkeypatch.setattr(transport, "post", post)
    returned = delivery.delivery_attempt(Delivery.objects.get(event=first).pk)

    assert returned.status == "succeeded"
    assert sorted(r.event_id for r in hook.acknowledged()) == sorted([first.public_id, second.public_id])
    for event in (first, second):
        stored = Delivery.objects.get(event=event)
        assert (stored.status, stored.attempts, stored.last_status, stored.claimed_by) == ("succeeded", 1, 200, "")
    failed = Delivery.objects.get(event=broken)
    assert (failed.status, failed.attempts, failed.last_status) == ("pending", 1, None)
    assert failed.last_error == "ValueError: an error outside the HTTP exchange"
    assert failed.next_attempt_at == failed.attempt_log.get().finished_at + dt.timedelta(seconds=5)

    monkeypatch.setattr(transport, "post", real_post)
    clock.advance(seconds=5)
    sweep()  # the retry sends the failed one alone: the acknowledged ones are not sent again
    assert [r.event_id for r in hook.requests].count(broken.public_id) == 1 and len(hook.requests) == 3
    assert set(Delivery.objects.values_list("status", flat=True)) == {"succeeded"}


def test_an_endpoint_deleted_during_a_send_leaves_nothing_to_record_and_no_error(
        local_receivers, receiver, make_endpoint, held_back, org, monkeypatch):
    """The admin deletes the endpoint while its deliveries are being sent (the claim has committed,
    the send runs outside a transaction): the outcomes find no delivery to record, and the attempt
    ends quietly instead of failing on it."""
    hook = receiver()
    endpoint = make_endpoint(hook.url())
    (event,) = held_back(1)  # one send: in this thread, on this test's connection
    real_post = transport.post

    def post_then_delete(url, body, headers):
        response = real_post(url, body, headers)
        services.endpoint_delete(principal=principal_of(org), endpoint_id=endpoint.pk)
        return response

    monkeypatch.setattr(transport, "post", post_then_delete)
    assert delivery.delivery_attempt(Delivery.objects.get(event=event).pk) is None

    assert not Delivery.objects.exists() and not WebhookEndpoint.objects.filter(pk=endpoint.pk).exists()
    assert Event.objects.filter(pk=event.pk).exists()  # the event stays
    assert [r.event_id for r in hook.acknowledged()] == [event.public_id]


def test_a_soft_time_limit_during_a_batch_records_what_finished_and_times_out_the_rest(
        local_receivers, receiver, make_endpoint, held_back, sweep, clock):
    import signal
    import threading

    from celery.exceptions import SoftTimeLimitExceeded

    hook = receiver(lambda n, request: HANG if request.event_id == slow.public_id else 200, hang_seconds=8)
    make_endpoint(hook.url())
    answered, slow = held_back(2), held_back(1)[0]

    def soft_time_limit(signum, frame):  # what Celery's pool does to a task at its soft time limit
        raise SoftTimeLimitExceeded()

    previous = signal.signal(signal.SIGUSR1, soft_time_limit)
    timer = threading.Timer(3.5, signal.pthread_kill, (threading.main_thread().ident, signal.SIGUSR1))
    try:
        timer.start()
        delivery.delivery_attempt(Delivery.objects.get(event=answered[0]).pk)
    finally:
        timer.cancel()
        signal.signal(signal.SIGUSR1, previous)

    assert sorted(r.event_id for r in hook.acknowledged()) == sorted(e.public_id for e in answered)
    for event in answered:
        assert Delivery.objects.get(event=event).status == "succeeded"
    unfinished = Delivery.objects.get(event=slow)
    assert (unfinished.status, unfinished.attempts, unfinished.last_status) == ("pending", 1, None)
    assert unfinished.last_error == "timed out: no answer before the batch's time ran out"
    attempt = unfinished.attempt_log.get()
    assert attempt.finished_at is not None and 3000 <= attempt.duration_ms < 5000
    assert unfinished.next_attempt_at == attempt.finished_at + dt.timedelta(seconds=5)

    hook.behaviour = lambda n, request: 200
    clock.advance(seconds=5)
    sweep()
    assert [r.event_id for r in hook.acknowledged()].count(slow.public_id) == 1 and len(hook.acknowledged()) == 3


class WorkerLost(BaseException):
    """The worker's process ends between the send and the recording of its outcome."""


@pytest.mark.parametrize("how", ["lease ends", "holder gone"])
def test_attempts_whose_outcome_is_lost_count_and_the_seventh_makes_the_delivery_failed(
        local_receivers, receiver, make_endpoint, emit, sweep, clock, monkeypatch, settings, how):
    import subprocess
    import sys

    hook = receiver()
    endpoint = make_endpoint(hook.url())

    def record_never(claimed):
        raise WorkerLost

    monkeypatch.setattr(delivery, "_record", record_never)
    if how == "holder gone":  # a worker of this host killed and restarted: its leases are handed back at once
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        monkeypatch.setattr(delivery, "lease_holder", lambda: f"{delivery._this_host()}:{int(gone.stdout)}:1")
        settings.WEBHOOK_DELIVERY_LEASE_SECONDS = 3600
    with pytest.raises(WorkerLost):
        emit()
    stored = Delivery.objects.get()
    for _ in range(12):
        clock.advance(seconds=200)  # past the lease, and past the time a task message is trusted to arrive
        with contextlib.suppress(WorkerLost):
            sweep()

    stored.refresh_from_db()
    assert (stored.status, stored.attempts) == ("failed", 7)
    assert stored.last_error.startswith("attempt outcome lost")
    assert (stored.next_attempt_at, stored.claimed_by, stored.last_status) == (None, "", None)
    assert list(stored.attempt_log.values_list("number", "finished_at")) == [(n, None) for n in range(1, 8)]
    assert len(hook.requests) == 7 and {r.event_id for r in hook.requests} == {stored.event.public_id}
    clock.advance(days=1)
    assert sweep() == [] and len(hook.requests) == 7

    monkeypatch.undo()  # the worker records again: a manual retry still makes one more attempt
    services.delivery_retry(principal=principal_of(endpoint.organization), endpoint_id=endpoint.pk, delivery_id=stored.pk)
    delivery.delivery_attempt(stored.pk)
    stored.refresh_from_db()
    assert (stored.status, stored.attempts, stored.last_status) == ("succeeded", 8, 200)


def test_a_send_stopped_at_every_attempt_by_the_soft_time_limit_fails_after_seven(
        local_receivers, receiver, make_endpoint, emit, sweep, clock, monkeypatch):
    from celery.exceptions import SoftTimeLimitExceeded

    hook = receiver()
    make_endpoint(hook.url())
    sent = []

    def stopped(url, body, headers):
        sent.append(body)
        raise SoftTimeLimitExceeded  # what Celery raises in a task at its soft time limit (40 s)

    monkeypatch.setattr(transport, "post", stopped)
    emit()
    stored = Delivery.objects.get()
    for _ in range(12):
        clock.advance(hours=5)  # past every retry's due time
        sweep()

    stored.refresh_from_db()
    assert (stored.status, stored.attempts, stored.last_status) == ("failed", 7, None)
    assert stored.last_error == "timed out: no answer before the batch's time ran out"
    assert stored.attempt_log.filter(finished_at__isnull=False).count() == 7 and len(sent) == 7
    assert hook.requests == []
