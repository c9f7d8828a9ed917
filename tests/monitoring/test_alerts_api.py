# ruff: noqa: F811  (the tests take the imported fixtures client and entity by name)
"""Alerts and transfers of an entity: list, detail (no parameters or scores), disposition, triage."""

import pytest

from common.models import AuditLogEntry
from monitoring.models import Alert, Transaction
from tests.monitoring.api_fixtures import EVM, OTHER, client, entity  # noqa: F401  (fixtures, used by name)
from webhooks.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def alert(client, entity):
    for i, amount in enumerate(["12500", "15000"]):
        client.post("/v1/monitoring/transfers", {"from_address": OTHER, "to_address": EVM, "amount": amount, "asset": "USDC",
                                                 "chain_id": 1, "timestamp": f"2026-03-01T1{i}:00:00Z", "tx_hash": f"0x{i}"}, format="json")
    return Alert.objects.get(rule_code="large_transfer")


def url(entity, rest=""):
    return f"/v1/onboarding/entities/{entity['id']}/{rest}"


class TestList:
    def test_lists_with_filters_and_no_internal_details(self, client, entity, alert):
        body = client.get(url(entity, "alerts")).json()
        listed = next(a for a in body["data"] if a["id"] == str(alert.pk))
        assert listed["rule_id"] == "1" and listed["hit_count"] == 2 and listed["transaction_count"] == 2
        assert "evidence" not in listed and "score" not in listed
        assert client.get(url(entity, "alerts?severity=critical")).json()["total"] == 0
        assert client.get(url(entity, "alerts?status=open")).json()["total"] == body["total"]
        assert client.get(url(entity, "alerts?status=bogus")).status_code == 422
        assert client.get(url(entity, "alerts?limit=101")).status_code == 422

    def test_other_tenant_and_unknown_entity_are_404(self, api, other_org, key, entity, alert):
        assert api(key(other_org)).get(url(entity, "alerts")).status_code == 404
        assert api(key(other_org)).get(url(entity, f"alerts/{alert.pk}")).status_code == 404
        assert api(key(alert.organization, mode="live")).get(url(entity, "alerts")).status_code == 404


class TestDetail:
    def test_shows_measured_values_and_transactions_but_no_parameters(self, client, entity, alert):
        body = client.get(url(entity, f"alerts/{alert.pk}")).json()
        assert len(body["measured"]) == 2 and "parameters" not in str(body["measured"]) and "score" not in body
        assert sorted(body["transaction_ids"]) == sorted(str(t) for t in Transaction.objects.values_list("pk", flat=True))

    def test_counts_transactions_like_the_list(self, client, entity, alert):
        body = client.get(url(entity, f"alerts/{alert.pk}")).json()
        listed = next(a for a in client.get(url(entity, "alerts")).json()["data"] if a["id"] == str(alert.pk))
        assert body["transaction_count"] == listed["transaction_count"] == 2 == alert.transactions.count()
        assert len(body["transaction_ids"]) == body["transaction_count"]

    def test_triage_is_deterministic_and_explained(self, client, entity, alert):
        first = client.get(url(entity, f"alerts/{alert.pk}/ai-triage")).json()
        assert first == client.get(url(entity, f"alerts/{alert.pk}/ai-triage")).json()
        assert first["recommendation"] in {"escalate", "review", "likely_false_positive"} and first["generator"] == "deterministic"
        assert any("fired 2 times" in reason for reason in first["reasons"])


    def test_triage_of_a_closed_alert_leaves_its_own_disposition_out_of_the_history_and_says_it_is_closed(self, client, entity, alert):
        response = client.post(url(entity, f"alerts/{alert.pk}/disposition"), {"disposition": "true_positive", "notes": "confirmed"},
                               format="json")
        assert response.status_code == 200, response.json()
        reasons = client.get(url(entity, f"alerts/{alert.pk}/ai-triage")).json()["reasons"]
        assert "Too few earlier dispositions of large_transfer (0) to weigh its history." in reasons
        assert reasons[-1].startswith("The alert is closed already: true_positive, set by api_key:")
        alert.refresh_from_db()
        assert alert.status == "closed"


