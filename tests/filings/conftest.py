"""Fixtures of the case and filing tests: entities onboarded through the API, alerts raised by the
real monitoring engine or stored directly, and cases opened by `cases_attach_alerts`."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from filings.cases.attach import cases_attach_alerts
from filings.documents.examples import filer_for
from filings.models import Case
from monitoring.models import Alert, AssetPrice, Transaction
from onboarding.models import Entity

EVM = "0x52908400098527886e0f7030069857d2e4169ee7"
OTHER = "0x000000000000000000000000000000000000beef"
BASE = "/v1/onboarding"
FILERS = {"US": filer_for("US"), "CA": filer_for("CA"), "AU": filer_for("AU")}


def filer_profile(jurisdiction: str) -> dict:
    """A complete filer profile (what PATCH /v1/organizations/me stores) for the jurisdiction."""
    return filer_for(jurisdiction)


@pytest.fixture
def officer(api, org, key):
    """An l3_officer API key of `org` (test mode)."""
    return api(key(org, role="l3_officer"))


@pytest.fixture
def onboard(officer, org):
    """onboard(jurisdiction="US", **fields) → the entity (model) created through the API, with a wallet."""
    counter = {"n": 0}

    def make(jurisdiction: str = "US", client=None, **fields) -> Entity:
        counter["n"] += 1
        body = {"legal_name": f"Nova Traders {counter['n']}", "entity_type": "business", "jurisdiction": jurisdiction,
                "wallets": [{"chain_id": 1, "address": f"0x{counter['n']:040x}" if counter["n"] > 1 else EVM}], **fields}
        response = (client or officer).post(f"{BASE}/entities", body, format="json")
        assert response.status_code == 201, response.json()
        return Entity.objects.get(pk=response.json()["id"])

    return make


RULES = ["large_transfer", "structuring_below_threshold", "mixer_exposure", "rapid_pass_through", "fan_in", "peel_chain",
         "chain_hopping", "high_risk_jurisdiction", "wire_layering", "volume_spike"]


def make_alert(entity: Entity, *, rule_code: str | None = None, severity: str = "medium", transactions: int = 0,
               created_at=None, number: int = 1, evidence: dict | None = None) -> Alert:
    """An alert stored directly (as monitoring's alerts_record stores it), with transactions."""
    now = created_at or timezone.now()
    if rule_code is None:  # one open alert per (entity, rule): take the next rule not yet open
        taken = set(Alert.objects.filter(entity=entity).exclude(status="closed").values_list("rule_code", flat=True))
        rule_code = next(code for code in RULES if code not in taken)
    alert = Alert.objects.create(
        organization=entity.organization, mode=entity.mode, entity=entity, rule_number=number, rule_code=rule_code,
        rule_name=rule_code.replace("_", " ").capitalize(), severity=severity, description=f"{rule_code} fired.",
        evidence=evidence or {"measured": {}}, first_triggered_at=now, last_triggered_at=now, sla_due_at=now + timedelta(days=3))
    if created_at:
        Alert.objects.filter(pk=alert.pk).update(created_at=created_at)
        alert.refresh_from_db()
    wallet = entity.wallets.first()
    rows = Transaction.objects.bulk_create([Transaction(
        organization=entity.organization, mode=entity.mode, chain_id=1, tx_hash=f"0x{alert.pk.hex}{index:04x}",
        from_address=OTHER, to_address=wallet.address if wallet else EVM, amount=str(1000 + index), asset="USDC",
        usd_value=Decimal(1000 + index), timestamp=now - timedelta(minutes=7 * index), to_entity=entity, monitored=True)
        for index in range(transactions)])
    alert.transactions.add(*rows)
    return alert


def open_case(entity: Entity, **alert_fields) -> Case:
    """A case opened the way monitoring opens it: a new alert, then cases_attach_alerts."""
    alert = make_alert(entity, **alert_fields)
    attached = cases_attach_alerts(organization=entity.organization, mode=entity.mode, alerts=[alert])
    return Case.objects.get(pk=attached[alert.pk])


@pytest.fixture
def priced(org):
    """USDC at 1 USD; CAD and AUD priced for local values (USD per unit)."""
    for asset, rate in (("USDC", "1"), ("CAD", "0.74"), ("AUD", "0.66")):
        AssetPrice.objects.update_or_create(organization=org, asset=asset, defaults={"usd_rate": Decimal(rate)})
    return org


def with_filer(org, jurisdiction: str = "US", **changes):
    org.filer_profile = {**filer_profile(jurisdiction), **changes}
    org.save(update_fields=["filer_profile"])
    return org


def ingest_transfers(client, *, to_address: str, count: int, start_day: int = 1) -> None:
    """`count` inbound USDC transfers of 10,000+ through the batch API: monitoring (rule 1) raises the alert."""
    items = [{"from_address": f"0x{index + 100:040x}", "to_address": to_address, "amount": str(10_000 + index), "asset": "USDC",
              "chain_id": 1, "timestamp": f"2026-03-{start_day + index // 200:02d}T{(index // 10) % 24:02d}:{index % 60:02d}:00Z",
              "tx_hash": f"0x{index:064x}"} for index in range(count)]
    for first in range(0, count, 1000):
        response = client.post("/v1/monitoring/transfers/batch", {"transactions": items[first:first + 1000]}, format="json")
        assert response.status_code == 200, response.json()


def ingest_fiat(client, entity: Entity, *, amounts, event_type: str = "wire_in", currency: str = "USD", day: str = "2026-03-02",
                **fields) -> None:
    for index, amount in enumerate(amounts):
        response = client.post("/v1/monitoring/fiat-events", {
            "entity_id": str(entity.pk), "event_type": event_type, "amount": str(amount), "currency": currency,
            "counterparty_name": "Caisse Populaire Ünion", "counterparty_bank": "First Bank",
            "reference": f"F-{entity.pk.hex[:8]}-{day}-{index}",
            "event_timestamp": f"{day}T{14 + index:02d}:00:00Z", **fields}, format="json")
        assert response.status_code in (200, 201), response.json()


def review(client, case, *, form: dict | None = None, include_open: bool = True, validate: bool = True) -> dict:
    """The review path a case's SAR is filed through (docs/cases.md, "No filing without review"), by
    `client` (who becomes the draft's preparer): the case is investigated; its alerts still open are
    selected for the report (`include_open`); it moves to determination; the draft — `form` when given,
    else the stored one — is validated (`validate`). Returns the draft's form data."""
    case_url = f"{BASE}/cases/{case.pk}"
    if Case.objects.get(pk=case.pk).status == "open":
        moved = client.post(f"{case_url}/status", {"status": "investigating"}, format="json")
        assert moved.status_code == 200, moved.json()
    if include_open:
        still_open = [str(i) for i in Alert.objects.filter(case_link__case=case).exclude(status="closed").values_list("pk", flat=True)]
        selected = client.post(f"{case_url}/sar-selection", {"include": still_open}, format="json")
        assert selected.status_code == 200, selected.json()
    if Case.objects.get(pk=case.pk).status != "determination":
        moved = client.post(f"{case_url}/status", {"status": "determination"}, format="json")
        assert moved.status_code == 200, moved.json()
    if validate:
        checked = client.post(f"{case_url}/sar-validate", form or {}, format="json")
        assert checked.status_code == 200, checked.json()
    return client.get(f"{case_url}/sar-draft").json()["form"]
