"""The Celery side: beat entries, the tasks as thin wrappers, and two workers racing for one attempt."""

import logging
import threading
import time

import pytest
from django.db import connection

from config.celery import app
from tests.webhooks.conftest import alert_data
from tests.webhooks.receiver import HANG
from webhooks import delivery, services, tasks
from webhooks.models import Delivery


def test_the_sweepers_are_on_the_beat_schedule():
    schedule = app.conf.beat_schedule
    assert schedule["webhooks.sweep_deliveries"]["task"] == tasks.sweep_deliveries.name == "webhooks.sweep_deliveries"
    assert schedule["webhooks.sweep_deliveries"]["schedule"] == delivery.SWEEP_INTERVAL.total_seconds()
    assert schedule["webhooks.sweep_callbacks"]["task"] == tasks.sweep_callbacks.name


def test_tasks_are_registered_with_json_arguments_and_limits():
    for task in (tasks.deliver, tasks.sweep_deliveries, tasks.ingest_callback, tasks.sweep_callbacks):
        assert task.name in app.tasks and task.ignore_result and task.time_limit
    assert tasks.deliver.time_limit < delivery.lease().total_seconds()  # a killed task's lease always ends


@pytest.mark.django_db
def test_the_sweep_task_delivers_what_is_due(local_receivers, receiver, make_endpoint, org,
                                             django_capture_on_commit_callbacks):
    hook = receiver()
    make_endpoint(hook.url())
    event = services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data())
    Delivery.objects.filter(event=event).update(enqueued_at=None)  # its message was lost: only the sweeper knows

    with django_capture_on_commit_callbacks(execute=True):
        tasks.sweep_deliveries.delay()  # what beat sends

    assert [r.event_id for r in hook.acknowledged()] == [event.public_id]
    assert Delivery.objects.get(event=event).status == "succeeded"


@pytest.mark.django_db
def test_the_sweep_logs_at_info_only_when_it_enqueued_something(local_receivers, receiver, make_endpoint, org, caplog,
                                                                  django_capture_on_commit_callbacks):
    caplog.set_level(logging.DEBUG, logger="webhooks.delivery")
    delivery.delivery_sweep()
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [("DEBUG", "sweep: 0 due deliveries enqueued")]
    caplog.clear()
    make_endpoint(receiver().url())
    event = services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data())
    Delivery.objects.filter(event=event).update(enqueued_at=None)
    with django_capture_on_commit_callbacks(execute=True):
        delivery.delivery_sweep()
    assert ("INFO", "sweep: 1 due deliveries enqueued") in [(r.levelname, r.getMessage()) for r in caplog.records
                                                            if r.name == "webhooks.delivery"]


@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_one_attempt_send_it_once(local_receivers, receiver, make_endpoint, org, monkeypatch):
    hook = receiver(lambda n, request: time.sleep(0.5) or 200)
    make_endpoint(hook.url())
    monkeypatch.setattr(tasks.deliver, "apply_async", lambda *args, **kwargs: None)  # no message: the race is ours to run
    event = services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data())
    target = Delivery.objects.get(event=event).pk
    results = []

    def worker():
        try:
            results.append(delivery.delivery_attempt(target))
        finally:
            connection.close()

    racers = [threading.Thread(target=worker) for _ in range(4)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(30)

    assert len(hook.requests) == 1
    assert sum(result is not None for result in results) == 1
    stored = Delivery.objects.get(pk=target)
    assert (stored.status, stored.attempts, stored.attempt_log.count()) == ("succeeded", 1, 1)


@pytest.mark.django_db(transaction=True)
def test_a_slow_endpoints_batch_does_not_hold_up_the_sends_of_another(local_receivers, receiver, make_endpoint, org,
                                                                      monkeypatch, settings):
    settings.WEBHOOK_SEND_CONCURRENCY = 32
    slow, fast = receiver(lambda n, request: HANG, hang_seconds=8), receiver()
    slow_endpoint, fast_endpoint = make_endpoint(slow.url()), make_endpoint(fast.url())
    monkeypatch.setattr(tasks.deliver, "apply_async", lambda *args, **kwargs: None)  # the tasks are ours to run
    services.events_emit(organization=org, mode="test", events=[("alert.created", alert_data())] * 34)  # > 32 at once
    first_of = {endpoint: Delivery.objects.filter(endpoint=endpoint).order_by("next_attempt_at", "pk").first().pk
                for endpoint in (slow_endpoint, fast_endpoint)}

    def slow_task():
        try:
            delivery.delivery_attempt(first_of[slow_endpoint])
        finally:
            connection.close()

    other_worker = threading.Thread(target=slow_task)
    other_worker.start()
    try:
        assert slow.wait_for(32, timeout=30)  # every sending thread of its batch is waiting on it
        started = time.monotonic()
        delivery.delivery_attempt(first_of[fast_endpoint])
        elapsed = time.monotonic() - started
    finally:
        other_worker.join(30)

    # Not queued behind the slow endpoint's sends (5 s each, their deadline); 34 quick sends take ~1 s, more on a busy machine.
    assert elapsed < 4.5, elapsed
    assert len(fast.acknowledged()) == 34
    assert Delivery.objects.filter(endpoint=fast_endpoint, status="succeeded").count() == 34
    assert Delivery.objects.filter(endpoint=slow_endpoint, status="pending", attempts=1).count() == 34
    assert len(slow.requests) == 34
