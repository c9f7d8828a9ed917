# ruff: noqa: F811  (the tests take the imported fixtures client and entity by name)
"""/v1/monitoring/transfers, /transfers/batch, /fiat-events: validation, idempotency, monitoring."""

import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from monitoring.amounts import USD_VALUE_MAX
from monitoring.models import Alert, AlertHit, FiatEvent, Transaction
from tests.monitoring.api_fixtures import EVM, OTHER, client, entity  # noqa: F401  (fixtures, used by name)
from webhooks.models import Event

pytestmark = pytest.mark.django_db
BIG = "115792089237316195423570985008687907853269984665640564039457584007913129639935"  # 2**256 - 1
FUTURE = "The time is in the future (more than 1 day ahead of the server's clock)."
EARLY = "The time is before 1970-01-01T00:00:00Z; send when the event happened."


def ahead(**delta) -> str:
    return (timezone.now() + timedelta(**delta)).isoformat().replace("+00:00", "Z")


def transfer(**overrides):
    return {"from_address": OTHER, "to_address": EVM, "amount": "12500", "asset": "USDC", "chain_id": 1,
            "timestamp": "2026-03-01T10:00:00Z", "tx_hash": "0xabc", **overrides}


class TestSingle:
    def test_the_description_states_the_parameters_in_force(self, api, org, key, client, entity):
        """Default parameters: the rule's words as they are; an override: said, not a default threshold quoted as if it applied."""
        client.post("/v1/monitoring/transfers", transfer(), format="json")
        assert Alert.objects.get(rule_code="large_transfer").description == (
            "Large transfer: one transfer ≥ 10,000 USD (measured: usd_value 12500.00).")
        assert api(key(org)).patch("/v1/monitoring/rules/large_transfer", {"parameters": {"threshold_usd": "11000"}},
                                   format="json").status_code == 200
        Alert.objects.all().delete()
        client.post("/v1/monitoring/transfers", transfer(tx_hash="0xdef"), format="json")
        assert Alert.objects.get(rule_code="large_transfer").description == (
            "Large transfer: one transfer ≥ 10,000 USD by default; here threshold_usd 11000 (measured: usd_value 12500.00).")

    def test_large_transfer_opens_an_alert_with_event_and_notification(self, client, entity):
        response = client.post("/v1/monitoring/transfers", transfer(), format="json")
        body = response.json()
        assert response.status_code == 200, body
        assert body["monitored"] is True and body["alerts_triggered"] >= 1 and body["duplicate"] is False
        stored = Transaction.objects.get(pk=body["id"])
        assert (str(stored.to_entity_id), stored.from_entity_id, str(stored.usd_value)) == (entity["id"], None, "12500.00")
        alert = Alert.objects.get(rule_code="large_transfer")
        assert str(alert.entity_id) == entity["id"] and alert.status == "open" and alert.severity == "medium"
        assert [str(t) for t in alert.transactions.values_list("pk", flat=True)] == [body["id"]]
        assert alert.evidence["parameters"]["threshold_usd"] == "10000"
        event = Event.objects.get(type="alert.created", data__alert_id=str(alert.pk))
        assert set(event.data) == {"alert_id", "entity_id", "rule_id", "rule_name", "severity", "description",
                                   "transaction_ids", "created_at"}

    def test_repeat_returns_the_stored_record_unevaluated(self, client, entity):
        first = client.post("/v1/monitoring/transfers", transfer(), format="json").json()
        again = client.post("/v1/monitoring/transfers", transfer(amount="99"), format="json")
        assert again.status_code == 200
        assert again.json()["id"] == first["id"] and again.json()["duplicate"] is True and again.json()["alerts_triggered"] == 0
        assert Transaction.objects.count() == 1 and AlertHit.objects.filter(alert__rule_code="large_transfer").count() == 1

    def test_uint256_amount_round_trips_exactly(self, client, entity):
        body = client.post("/v1/monitoring/transfers", transfer(amount="000" + BIG, asset="WEI"), format="json").json()
        assert Transaction.objects.get(pk=body["id"]).amount == BIG
        assert client.post("/v1/monitoring/transfers", transfer(amount=str(2**256), tx_hash="0x2"), format="json").status_code == 422

    @pytest.mark.parametrize("amount, message", [
        (str(2**256), "The amount exceeds the largest uint256 value."),
        ("1" + "0" * 78, "The amount exceeds the largest uint256 value."),  # 79 digits
        ("9" * 200, "The amount exceeds the largest uint256 value."),
        ("1." + "1" * 37, "An amount has at most 36 decimal places."),
        ("-5", 'An amount is a non-negative decimal string such as "1500.25" (no sign, exponent or separators).'),
        ("0" * 50_000 + "x", 'An amount is a non-negative decimal string such as "1500.25" (no sign, exponent or separators).'),
        ("1e5", 'An amount is a non-negative decimal string such as "1500.25" (no sign, exponent or separators).'),
    ])
    def test_an_amount_out_of_range_says_which_limit_it_passes(self, client, entity, amount, message):
        for path, body in (("/v1/monitoring/transfers", transfer(amount=amount)),
                           ("/v1/monitoring/transfers/batch", {"transactions": [transfer(amount=amount)]})):
            response = client.post(path, body, format="json")
            assert response.status_code == 422
            field = "amount" if path.endswith("transfers") else "transactions.0.amount"
            assert response.json()["error"]["details"] == [{"field": field, "message": message}]
        assert not Transaction.objects.exists()

    def test_reading_a_long_bad_amount_takes_time_in_proportion_to_its_length(self):
        """An amount is matched one way only: "0*(\\d+)" took 47 s over 50,000 zeros and a letter
        (it tried every split of the zeros), a worker held for hours by a 10 MB body."""
        import time

        from monitoring.amounts import AmountError, canonical_amount

        started = time.perf_counter()
        for text in ("0" * 50_000 + "x", "0" * 50_000 + "." + "0" * 50_000 + "x", "1" * 50_000):
            with pytest.raises(AmountError):
                canonical_amount(text)
        assert time.perf_counter() - started < 1.0
        assert canonical_amount("0" * 50_000 + "1500.2500") == "1500.25"

    def test_the_longest_amount_of_a_priced_asset_is_stored_and_read_back(self, client, entity):
        """uint256 with 36 decimals is 115 characters (the column held 100: a 500 on PostgreSQL), and
        its USD value is clamped to what the column holds, read back exactly on SQLite too."""
        longest = BIG + "." + "9" * 36
        response = client.post("/v1/monitoring/transfers", transfer(amount=longest, asset="USDC"), format="json")
        assert response.status_code == 200, response.json()
        stored = Transaction.objects.get(pk=response.json()["id"])
        assert stored.amount == longest and len(longest) == 115
        assert stored.usd_value == USD_VALUE_MAX
        listed = client.get(f"/v1/onboarding/entities/{entity['id']}/transfers")
        assert listed.status_code == 200, listed.json()
        assert [row["amount"] for row in listed.json()["data"]] == [longest]
        detail = client.get(f"/v1/onboarding/entities/{entity['id']}/transfers/{stored.pk}")
        assert detail.status_code == 200 and detail.json()["amount"] == longest, detail.json()

    def test_run_monitoring_false_only_stores(self, client, entity):
        body = client.post("/v1/monitoring/transfers", transfer(run_monitoring=False), format="json").json()
        assert body["monitored"] is False and body["alerts_triggered"] == 0 and not Alert.objects.exists()

    def test_all_upper_case_evm_address_is_accepted_and_stored_lower_case(self, client, entity):
        body = client.post("/v1/monitoring/transfers", transfer(from_address=OTHER.upper().replace("0X", "0x")), format="json").json()
        assert Transaction.objects.get(pk=body["id"]).from_address == OTHER

    def test_generated_hash_is_stable(self, client, entity):
        item = transfer()
        del item["tx_hash"]
        first = client.post("/v1/monitoring/transfers", item, format="json").json()
        second = client.post("/v1/monitoring/transfers", item, format="json").json()
        assert first["tx_hash"].startswith("gen_") and first["id"] == second["id"]

    @pytest.mark.parametrize("change, field", [
        ({"amount": "-5"}, "amount"), ({"amount": "1e5"}, "amount"), ({"amount": 12.5}, "amount"),
        ({"from_address": "0x12"}, "from_address"), ({"to_address": EVM.upper().replace("0X", "0x")[:-1] + "e"}, "to_address"),
        ({"timestamp": "yesterday"}, "timestamp"), ({"chain_id": -1}, "chain_id"),
        ({"entity_id": "00000000-0000-0000-0000-000000000000"}, "entity_id"), ({"colour": "red"}, "colour"),
    ])
    def test_bad_input_stores_nothing(self, client, entity, change, field):
        response = client.post("/v1/monitoring/transfers", transfer(**change), format="json")
        assert response.status_code == 422, response.json()
        assert field in {d["field"] for d in response.json()["error"]["details"]}
        assert not Transaction.objects.exists()

    def test_every_mistake_is_named_in_one_answer(self, client, entity):
        """A bad amount and a bad address together: both fields (the address was named only once the
        amount was fixed), also in a batch item."""
        response = client.post("/v1/monitoring/transfers", transfer(amount="-5", from_address="0xnope"), format="json")
        assert response.status_code == 422
        assert {d["field"] for d in response.json()["error"]["details"]} == {"amount", "from_address"}
        batch = client.post("/v1/monitoring/transfers/batch", {"transactions": [transfer(amount="-5", from_address="0xnope")]},
                            format="json")
        assert {d["field"] for d in batch.json()["error"]["details"]} == {"transactions.0.amount", "transactions.0.from_address"}
        assert not Transaction.objects.exists()

    def test_a_far_future_timestamp_is_refused_naming_the_field(self, client, entity):
        response = client.post("/v1/monitoring/transfers", transfer(timestamp="2099-01-01T00:00:00Z"), format="json")
        assert response.status_code == 422
        assert response.json()["error"] == {"code": "VALIDATION_ERROR", "message": f"timestamp: {FUTURE}",
                                            "details": [{"field": "timestamp", "message": FUTURE}]}
        assert client.post("/v1/monitoring/transfers", transfer(timestamp=ahead(days=1, minutes=5)), format="json").status_code == 422
        assert not Transaction.objects.exists()

    @pytest.mark.parametrize("moment", ["0001-01-01T00:00:00Z", "0001-01-02T00:00:00Z", "1969-12-31T23:59:59Z"])
    def test_a_timestamp_before_1970_is_refused_naming_the_field_not_a_500(self, client, entity, moment):
        """The rules' windows reach back from each event: from year 1 they would start before any date (a 500 before)."""
        for run_monitoring in (True, False):
            response = client.post("/v1/monitoring/transfers", transfer(timestamp=moment, run_monitoring=run_monitoring), format="json")
            assert response.status_code == 422
            assert response.json()["error"]["details"] == [{"field": "timestamp", "message": EARLY}]
        response = client.post("/v1/monitoring/transfers/batch", {"transactions": [transfer(tx_hash="0x1"), transfer(
            tx_hash="0x2", timestamp=moment)]}, format="json")
        assert response.status_code == 422
        assert response.json()["error"]["details"] == [{"field": "transactions.1.timestamp", "message": EARLY}]
        response = client.post("/v1/monitoring/fiat-events", {"entity_id": entity["id"], "event_type": "wire_in", "amount": "15000",
                                                              "event_timestamp": moment}, format="json")
        assert response.status_code == 422
        assert response.json()["error"]["details"] == [{"field": "event_timestamp", "message": EARLY}]
        assert not Transaction.objects.exists() and not FiatEvent.objects.exists() and not Alert.objects.exists()

    @pytest.mark.parametrize("value", ["yes", "false", 0, 1, None])
    def test_run_monitoring_is_json_true_or_false_only(self, client, entity, value):
        """DRF's BooleanField took "yes" and "false": a switch that stops monitoring is not guessed from text."""
        expected = [{"field": "run_monitoring", "message": "This field may not be null." if value is None else "Must be a valid boolean."}]
        response = client.post("/v1/monitoring/transfers", transfer(run_monitoring=value), format="json")
        assert response.status_code == 422 and response.json()["error"]["details"] == expected
        response = client.post("/v1/monitoring/transfers/batch", {"transactions": [transfer()], "run_monitoring": value}, format="json")
        assert response.status_code == 422 and response.json()["error"]["details"] == expected
        response = client.post("/v1/monitoring/fiat-events", {"entity_id": entity["id"], "event_type": "wire_in", "amount": "15000",
                                                              "event_timestamp": "2026-03-02T15:00:00Z", "run_monitoring": value},
                               format="json")
        assert response.status_code == 422 and response.json()["error"]["details"] == expected
        assert not Transaction.objects.exists() and not FiatEvent.objects.exists()

    def test_the_first_moment_of_1970_is_taken(self, client, entity):
        response = client.post("/v1/monitoring/transfers", transfer(timestamp="1970-01-01T00:00:00Z"), format="json")
        assert response.status_code == 200, response.json()
        assert Transaction.objects.get().timestamp.year == 1970

    def test_a_timestamp_within_a_day_ahead_is_clock_skew(self, client, entity):
        response = client.post("/v1/monitoring/transfers", transfer(timestamp=ahead(hours=23)), format="json")
        assert response.status_code == 200, response.json()
        assert Transaction.objects.get().timestamp > timezone.now()

    def test_roles_and_tenancy(self, api, org, other_org, key, entity):
        assert api().post("/v1/monitoring/transfers", transfer(), format="json").status_code == 401
        assert api(key(org, role="viewer")).post("/v1/monitoring/transfers", transfer(), format="json").status_code == 403
        foreign = api(key(other_org, role="admin")).post("/v1/monitoring/transfers", transfer(entity_id=entity["id"]), format="json")
        assert foreign.status_code == 422 and not Transaction.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_concurrent_identical_posts_store_one_record(live_server, org, key):
    import requests

    secret = key(org, role="admin")
    item = transfer(tx_hash="0xrace")

    def post(_):
        return requests.post(live_server.url + "/v1/monitoring/transfers", json=item,
                             headers={"Authorization": f"Bearer {secret}"}, timeout=60).json()["id"]

    with ThreadPoolExecutor(max_workers=8) as pool:
        ids = list(pool.map(post, range(8)))
    assert len(set(ids)) == 1 and Transaction.objects.count() == 1