class TestDisposition:
    def test_closes_records_who_and_emits(self, client, entity, alert):
        response = client.post(url(entity, f"alerts/{alert.pk}/disposition"),
                               {"disposition": "false_positive", "notes": "payroll"}, format="json")
        body = response.json()
        assert response.status_code == 200, body
        assert (body["status"], body["disposition"], body["notes"]) == ("closed", "false_positive", "payroll")
        alert.refresh_from_db()
        assert alert.status == "closed" and alert.disposed_at and alert.disposed_by_label.startswith("api_key:")
        event = Event.objects.get(type="alert.disposition_set")
        assert event.data["disposition"] == "false_positive" and event.data["alert_id"] == str(alert.pk)
        assert AuditLogEntry.objects.filter(action="alert.disposition_set", object_id=str(alert.pk)).exists()
        from filings.models import CaseEvent

        noted = CaseEvent.objects.get(case__alert_links__alert=alert, kind="alert_disposed")
        assert (noted.body, noted.data, noted.actor_label) == ("payroll", {"alert_id": str(alert.pk), "rule_code": "large_transfer",
                                                                           "disposition": "false_positive"}, alert.disposed_by_label)
        case_view = client.get(url(entity, f"cases/{noted.case_id}")).json()
        assert case_view["events"][-1]["kind"] == "alert_disposed" and case_view["events"][-1]["body"] == "payroll"
        again = client.post(url(entity, f"alerts/{alert.pk}/disposition"), {"disposition": "true_positive", "notes": "second look"},
                            format="json")
        assert again.status_code == 409
        alert.refresh_from_db()
        assert alert.disposition == "false_positive"

    def test_a_new_hit_after_closing_opens_a_new_alert(self, client, entity, alert):
        client.post(url(entity, f"alerts/{alert.pk}/disposition"), {"disposition": "true_positive", "notes": "confirmed"}, format="json")
        client.post("/v1/monitoring/transfers", {"from_address": OTHER, "to_address": EVM, "amount": "20000", "asset": "USDC",
                                                 "chain_id": 1, "timestamp": "2026-03-02T10:00:00Z", "tx_hash": "0x9"}, format="json")
        assert Alert.objects.filter(rule_code="large_transfer").count() == 2
        assert Alert.objects.filter(rule_code="large_transfer", status="open").count() == 1

    @pytest.mark.parametrize("notes", [None, "", "   "])
    def test_the_rationale_is_required(self, client, entity, alert, notes):
        body = {"disposition": "false_positive"} | ({} if notes is None else {"notes": notes})
        response = client.post(url(entity, f"alerts/{alert.pk}/disposition"), body, format="json")
        assert response.status_code == 422
        details = response.json()["error"]["details"]
        assert [d["field"] for d in details] == ["notes"] and details[0]["message"].startswith("Say why: what you reviewed")
        alert.refresh_from_db()
        assert (alert.status, alert.disposition, alert.disposed_at) == ("open", "", None)
        assert not Event.objects.filter(type="alert.disposition_set").exists()

    @pytest.mark.parametrize("notes", [5, 1.5])
    def test_a_number_for_the_rationale_is_a_422_not_its_digits(self, client, entity, alert, notes):
        response = client.post(url(entity, f"alerts/{alert.pk}/disposition"), {"disposition": "false_positive", "notes": notes},
                               format="json")
        assert response.status_code == 422
        assert response.json()["error"]["details"] == [{"field": "notes", "message": "Give text here (a JSON string), not a number."}]
        alert.refresh_from_db()
        assert (alert.status, alert.disposition, alert.disposition_notes) == ("open", "", "")

    @pytest.mark.parametrize("body", [{"disposition": "maybe", "notes": "x"}, {},
                                      {"disposition": "true_positive", "notes": "x", "extra": 1}])
    def test_bad_input(self, client, entity, alert, body):
        assert client.post(url(entity, f"alerts/{alert.pk}/disposition"), body, format="json").status_code == 422
        alert.refresh_from_db()
        assert alert.status == "open"

    def test_roles(self, api, org, key, entity, alert):
        response = api(key(org, role="viewer")).post(url(entity, f"alerts/{alert.pk}/disposition"),
                                                     {"disposition": "true_positive", "notes": "x"}, format="json")
        assert response.status_code == 403
        alert.refresh_from_db()
        assert alert.status == "open"


