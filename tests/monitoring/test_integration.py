"""Monitoring feeds onboarding: search over alerts and transfers, alerts in the activity feed and
the compliance report, related entities through shared counterparties, peer statistics, and the
alert-history risk factor."""

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from monitoring import risk_feed
from monitoring.models import Alert, AssetPrice
from onboarding.models import Entity

pytestmark = pytest.mark.django_db
SHARED = "0x00000000000000000000000000000000000c0ffe"


@pytest.fixture
def client(api, org, key):
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    return api(key(org))


def onboard(client, name, wallet, **extra):
    response = client.post("/v1/onboarding/entities", {"legal_name": name, "entity_type": "business", "jurisdiction": "US",
                                                        "industry": "software", "wallets": [{"chain_id": 1, "address": wallet}],
                                                        **extra}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def send(client, sender, receiver, amount, tx_hash):
    yesterday = (timezone.now() - timedelta(days=1)).isoformat()  # inside the 30-day behaviour window
    response = client.post("/v1/monitoring/transfers", {"from_address": sender, "to_address": receiver, "amount": amount,
                                                        "asset": "USDC", "chain_id": 1, "tx_hash": tx_hash,
                                                        "timestamp": yesterday}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


@pytest.fixture
def world(client):
    alpha = onboard(client, "Alpha Payments", f"0x{1:040x}", expected_monthly_volume_usd="1000")
    beta = onboard(client, "Beta Payments", f"0x{2:040x}")
    send(client, f"0x{1:040x}", SHARED, "25000", "0xaaa1")
    send(client, f"0x{2:040x}", SHARED, "300", "0xbbb1")
    return alpha, beta


def test_search_finds_alerts_and_transfers(client, world):
    results = client.get("/v1/onboarding/search?q=large_transfer").json()
    found = results["results"] if isinstance(results, dict) and "results" in results else results
    text = str(found)
    assert "alert" in text and "Large transfer" in text
    by_hash = str(client.get("/v1/onboarding/search?q=0xaaa1").json())
    assert "transfer" in by_hash and "25000" in by_hash


def test_activity_and_report_include_alerts(client, world):
    alpha, _ = world
    activity = str(client.get(f"/v1/onboarding/entities/{alpha['id']}/activity").json())
    assert "alert.created" in activity and "Large transfer" in activity
    report = client.get(f"/v1/onboarding/entities/{alpha['id']}/compliance-report")
    rows = list(csv.reader(io.StringIO(report.content.decode("utf-8-sig"))))
    assert any("large_transfer" in cell for row in rows for cell in row)


def test_related_entities_through_a_shared_counterparty(client, world):
    alpha, beta = world
    related = str(client.get(f"/v1/onboarding/entities/{alpha['id']}/related").json())
    assert beta["id"] in related and "counterpart" in related.lower()


def test_alert_history_feeds_the_risk_score(client, world):
    alpha, beta = world
    entity = Entity.objects.get(pk=alpha["id"])
    before = entity.risk_score
    risk_feed.recompute([alpha["id"]], reason="alerts opened")
    entity.refresh_from_db()
    history = next(f for f in entity.risk_factors if f["name"] == "alert_history")
    assert history["contribution"] > 0 and "open" in history["detail"].lower()
    behaviour = next(f for f in entity.risk_factors if f["name"] == "behaviour")
    assert "declared" in behaviour["detail"] and behaviour["contribution"] > 0
    assert entity.risk_score > before
    assert Alert.objects.filter(entity_id=alpha["id"]).exists()


def test_grouped_risk_inputs_give_the_same_factors(client, world):
    """risk_feed.recompute gathers the alert-history and behaviour inputs of all its entities at
    once; each factor comes out as it does gathered entity by entity."""
    from monitoring.integration import _alert_inputs, _statistics, alert_history, behaviour

    alpha, beta = world
    gamma = onboard(client, "Gamma Quiet", f"0x{3:040x}")  # no activity, no alerts
    alert = Alert.objects.filter(entity_id=alpha["id"]).first()
    Alert.objects.filter(pk=alert.pk).update(status="closed", disposition="true_positive", disposed_at=timezone.now())
    send(client, f"0x{1:040x}", SHARED, "26000", "0xaaa2")  # opens the large-transfer alert again
    entities = list(Entity.objects.filter(pk__in=[alpha["id"], beta["id"], gamma["id"]]))
    one_by_one = {entity.pk: (alert_history(entity, _alert_inputs([entity.pk])), behaviour(entity, _statistics([entity.pk])))
                  for entity in entities}
    ids = [entity.pk for entity in entities]
    alerts, statistics = _alert_inputs(ids), _statistics(ids)
    grouped = {entity.pk: (alert_history(entity, alerts), behaviour(entity, statistics)) for entity in entities}
    assert grouped == one_by_one
    alpha_history = one_by_one[next(e.pk for e in entities if str(e.pk) == alpha["id"])][0]
    assert "open" in alpha_history.detail and "confirmed" in alpha_history.detail


def test_the_risk_task_runs_again_after_a_database_error(monkeypatch):
    """The batch's recomputation is one transaction: a deadlock victim or a lost connection fails
    all of it, and the task (idempotent) runs again rather than leaving the scores behind."""
    from django.db import OperationalError

    from monitoring import risk_feed, tasks

    calls = []

    def recompute(entity_ids, *, reason):
        calls.append((entity_ids, reason))
        if len(calls) == 1:
            raise OperationalError("deadlock detected")

    monkeypatch.setattr(risk_feed, "recompute", recompute)
    result = tasks.recompute_entity_risk.apply(args=[["e1", "e2"], "alerts opened"], throw=False)  # as a worker runs it
    assert result.successful() and calls == [(["e1", "e2"], "alerts opened")] * 2


@pytest.mark.parametrize(("disposition", "floor"), [("true_positive", 25), ("false_positive", None)])
def test_a_confirmed_finding_sets_the_tier_of_its_severity(client, disposition, floor):
    """A true positive of a medium alert (rule 1) puts a customer the other factors rate low at
    medium risk; a false positive leaves it low."""
    gamma = onboard(client, "Gamma Trading", f"0x{3:040x}", expected_monthly_volume_usd="1000000")
    send(client, f"0x{3:040x}", SHARED, "25000", "0xccc1")
    alert = Alert.objects.get(entity_id=gamma["id"], rule_code="large_transfer")
    assert alert.severity == "medium"
    response = client.post(f"/v1/onboarding/entities/{gamma['id']}/alerts/{alert.pk}/disposition",
                           {"disposition": disposition, "notes": "reviewed"}, format="json")
    assert response.status_code == 200, response.json()
    risk_feed.recompute([gamma["id"]], reason="alert disposed")  # the worker's task, after commit
    entity = Entity.objects.get(pk=gamma["id"])
    history = next(f for f in entity.risk_factors if f["name"] == "alert_history")
    assert history.get("floor") == floor
    if floor:
        assert entity.risk_score == 25 and entity.risk_tier == "medium" and "confirmed" in history["detail"]
    else:
        assert entity.risk_score < 25 and entity.risk_tier == "low"