class TestBatch:
    def test_counts_duplicates_within_and_against_storage(self, client, entity):
        client.post("/v1/monitoring/transfers", transfer(tx_hash="0x1"), format="json")
        items = [transfer(tx_hash="0x1"), transfer(tx_hash="0x2"), transfer(tx_hash="0x2"), transfer(tx_hash="0x3", amount="5")]
        body = client.post("/v1/monitoring/transfers/batch", {"transactions": items}, format="json").json()
        assert (body["ingested"], body["skipped"]) == (2, 2)
        assert Transaction.objects.count() == 3 and Transaction.objects.filter(monitored=True).count() == 3
        assert Alert.objects.get(rule_code="large_transfer").hit_count == 2

    def test_over_1000_is_422(self, client, entity):
        items = [transfer(tx_hash=f"0x{i:x}") for i in range(1001)]
        response = client.post("/v1/monitoring/transfers/batch", {"transactions": items}, format="json")
        assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "transactions"
        assert not Transaction.objects.exists()

    def test_one_bad_item_refuses_the_batch_naming_it(self, client, entity):
        items = [transfer(tx_hash="0x1"), transfer(tx_hash="0x2", amount="abc")]
        response = client.post("/v1/monitoring/transfers/batch", {"transactions": items}, format="json")
        assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "transactions.1.amount"
        assert not Transaction.objects.exists()

    def test_a_far_future_item_refuses_the_batch_naming_it(self, client, entity):
        items = [transfer(tx_hash="0x1"), transfer(tx_hash="0x2", timestamp="2099-06-30T12:00:00Z")]
        response = client.post("/v1/monitoring/transfers/batch", {"transactions": items}, format="json")
        assert response.status_code == 422
        assert response.json()["error"]["details"] == [{"field": "transactions.1.timestamp", "message": FUTURE}]
        assert not Transaction.objects.exists()

    def test_run_monitoring_false(self, client, entity):
        body = client.post("/v1/monitoring/transfers/batch", {"transactions": [transfer()], "run_monitoring": False},
                           format="json").json()
        assert body == {"ingested": 1, "skipped": 0, "alerts_triggered": 0}
        assert Transaction.objects.get().monitored is False


