"""POST /v1/monitoring/rules/{rule_id}/backtest: candidate vs current settings on stored history; creates nothing."""

from datetime import UTC, datetime

import pytest

from common.principal import Principal
from monitoring.ingestion.services import transactions_ingest_batch
from monitoring.models import Alert, AlertHit, AssetPrice
from onboarding.models import Entity, Wallet

pytestmark = pytest.mark.django_db
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
    assert body["totals"] == {"candidate": {"alerts": 3, "hits": 3}, "current": {"alerts": 2, "hits": 2}}
    changes = {row["entity_id"]: row["change"] for row in body["entities"]}
    assert changes == {history[0]: "new", history[1]: "unchanged", history[2]: "unchanged"}
    assert not Alert.objects.exists() and not AlertHit.objects.exists()


def test_higher_threshold_removes_one(api, org, key, history):
    body = api(key(org)).post(URL, {"parameters": {"threshold_usd": "20000"}, **RANGE}, format="json").json()
    assert {row["entity_id"]: row["change"] for row in body["entities"]}[history[1]] == "removed"


@pytest.mark.parametrize("body, field", [
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
