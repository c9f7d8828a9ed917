# ruff: noqa: F811  (the tests take the imported fixtures client and entity by name)
"""The statements of monitoring that opens an alert and its case: everything it must write, and no
savepoint (each costs two round trips to the database and protects nothing there; docs/decisions.md),
on SQLite and on PostgreSQL."""

from datetime import UTC, datetime

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from common.errors import ValidationFailed
from common.models import AuditLogEntry
from filings.cases.common import numbers_take
from filings.models import Case, CaseEvent, CaseSequence
from monitoring.engine.runner import monitor
from monitoring.models import Alert, AlertHit, Notification, Transaction
from monitoring.notifications.services import notifications_create
from tests.monitoring.api_fixtures import EVM, OTHER, client, entity  # noqa: F401  (fixtures, used by name)
from webhooks import catalogue
from webhooks.models import Event
from webhooks.services import event_emit, events_emit

pytestmark = pytest.mark.django_db


def monitored(client, org, i: int, amount: str) -> tuple[int, list[str]]:
    """Store a transfer, then monitor it as ingestion does, in a transaction of its own; returns the
    alerts touched and the statements of the monitoring alone."""
    response = client.post("/v1/monitoring/transfers", {
        "from_address": OTHER, "to_address": EVM, "amount": amount, "asset": "USDC", "chain_id": 1,
        "timestamp": f"2026-03-01T1{i}:00:00Z", "tx_hash": f"0x{i}", "run_monitoring": False}, format="json")
    assert response.status_code == 200, response.content
    record = Transaction.objects.get(pk=response.json()["id"])
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        touched = monitor(organization=org, mode="test", transactions=[record])
    return touched, [query["sql"] for query in captured]


