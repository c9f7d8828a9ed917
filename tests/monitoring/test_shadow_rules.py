"""Shadow mode: a rule in shadow is evaluated and its would-be hits recorded on the event's
evaluation, but no alert is opened, no webhook event emitted, no risk recomputed for it."""

from datetime import UTC, datetime

import pytest

from common.principal import Principal
from monitoring.ingestion.services import transactions_ingest_batch
from monitoring.models import Alert, AssetPrice, RuleSetting, Transaction
from onboarding.models import Entity, Wallet
from webhooks.models import Event

pytestmark = pytest.mark.django_db
RULE = "/v1/monitoring/rules/large_transfer"


@pytest.fixture
def customer(org):
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    entity = Entity.objects.create(organization=org, mode="test", legal_name="Shadowed Ltd", entity_type="business", jurisdiction="US")
    Wallet.objects.create(organization=org, mode="test", entity=entity, chain_id=1, address=f"0x{1:040x}")
    return entity


def _ingest(org, n: int) -> Transaction:
    item = {"chain_id": 1, "from_address": f"0x{1:040x}", "to_address": f"0x{999:040x}", "amount": "25000", "asset": "USDC",
            "timestamp": datetime(2026, 1, 10, 12, n, tzinfo=UTC), "tx_hash": f"0x{n:x}", "log_index": 0}
    transactions_ingest_batch(principal=Principal.system(org, "test"), items=[item], run_monitoring=True)
    return Transaction.objects.get(tx_hash=f"0x{n:x}")


def _alert_events(org) -> list[str]:
    return [event.type for event in Event.objects.filter(organization=org, type__startswith="alert.")]


def test_a_shadowed_rule_records_and_raises_nothing(api, org, key, customer, django_capture_on_commit_callbacks):
    response = api(key(org)).patch(RULE, {"shadow": True}, format="json")
    assert response.status_code == 200 and response.json()["shadow"] is True and response.json()["enabled"] is True
    assert RuleSetting.objects.get(organization=org, rule_code="large_transfer").shadow is True
    with django_capture_on_commit_callbacks(execute=True):
        transfer = _ingest(org, 1)
    assert not Alert.objects.filter(rule_code="large_transfer").exists()
    shadow = transfer.evaluation["shadow"]
    assert [(row["rule"], row["entity_id"]) for row in shadow] == [("large_transfer", str(customer.pk))]
    assert shadow[0]["measured"]["usd_value"] == "25000.00"
    assert not [event for event in Event.objects.filter(organization=org, type__startswith="alert.")
                if event.data.get("rule_code") == "large_transfer"]
    detail = api(key(org)).get(f"/v1/onboarding/entities/{customer.pk}/transfers/{transfer.pk}").json()
    assert detail["evaluation"]["shadow"][0]["rule"] == "large_transfer" and detail["alerts"] == [
        alert for alert in detail["alerts"] if alert["rule_code"] != "large_transfer"]


def test_out_of_shadow_the_same_transfer_raises_the_alert(api, org, key, customer, django_capture_on_commit_callbacks):
    api(key(org)).patch(RULE, {"shadow": True}, format="json")
    _ingest(org, 1)
    assert api(key(org)).patch(RULE, {"shadow": False}, format="json").json()["shadow"] is False
    with django_capture_on_commit_callbacks(execute=True):
        transfer = _ingest(org, 2)
    alert = Alert.objects.get(rule_code="large_transfer")
    assert alert.entity_id == customer.pk and "shadow" not in (transfer.evaluation or {})
    assert "alert.created" in _alert_events(org)


def test_other_rules_are_not_affected(api, org, key, customer):
    """Another rule shadowed: large_transfer still opens its alert, nothing is written as shadow."""
    api(key(org)).patch("/v1/monitoring/rules/structuring_below_threshold", {"shadow": True}, format="json")
    transfer = _ingest(org, 1)
    assert Alert.objects.filter(rule_code="large_transfer").count() == 1
    assert "shadow" not in (transfer.evaluation or {})


def test_the_console_saves_shadow_mode(console, org):  # noqa: F811
    from django.urls import reverse

    page = reverse("admin:monitoring_rulesetting_rule", args=[org.pk, "large_transfer"])
    response = console.post(page, {"enabled": "on", "shadow": "on", "severity": "", "_save": "1"})
    assert response.status_code == 302
    assert RuleSetting.objects.get(organization=org, rule_code="large_transfer").shadow is True
    console.post(page, {"_reset": "1", "severity": ""})
    assert RuleSetting.objects.get(organization=org, rule_code="large_transfer").shadow is False


from tests.monitoring.test_configuration_admin import console  # noqa: E402, F401  (fixture)
