"""POST /v1/monitoring/rules/{rule_id}/backtest: candidate vs current settings on stored history; creates nothing."""

from datetime import UTC, datetime

import pytest

from common.principal import Principal
from monitoring.ingestion.services import transactions_ingest_batch
from monitoring.models import Alert, AlertHit, AssetPrice
from onboarding.models import Entity, Wallet
from tests.monitoring.test_configuration_admin import console  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db
NONE_SKIPPED = {"skipped": 0, "skipped_by_reason": {}}
URL = "/v1/monitoring/rules/large_transfer/backtest"
RANGE = {"from_date": "2026-01-01T00:00:00Z", "to_date": "2026-02-01T00:00:00Z"}


@pytest.fixture
def history(org):
    """Three customers with one transfer each: 6,000, 11,000 and 25,000 USD, stored without monitoring."""
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    ids = []
    for i in range(3):
        entity = Entity.objects.create(organization=org, mode="test", legal_name=f"C{i}", entity_type="business", jurisdiction="US")
        Wallet.objects.create(organization=org, mode="test", entity=entity, chain_id=1, address=f"0x{i + 1:040x}")
        ids.append(str(entity.pk))
    items = [{"chain_id": 1, "from_address": f"0x{i + 1:040x}", "to_address": f"0x{999:040x}", "amount": amount, "asset": "USDC",
              "timestamp": datetime(2026, 1, 10 + i, 12, tzinfo=UTC), "tx_hash": f"0x{i}", "log_index": 0}
             for i, amount in enumerate(["6000", "11000", "25000"])]
    transactions_ingest_batch(principal=Principal.system(org, "test"), items=items, run_monitoring=False)
    return ids


def test_lower_threshold_adds_an_entity_and_creates_nothing(api, org, key, history):
    response = api(key(org)).post(URL, {"parameters": {"threshold_usd": "5000"}, **RANGE}, format="json")
    body = response.json()
    assert response.status_code == 200, body
    assert body["events_replayed"] == 3 and body["parameters"]["candidate"]["threshold_usd"] == "5000"
    assert body["totals"] == {"candidate": {"alerts": 3, "hits": 3, **NONE_SKIPPED}, "current": {"alerts": 2, "hits": 2, **NONE_SKIPPED}}
    changes = {row["entity_id"]: row["change"] for row in body["entities"]}
    assert changes == {history[0]: "new", history[1]: "unchanged", history[2]: "unchanged"}
    assert not Alert.objects.exists() and not AlertHit.objects.exists()


def test_higher_threshold_removes_one(api, org, key, history):
    body = api(key(org)).post(URL, {"parameters": {"threshold_usd": "20000"}, **RANGE}, format="json").json()
    assert {row["entity_id"]: row["change"] for row in body["entities"]}[history[1]] == "removed"


def test_a_bare_to_date_includes_that_whole_day_as_in_the_console(api, org, key, history):
    """The last customer's transfer is at 2026-01-12 12:00: a range ending on the bare date 2026-01-12 replays it."""
    response = api(key(org)).post(URL, {"from_date": "2026-01-11", "to_date": "2026-01-12"}, format="json")
    body = response.json()
    assert response.status_code == 200, body
    assert (body["from_date"], body["to_date"]) == ("2026-01-11T00:00:00Z", "2026-01-12T23:59:59.999999Z")
    assert body["events_replayed"] == 2 and body["totals"]["current"] == {"alerts": 2, "hits": 2, **NONE_SKIPPED}
    one_day = api(key(org)).post(URL, {"from_date": "2026-01-12", "to_date": "2026-01-12"}, format="json").json()
    assert one_day["events_replayed"] == 1 and [row["entity_id"] for row in one_day["entities"]] == [history[2]]
    assert not Alert.objects.exists()


@pytest.mark.parametrize("body, field", [
    ({"from_date": "2026-02-30", "to_date": "2026-03-01"}, "from_date"),
    ({"from_date": "yesterday", "to_date": "2026-03-01"}, "from_date"),
    ({"parameters": {"threshold_usd": "-1"}, **RANGE}, "parameters.threshold_usd"),
    ({"parameters": {"nonsense": 1}, **RANGE}, "parameters.nonsense"),
    ({"from_date": "2026-02-01T00:00:00Z", "to_date": "2026-01-01T00:00:00Z"}, "to_date"),
    ({"from_date": "2024-01-01T00:00:00Z", "to_date": "2026-01-01T00:00:00Z"}, "to_date"),
    ({"parameters": {}}, "from_date"),
])
def test_bad_input(api, org, key, history, body, field):
    response = api(key(org)).post(URL, body, format="json")
    assert response.status_code == 422 and field in {d["field"] for d in response.json()["error"]["details"]}


def test_roles_and_unknown_rule(api, org, key, history):
    assert api(key(org, role="l3_officer")).post(URL, RANGE, format="json").status_code == 403
    assert api(key(org)).post("/v1/monitoring/rules/no_such_rule/backtest", RANGE, format="json").status_code == 404


