"""The event catalogue and event_emit: rows first, in the caller's transaction."""

import datetime as dt
import decimal
import uuid

import pytest
from django.db import transaction

from tests.webhooks.conftest import alert_data, principal_of
from webhooks import catalogue, services
from webhooks.models import Delivery, Event, WebhookEndpoint

SPEC_TYPES = {
    "alert.created", "alert.disposition_set", "case.created", "case.status_changed", "case.assigned", "sar.filed",
    "ctr.filed", "entity.risk_score_changed", "fincen_314a.match_found", "adverse_media.detected",
    "compliance.status_changed", "compliance.wallet_flagged", "compliance.entity_suspended", "transfer.detected",
    "transfer.confirmed", "account.approved", "account.suspended", "account.kyb_expired",
}


def test_the_catalogue_has_every_type_of_the_spec():
    assert set(catalogue.subscribable_types()) == SPEC_TYPES
    assert all(event.fields and event.emitted_when for event in catalogue.CATALOGUE.values())


@pytest.mark.parametrize(("name", "fields"), [
    ("alert.created", ["alert_id", "entity_id", "rule_id", "rule_name", "severity", "description", "transaction_ids", "created_at"]),
    ("case.status_changed", ["case_id", "entity_id", "previous_status", "new_status", "assigned_to", "alert_ids", "updated_at"]),
    ("sar.filed", ["sar_id", "case_id", "entity_id", "bsa_id", "filing_date", "amount_involved", "activity_start_date",
                   "activity_end_date"]),
])
def test_the_three_specified_payloads_have_exactly_the_spec_fields(name, fields):
    assert list(catalogue.CATALOGUE[name].fields) == fields


def test_payload_values_are_made_json_native():
    sar = catalogue.event_payload("sar.filed", {
        "sar_id": uuid.UUID(int=1), "case_id": "c1", "entity_id": "e1", "bsa_id": "31000012345678",
        "filing_date": dt.date(2026, 3, 1), "amount_involved": decimal.Decimal("125000.00"),
        "activity_start_date": "2026-01-01", "activity_end_date": dt.date(2026, 2, 28),
    })
    assert sar == {"sar_id": "00000000-0000-0000-0000-000000000001", "case_id": "c1", "entity_id": "e1", "bsa_id": "31000012345678",
                   "filing_date": "2026-03-01", "amount_involved": 125000, "activity_start_date": "2026-01-01",
                   "activity_end_date": "2026-02-28"}
    alert = catalogue.event_payload("alert.created", alert_data(created_at="2026-01-02T05:04:05+02:00"))
    assert alert["created_at"] == "2026-01-02T03:04:05Z"


@pytest.mark.parametrize("change", [
    {"rule_name": None}, {"transaction_ids": "tx-1"}, {"created_at": dt.datetime(2026, 1, 1)}, {"created_at": "yesterday"},
    {"severity": 3}, {"extra": "field"},
])
def test_bad_payloads_are_a_programming_error(change):
    with pytest.raises(catalogue.PayloadError):
        catalogue.event_payload("alert.created", alert_data(**change))


def test_a_missing_field_is_refused():
    data = alert_data()
    del data["rule_name"]
    with pytest.raises(catalogue.PayloadError, match="rule_name"):
        catalogue.event_payload("alert.created", data)