class TestFiat:
    def event(self, entity, **overrides):
        return {"entity_id": entity["id"], "event_type": "wire_in", "amount": "15000.00", "currency": "USD",
                "counterparty_name": "ACME Corp", "event_timestamp": "2026-03-02T15:00:00Z", "reference": "W-1", **overrides}

    def test_large_wire_alerts_and_reference_is_idempotent(self, client, entity):
        body = client.post("/v1/monitoring/fiat-events", self.event(entity), format="json").json()
        assert body["event_type"] == "wire_in" and body["monitored"] is True and body["alerts_triggered"] >= 1
        assert Alert.objects.filter(rule_code="large_fiat_transaction", entity_id=entity["id"]).exists()
        again = client.post("/v1/monitoring/fiat-events", self.event(entity), format="json").json()
        assert again["id"] == body["id"] and again["duplicate"] is True and FiatEvent.objects.count() == 1

    def test_a_reference_identifies_an_event_per_customer(self, client, entity):
        """Two customers' banks may use the same reference: both events are stored (the second was
        answered as the first customer's duplicate and lost)."""
        other = client.post("/v1/onboarding/entities", {"legal_name": "Other Co", "entity_type": "business", "jurisdiction": "US"},
                            format="json").json()
        first = client.post("/v1/monitoring/fiat-events", self.event(entity), format="json").json()
        second = client.post("/v1/monitoring/fiat-events", self.event(other, amount="99.00"), format="json").json()
        assert second["duplicate"] is False and second["entity_id"] == other["id"] and second["id"] != first["id"]
        assert sorted(FiatEvent.objects.values_list("entity_id", "amount")) == sorted(
            [(uuid.UUID(entity["id"]), Decimal("15000")), (uuid.UUID(other["id"]), Decimal("99"))])

    def test_a_reused_reference_with_other_content_is_a_409(self, client, entity):
        first = client.post("/v1/monitoring/fiat-events", self.event(entity), format="json").json()
        response = client.post("/v1/monitoring/fiat-events", self.event(entity, amount="99.00"), format="json")
        assert response.status_code == 409 and response.json()["error"]["code"] == "CONFLICT"
        assert "reference 'W-1'" in response.json()["error"]["message"] and "amount differ" in response.json()["error"]["message"]
        assert list(FiatEvent.objects.values_list("id", "amount")) == [(uuid.UUID(first["id"]), Decimal("15000"))]
        same = client.post("/v1/monitoring/fiat-events", self.event(entity, amount="15000"), format="json").json()
        assert same["id"] == first["id"] and same["duplicate"] is True  # the same amount written otherwise

    @pytest.mark.parametrize("amount, message", [
        ("\uff11\uff12\uff13", 'An amount is a non-negative decimal string such as "1500.25" (no sign, exponent or separators).'),
        ("1e5", 'An amount is a non-negative decimal string such as "1500.25" (no sign, exponent or separators).'),
        (100000.0, 'An amount is a decimal string such as "1500.25".'),
    ])
    def test_fiat_and_transfer_amounts_share_one_grammar(self, client, entity, amount, message):
        """Full-width digits, an exponent and a JSON float were taken as fiat amounts while transfers refused them."""
        fiat = client.post("/v1/monitoring/fiat-events", self.event(entity, amount=amount), format="json")
        sent = client.post("/v1/monitoring/transfers", transfer(amount=amount), format="json")
        for response in (fiat, sent):
            assert response.status_code == 422
            assert response.json()["error"] == {"code": "VALIDATION_ERROR", "message": f"amount: {message}",
                                                "details": [{"field": "amount", "message": message}]}
        assert not FiatEvent.objects.exists() and not Transaction.objects.exists() and not Alert.objects.exists()

    @pytest.mark.parametrize("amount, stored", [("15000", Decimal("15000")), (15000, Decimal("15000")),
                                                ("0015000.1200", Decimal("15000.12"))])
    def test_a_fiat_amount_as_a_string_or_an_integer(self, client, entity, amount, stored):
        assert client.post("/v1/monitoring/fiat-events", self.event(entity, amount=amount), format="json").status_code == 200
        assert FiatEvent.objects.get().amount == stored

    @pytest.mark.parametrize("amount, message", [
        ("1.00001", "A fiat amount has at most 4 decimal places."),
        ("1" * 21, "A fiat amount has at most 20 digits before the decimal point."),
    ])
    def test_a_fiat_amount_within_the_column(self, client, entity, amount, message):
        response = client.post("/v1/monitoring/fiat-events", self.event(entity, amount=amount), format="json")
        assert response.status_code == 422 and response.json()["error"]["details"] == [{"field": "amount", "message": message}]
        assert not FiatEvent.objects.exists()

    @pytest.mark.parametrize("change, field", [
        ({"event_type": "cash_in"}, "event_type"), ({"currency": "XYZ"}, "currency"), ({"amount": "-1"}, "amount"),
        ({"card_type": "debit"}, "card_type"), ({"event_type": "card_purchase", "merchant_category_code": "12"}, "merchant_category_code"),
        ({"deposit_method": "atm"}, "deposit_method"), ({"entity_id": None}, "entity_id"),
        ({"event_timestamp": "2099-01-01T00:00:00Z"}, "event_timestamp"),
    ])
    def test_bad_input(self, client, entity, change, field):
        response = client.post("/v1/monitoring/fiat-events", self.event(entity, **change), format="json")
        assert response.status_code == 422 and field in {d["field"] for d in response.json()["error"]["details"]}
        assert not FiatEvent.objects.exists()