class TestConsole:
    """The rule page's "Backtest these parameters": the same service, the form's parameters as the
    candidate (saved or not), a mode and whole days; nothing saved or created."""

    PAGE = {"backtest-mode": "test", "backtest-from_date": "2026-01-01", "backtest-to_date": "2026-01-31", "_backtest": "1",
            "enabled": "on", "severity": ""}

    def page(self, org):
        from django.urls import reverse

        return reverse("admin:monitoring_rulesetting_rule", args=[org.pk, "large_transfer"])

    def test_candidate_parameters_are_compared_and_nothing_is_saved(self, console, org, history):  # noqa: F811
        from monitoring.models import RuleSetting

        response = console.post(self.page(org), {**self.PAGE, "param_threshold_usd": "5000"})
        assert response.status_code == 200
        report = response.context["report"]
        assert report["totals"] == {"candidate": {"alerts": 3, "hits": 3, **NONE_SKIPPED},
                                    "current": {"alerts": 2, "hits": 2, **NONE_SKIPPED}}
        rows = [(row["legal_name"], row["change"]) for row in report["rows"]]
        assert rows[0] == ("C0", "new") and sorted(rows[1:]) == [("C1", "unchanged"), ("C2", "unchanged")]
        page = response.content.decode()
        assert "3 events replayed from 2026-01-01 to 2026-01-31" in page and "threshold_usd=5000" in page
        assert not RuleSetting.objects.exists() and not Alert.objects.exists() and not AlertHit.objects.exists()

    def test_a_sweep_shows_every_combination_and_the_best(self, console, org, history):  # noqa: F811
        response = console.post(self.page(org), {**self.PAGE, "backtest-grid": "threshold_usd = 5000, 20000\n",
                                                 "backtest-maximise": "recall"})
        rows = response.context["report"]["sweep"]["combinations"]
        assert [row["parameters"]["threshold_usd"] for row in rows] == ["5000", "20000"]
        assert [row["metrics"]["flagged_entities"] for row in rows] == [3, 1]
        page = response.content.decode()
        assert "Sweep: maximise recall" in page and 'id="sweep"' in page and 'id="backtest-metrics"' in page
        response = console.post(self.page(org), {**self.PAGE, "backtest-grid": "threshold_usd 5000"})
        assert response.context["report"] is None and "grid" in response.context["backtest"].errors
        response = console.post(self.page(org), {**self.PAGE, "backtest-grid": "threshold_usd = -5"})
        assert response.context["report"] is None and "grid" in response.context["backtest"].errors

    def test_live_mode_has_no_history_here(self, console, org, history):  # noqa: F811
        response = console.post(self.page(org), {**self.PAGE, "backtest-mode": "live", "param_threshold_usd": "5000"})
        assert response.context["report"]["events_replayed"] == 0
        assert "Neither setting would have raised an alert in this range." in response.content.decode()

    def test_bad_parameters_and_range_are_shown_on_the_form(self, console, org, history):  # noqa: F811
        response = console.post(self.page(org), {**self.PAGE, "param_threshold_usd": "-1"})
        assert response.context["report"] is None and "param_threshold_usd" in response.context["form"].errors
        response = console.post(self.page(org), {**self.PAGE, "backtest-from_date": "2026-02-01"})
        assert response.context["report"] is None and "to_date" in response.context["backtest"].errors
        response = console.post(self.page(org), {**self.PAGE, "backtest-to_date": "not a date"})
        assert response.context["report"] is None and "to_date" in response.context["backtest"].errors

    def test_the_page_offers_it(self, console, org):  # noqa: F811
        page = console.get(self.page(org)).content.decode()
        assert 'name="_backtest"' in page and 'name="backtest-from_date"' in page and 'type="date"' in page
        assert console.get(self.page(org)).context["backtest"]["mode"].value() == "live"  # nothing stored yet: live

    def test_it_starts_on_the_mode_that_has_history(self, console, org, history):  # noqa: F811
        """Only test-mode transfers stored (an organization trying the service): the form starts on test;
        once live ones are stored, on live."""
        from monitoring.models import Transaction

        assert console.get(self.page(org)).context["backtest"]["mode"].value() == "test"
        stored = Transaction.objects.filter(organization=org).first()
        Transaction.objects.filter(pk=stored.pk).update(mode="live")
        assert console.get(self.page(org)).context["backtest"]["mode"].value() == "live"


def test_current_is_the_stored_parameters_and_candidate_starts_from_them(api, org, key, history):
    """With large_transfer saved at 20,000 (and disabled), the current side is 20,000 (it was the
    defaults, 10,000: an unchanged form showed a difference) and an empty candidate is the same."""
    client = api(key(org))
    saved = client.patch("/v1/monitoring/rules/large_transfer", {"enabled": False, "parameters": {"threshold_usd": "20000"}},
                         format="json")
    assert saved.status_code == 200, saved.json()
    body = client.post(URL, {"parameters": {}, **RANGE}, format="json").json()
    assert body["parameters"] == {"candidate": {"threshold_usd": "20000"}, "current": {"threshold_usd": "20000"}}
    assert body["totals"] == {"candidate": {"alerts": 1, "hits": 1, **NONE_SKIPPED}, "current": {"alerts": 1, "hits": 1, **NONE_SKIPPED}}
    assert [row["change"] for row in body["entities"]] == ["unchanged"] and body["entities"][0]["entity_id"] == history[2]


def test_skipped_evaluations_are_counted_by_kind(api, org, key, history):
    """Two transfers of an asset with no USD price: large_transfer cannot judge them, and says why, once per kind."""
    items = [{"chain_id": 1, "from_address": f"0x{1:040x}", "to_address": f"0x{998:040x}", "amount": amount, "asset": "NOPRICE",
              "timestamp": datetime(2026, 1, 20, 12, n, tzinfo=UTC), "tx_hash": f"0xa{n}", "log_index": 0}
             for n, amount in enumerate(["7", "70000"])]
    transactions_ingest_batch(principal=Principal.system(org, "test"), items=items, run_monitoring=False)
    body = api(key(org)).post(URL, RANGE, format="json").json()
    assert body["events_replayed"] == 5
    assert body["totals"]["current"] == {"alerts": 2, "hits": 2, "skipped": 2, "skipped_by_reason": {"no USD price for NOPRICE": 2}}
    assert not Alert.objects.exists()