class TestTransfers:
    def test_list_filters_and_detail_with_alerts(self, client, entity, alert):
        body = client.get(url(entity, "transfers")).json()
        assert body["total"] == 2 and {t["direction"] for t in body["data"]} == {"in"}
        assert client.get(url(entity, "transfers?chain_id=137")).json()["total"] == 0
        assert client.get(url(entity, "transfers?from_date=2026-03-01T10:30:00Z")).json()["total"] == 1
        assert client.get(url(entity, "transfers?from_date=never")).status_code == 422
        transfer_id = body["data"][0]["id"]
        detail = client.get(url(entity, f"transfers/{transfer_id}")).json()
        codes = {a["rule_code"] for a in detail["alerts"]}
        assert str(alert.pk) in [a["id"] for a in detail["alerts"]] and "large_transfer" in codes
        assert next(a for a in detail["alerts"] if a["id"] == str(alert.pk))["transaction_count"] == 2
        assert detail["amount"] in ("12500", "15000")

    def test_unknown_transfer(self, client, entity):
        assert client.get(url(entity, "transfers/00000000-0000-0000-0000-000000000000")).status_code == 404


class TestFiatEvents:
    @pytest.fixture
    def events(self, client, entity):
        sent = [
            {"event_type": "wire_in", "amount": "15000", "event_timestamp": "2026-03-01T10:00:00Z", "counterparty_name": "Acme Corp",
             "reference": "W-1"},
            {"event_type": "card_purchase", "amount": "42.50", "event_timestamp": "2026-03-02T10:00:00Z", "card_type": "debit",
             "merchant_category_code": "5411", "merchant_country": "US"},
            {"event_type": "wire_in", "amount": "900", "currency": "CHF", "event_timestamp": "2026-03-03T10:00:00Z"},
        ]
        answers = [client.post("/v1/monitoring/fiat-events", {"entity_id": entity["id"], **event}, format="json") for event in sent]
        assert all(answer.status_code in (200, 201) for answer in answers), [a.json() for a in answers]
        return [answer.json() for answer in answers]

    def test_list_filters_and_detail_with_alerts(self, client, entity, events):
        body = client.get(url(entity, "fiat-events")).json()
        assert body["total"] == 3 and [e["id"] for e in body["data"]] == [e["id"] for e in reversed(events)]
        card = body["data"][1]
        assert (card["event_type"], card["amount"], card["card_type"], card["merchant_category_code"], card["check_type"]) == (
            "card_purchase", "42.5000", "debit", "5411", None)
        assert card["event_timestamp"] == "2026-03-02T10:00:00Z" and card["monitored"] is True
        wires = client.get(url(entity, "fiat-events?event_type=wire_in")).json()["data"]
        assert [e["id"] for e in wires] == [events[2]["id"], events[0]["id"]]
        assert client.get(url(entity, "fiat-events?to_date=2026-03-01T12:00:00Z")).json()["total"] == 1
        assert client.get(url(entity, "fiat-events?event_type=cash")).status_code == 422

        wire = client.get(url(entity, f"fiat-events/{events[0]['id']}")).json()
        assert wire["reference"] == "W-1" and wire["counterparty_name"] == "Acme Corp"
        assert events[0]["alerts_triggered"] == len(wire["alerts"]) > 0
        stored = Alert.objects.filter(fiat_events__pk=events[0]["id"])
        assert sorted(a["id"] for a in wire["alerts"]) == sorted(str(a.pk) for a in stored)
        unpriced = client.get(url(entity, f"fiat-events/{events[2]['id']}")).json()
        assert unpriced["usd_value"] is None and any("no USD price for CHF" in s["reason"] for s in unpriced["evaluation"]["skipped"])

    def test_other_tenants_and_entities_are_404(self, api, client, org, other_org, key, entity, events):
        assert api(key(other_org)).get(url(entity, "fiat-events")).status_code == 404
        assert api(key(other_org)).get(url(entity, f"fiat-events/{events[0]['id']}")).status_code == 404
        other = client.post("/v1/onboarding/entities", {"legal_name": "Other Ltd", "entity_type": "business", "jurisdiction": "US"},
                            format="json").json()
        response = client.get(url(other, f"fiat-events/{events[0]['id']}"))
        assert response.status_code == 404 and "No fiat event of this entity has this id." in response.json()["error"]["message"]
        assert client.get(url(other, "fiat-events")).json()["total"] == 0