@pytest.mark.django_db
class TestEmit:
    def test_one_delivery_per_enabled_subscribed_endpoint_of_the_same_org_and_mode(self, org, other_org):
        url = "https://hooks.example.com/x"
        subscribed = services.endpoint_create(principal=principal_of(org), url=url, event_types=["alert.created"])
        services.endpoint_create(principal=principal_of(org), url=url, event_types=["sar.filed"])
        services.endpoint_create(principal=principal_of(org), url=url, event_types=["alert.created"], enabled=False)
        services.endpoint_create(principal=principal_of(org, mode="live"), url=url, event_types=["alert.created"])
        services.endpoint_create(principal=principal_of(other_org), url=url, event_types=["alert.created"])

        event = services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data())

        assert event.public_id.startswith("evt_") and len(event.public_id) == 28
        (delivery,) = Delivery.objects.all()
        assert (delivery.endpoint, delivery.event, delivery.status, delivery.mode) == (subscribed, event, "pending", "test")
        assert delivery.next_attempt_at is not None

    def test_event_ids_are_unique(self, org):
        ids = {services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data()).public_id
               for _ in range(50)}
        assert len(ids) == 50

    def test_a_rolled_back_business_transaction_leaves_nothing(self, org, django_capture_on_commit_callbacks):
        services.endpoint_create(principal=principal_of(org), url="https://hooks.example.com/x", event_types=["alert.created"])
        with django_capture_on_commit_callbacks() as callbacks, pytest.raises(RuntimeError), transaction.atomic():
            services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data())
            raise RuntimeError("the alert could not be stored")
        assert not Event.objects.exists() and not Delivery.objects.exists()
        assert callbacks == []

    def test_many_events_at_once(self, org, django_capture_on_commit_callbacks):
        url = "https://hooks.example.com/x"
        alerts = services.endpoint_create(principal=principal_of(org), url=url, event_types=["alert.created"])
        both = services.endpoint_create(principal=principal_of(org), url=url, event_types=["alert.created", "case.assigned"])
        assigned = {"case_id": "c1", "entity_id": "e1", "assigned_to": "u1", "previous_assignee": None, "assigned_by": None,
                    "assigned_at": dt.datetime(2026, 1, 1, tzinfo=dt.UTC)}
        with django_capture_on_commit_callbacks() as callbacks:
            events = services.events_emit(organization=org, mode="test", events=[
                ("alert.created", alert_data()), ("alert.created", alert_data(rule_id="fan_in")), ("case.assigned", assigned),
            ])
        assert len({event.public_id for event in events}) == 3
        pairs = sorted((d.event.type, d.endpoint_id == both.pk) for d in Delivery.objects.select_related("event"))
        assert pairs == [("alert.created", False), ("alert.created", False), ("alert.created", True), ("alert.created", True),
                         ("case.assigned", True)]
        assert len(callbacks) == 5 and Delivery.objects.filter(endpoint=alerts).count() == 2
        with pytest.raises(catalogue.PayloadError):
            services.events_emit(organization=org, mode="test", events=[("alert.created", {"alert_id": "x"})])
        assert services.events_emit(organization=org, mode="test", events=[]) == []

    def test_the_test_type_cannot_be_emitted(self, org):
        with pytest.raises(catalogue.PayloadError):
            services.event_emit(organization=org, mode="test", type="webhook.test", data={"endpoint_id": "x", "message": "y"})


@pytest.mark.django_db(transaction=True)
def test_an_endpoint_deleted_while_a_transaction_emits_to_it_waits_and_takes_the_new_deliveries(org):
    """An ingest reads the endpoints once and emits later in its transaction; an admin deletes one of
    them meanwhile. The delete waits for the ingest, which commits its event and delivery; the delete
    then removes the endpoint with that delivery (events stay). Without the hold the ingest's commit
    failed on the delivery's reference to the deleted endpoint."""
    import threading

    from django.db import connection

    from tests.concurrency import second_waits_for_first

    if connection.vendor != "postgresql":
        pytest.skip("row locks between two open transactions")
    endpoint = services.endpoint_create(principal=principal_of(org), url="https://hooks.example.com/x", event_types=["alert.created"])
    read, release, outcome = threading.Event(), threading.Event(), {}

    def ingest():
        try:
            with transaction.atomic(), services.endpoints_read_once():
                assert services.has_subscribers(organization=org, mode="test", type="alert.created")
                read.set()
                release.wait(60)
                outcome["event"] = services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data())
            outcome["ingest"] = "committed"
        except Exception as exc:  # noqa: BLE001 - the outcome is what the test asserts
            outcome["ingest"] = repr(exc)

    def delete():
        try:
            services.endpoint_delete(principal=principal_of(org), endpoint_id=endpoint.pk)
            outcome["delete"] = "committed"
        except Exception as exc:  # noqa: BLE001 - the outcome is what the test asserts
            outcome["delete"] = repr(exc)

    waited = second_waits_for_first(ingest, delete, held=read, release=release)  # the ingest goes on once the delete waits
    assert waited and outcome.get("ingest") == "committed" and outcome.get("delete") == "committed", outcome
    assert not WebhookEndpoint.objects.filter(pk=endpoint.pk).exists() and not Delivery.objects.exists()
    assert list(Event.objects.values_list("public_id", flat=True)) == [outcome["event"].public_id]