def savepoints(statements: list[str]) -> list[str]:
    return [sql for sql in statements if sql.upper().startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT"))]


def test_monitoring_that_opens_an_alert_and_a_case_writes_them_all_without_a_savepoint(client, org, entity):
    CaseSequence.objects.create(organization=org, mode="test")  # an organization's very first case makes it, once
    touched, statements = monitored(client, org, 0, "12500")
    opened = set(Alert.objects.values_list("pk", flat=True))
    assert touched == len(opened) >= 1
    alert = Alert.objects.get(rule_code="large_transfer")
    case = Case.objects.get(entity_id=entity["id"])
    assert (alert.status, alert.hit_count, case.number, case.status) == ("open", 1, 1, "open")
    assert set(case.alert_links.values_list("alert_id", flat=True)) == opened
    assert AlertHit.objects.filter(alert=alert).count() == 1 and alert.transactions.count() == 1
    assert set(Notification.objects.filter(type="alert_created").values_list("alert_id", flat=True)) == opened
    types = list(Event.objects.filter(type__in=("alert.created", "case.created")).values_list("type", flat=True))
    assert sorted(types) == sorted(["alert.created"] * len(opened) + ["case.created"])
    assert list(CaseEvent.objects.filter(case=case).values_list("kind", flat=True)) == ["created"]
    assert AuditLogEntry.objects.filter(action="case.created", object_id=str(case.pk)).count() == 1
    assert savepoints(statements) == []

    touched, statements = monitored(client, org, 1, "15000")  # the same rule again: the open alert is extended (dedupe)
    alert.refresh_from_db()
    assert touched >= 1 and alert.hit_count == 2 and Case.objects.count() == 1
    assert alert.transactions.count() == 2 and Event.objects.filter(type="alert.created", data__alert_id=str(alert.pk)).count() == 1
    assert savepoints(statements) == []


def test_an_alert_extended_by_an_earlier_hit_moves_its_first_trigger_back_and_keeps_its_latest(client, org, entity):
    """A backfill replays transfers older than the alert they extend: the first trigger is the
    earliest hit's time, the latest the newest's, whatever order the hits come in."""
    def at(hour):
        return datetime(2026, 3, 1, hour, tzinfo=UTC)

    monitored(client, org, 5, "12500")
    alert = Alert.objects.get(rule_code="large_transfer")
    assert (alert.hit_count, alert.first_triggered_at, alert.last_triggered_at) == (1, at(15), at(15))
    monitored(client, org, 1, "15000")  # happened earlier, evaluated later
    alert.refresh_from_db()
    assert (alert.hit_count, alert.first_triggered_at, alert.last_triggered_at) == (2, at(11), at(15))
    monitored(client, org, 3, "11000")  # in between: neither end moves
    alert.refresh_from_db()
    assert (alert.hit_count, alert.first_triggered_at, alert.last_triggered_at) == (3, at(11), at(15))
    assert sorted(AlertHit.objects.filter(alert=alert).values_list("triggered_at", flat=True)) == [at(11), at(13), at(15)]


def test_case_numbers_are_taken_in_one_statement_each_organization_and_mode_on_its_own(org, other_org):
    assert numbers_take(org, "test", 3) == 1  # makes the sequence
    with CaptureQueriesContext(connection) as captured:
        assert numbers_take(org, "test", 2) == 4
    assert len(captured) == 1 and captured[0]["sql"].upper().startswith("UPDATE")
    assert numbers_take(org, "test", 1) == 6
    assert numbers_take(org, "live", 1) == 1 and numbers_take(other_org, "test", 1) == 1
    assert numbers_take(org, "test", 1) == 7


def test_the_emitters_check_what_they_are_given_before_writing_and_leave_the_callers_transaction_usable(org):
    """They take no savepoint: a refusal must come before any write, so that a caller that catches
    it can go on in its transaction."""
    with transaction.atomic():
        with pytest.raises(catalogue.PayloadError):
            events_emit(organization=org, mode="test", events=[("alert.created", {"alert_id": "x"})])
        with pytest.raises(catalogue.PayloadError):
            event_emit(organization=org, mode="test", type="webhook.test", data={"endpoint_id": "x", "message": "y"})
        with pytest.raises(ValidationFailed):
            notifications_create(organization=org, mode="test", items=[{"type": "no_such_type", "title": "t"}])
        assert Event.objects.count() == 0 and Notification.objects.count() == 0  # the transaction still answers
        made = notifications_create(organization=org, mode="test", items=[{"type": "alert_created", "title": "x" * 250}])
    assert [n.title for n in Notification.objects.all()] == ["x" * 200] == [n.title for n in made]


def test_an_ingest_reads_the_webhook_endpoints_once_and_delivers_each_of_its_events(client, org, entity):
    """It announces its transfer, opens alerts and a case: three emissions, one read of the endpoints."""
    from webhooks.models import Delivery, WebhookEndpoint

    endpoint = WebhookEndpoint.objects.create(organization=org, mode="test", url="https://hooks.example.com/in", signing_secret="s",
                                              event_types=["transfer.detected", "alert.created", "case.created"])
    WebhookEndpoint.objects.create(organization=org, mode="test", url="https://hooks.example.com/off", signing_secret="s",
                                   event_types=["alert.created"], enabled=False)
    with CaptureQueriesContext(connection) as captured:
        response = client.post("/v1/monitoring/transfers", {
            "from_address": OTHER, "to_address": EVM, "amount": "12500", "asset": "USDC", "chain_id": 1,
            "timestamp": "2026-03-01T10:00:00Z", "tx_hash": "0x1"}, format="json")
    assert response.status_code == 200 and response.json()["alerts_triggered"] >= 1
    delivered = sorted(Delivery.objects.filter(endpoint=endpoint).values_list("event__type", flat=True))
    alerts = Alert.objects.count()
    assert delivered == sorted(["transfer.detected", "case.created"] + ["alert.created"] * alerts)
    assert Delivery.objects.count() == len(delivered)  # none to the disabled endpoint
    reads = [query["sql"] for query in captured if 'FROM "webhooks_webhookendpoint"' in query["sql"]]
    assert len(reads) == 1, reads


def test_a_malformed_alert_id_is_refused_before_the_case_writes_and_the_transaction_goes_on(org):
    from filings.cases.attach import cases_attach_alerts

    with transaction.atomic():
        with pytest.raises(ValueError):
            cases_attach_alerts(organization=org, mode="test", alerts=["not-a-uuid"])
        assert Case.objects.count() == 0  # still usable: no block took the failure with it


def test_case_numbers_without_update_returning_are_the_same(org, other_org, monkeypatch):
    """An SQLite older than 3.35 has no RETURNING: a locked read and a write give the same numbers."""
    from filings.cases import common

    monkeypatch.setattr(common, "_updates_return_rows", lambda: False)
    assert numbers_take(org, "test", 3) == 1
    assert numbers_take(org, "test", 2) == 4
    assert numbers_take(org, "live", 1) == 1 and numbers_take(other_org, "test", 1) == 1
    assert CaseSequence.objects.get(organization=org, mode="test").last == 5


@pytest.mark.django_db(transaction=True)
def test_two_first_cases_of_an_organization_at_once_take_one_and_two(org):
    """Neither sees a sequence row; both make one; the second waits on the first's, is refused when
    it commits, and takes the next number from it."""
    import threading

    from tests.concurrency import second_waits_for_first

    if connection.vendor != "postgresql":
        pytest.skip("row locks between two open transactions")
    taken, first_done, release = {}, threading.Event(), threading.Event()

    def take(name, hold):
        try:
            with transaction.atomic():
                taken[name] = numbers_take(org, "test", 1)
                if hold:
                    first_done.set()
                    release.wait(60)
        except Exception as exc:  # noqa: BLE001 - the outcome is what the test asserts
            taken[name] = repr(exc)

    waited = second_waits_for_first(lambda: take("first", True), lambda: take("second", False), held=first_done, release=release)
    assert waited and taken == {"first": 1, "second": 2}, taken
    assert CaseSequence.objects.get(organization=org, mode="test").last == 2