def test_an_events_alerts_are_read_in_a_fixed_number_of_queries(client, entity, alert):
    """A transfer's or fiat event's detail reads its alerts (with their case and transaction count)
    in the same number of queries however many there are."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from monitoring.models import FiatEvent

    event = client.post("/v1/monitoring/fiat-events", {"entity_id": entity["id"], "event_type": "wire_in", "amount": "15000",
                                                        "event_timestamp": "2026-03-01T10:00:00Z"}, format="json").json()
    path = url(entity, f"fiat-events/{event['id']}")

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(path).status_code == 200
        return len(captured)

    before, alerts_before = queries(), len(client.get(path).json()["alerts"])
    FiatEvent.objects.get(pk=event["id"]).alerts.add(*Alert.objects.exclude(fiat_events__pk=event["id"]))
    assert len(client.get(path).json()["alerts"]) > alerts_before
    assert queries() == before


class TestPeriodsAndFormats:
    def test_a_bare_to_date_includes_that_day(self, client, entity, alert):
        # The two transfers are at 2026-03-01T10:00Z and 11:00Z.
        assert client.get(url(entity, "transfers?to_date=2026-03-01")).json()["total"] == 2
        assert client.get(url(entity, "transfers?to_date=2026-02-28")).json()["total"] == 0
        assert client.get(url(entity, "transfers?from_date=2026-03-01&to_date=2026-03-01")).json()["total"] == 2
        assert client.get(url(entity, "transfers?to_date=2026-03-01T10:30:00Z")).json()["total"] == 1
        assert client.get(url(entity, "transfers?from_date=0001-01-01&to_date=9999-12-31")).json()["total"] == 2  # the calendar's ends

    @pytest.mark.parametrize("query, field, message", [
        ("from_date=2026-03-02&to_date=2026-03-01", "to_date", "to_date is before from_date."),
        ("from_date=bad", "from_date", "Give a date (2026-11-01) or an ISO 8601 date-time"),
        ("to_date=2026-02-30", "to_date", "'2026-02-30' is not a day of the calendar"),
    ])
    def test_a_period_that_cannot_be_is_a_422(self, client, entity, query, field, message):
        for path in ("transfers", "fiat-events", "compliance-report"):
            response = client.get(url(entity, f"{path}?{query}"))
            assert response.status_code == 422, path
            details = response.json()["error"]["details"]
            assert details[0]["field"] == field and details[0]["message"].startswith(message), details

    def test_an_event_with_nothing_skipped_reads_an_empty_evaluation(self, client, entity, alert):
        transfer_id = client.get(url(entity, "transfers")).json()["data"][0]["id"]
        assert client.get(url(entity, f"transfers/{transfer_id}")).json()["evaluation"] == {"skipped": []}

    def test_another_format_than_json_is_a_406_not_a_404(self, client, entity):
        response = client.get(url(entity, "alerts?format=xml"))
        assert response.status_code == 406
        error = response.json()["error"]
        assert (error["code"], error["message"]) == ("NOT_ACCEPTABLE", "The API answers JSON only: leave format out or send format=json "
                                                                       "(not 'xml').")
        assert client.get(url(entity, "alerts?format=json")).status_code == 200
