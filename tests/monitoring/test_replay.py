"""A history replayed through live ingestion, and through backfill + run_monitoring, gives
identical alerts (windows are measured from event timestamps, not from the clock)."""

import io
import json
import random
import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command

from common.principal import Principal
from monitoring.ingestion.services import fiat_event_ingest, transactions_ingest_batch
from monitoring.models import Alert, AlertHit, AssetPrice
from onboarding.models import Entity, Wallet

pytestmark = pytest.mark.django_db
START = datetime(2026, 1, 5, tzinfo=UTC)
UUID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")  # ids differ between the two orgs


def wallet(i: int) -> str:
    return f"0x{i:040x}"


def history(seed: int = 7) -> list[dict]:
    """40 days of mixed activity for 6 customers: small and large transfers, structuring bursts,
    fan-out, transfers between customers, wires, card and check events."""
    rnd, events = random.Random(seed), []
    externals = [wallet(1000 + i) for i in range(25)]
    for n in range(420):
        at = START + timedelta(minutes=rnd.randrange(40 * 24 * 60))
        customer = rnd.randrange(6)
        if rnd.random() < 0.25:
            kind = rnd.choice(["wire_in", "wire_out", "ach_in", "card_purchase", "check_deposit", "card_atm"])
            amount = str(rnd.choice([40, 900, 3500, 4800, 9000, 12000]))
            events.append({"kind": "fiat", "at": at, "event_type": kind, "customer": customer, "reference": f"F{n}",
                           "amount": amount, "counterparty_name": rnd.choice(["ACME", "Globex", "Initech"])})
            continue
        amount = rnd.choice(["50", "120", "980", "2500", "8500", "9200", "9900", "15000"])
        other = wallet(rnd.randrange(6)) if rnd.random() < 0.15 else rnd.choice(externals)
        outbound = rnd.random() < 0.5
        events.append({"kind": "tx", "at": at, "from": wallet(customer) if outbound else other,
                       "to": other if outbound else wallet(customer), "amount": amount, "hash": f"0x{n:064x}"})
    return sorted(events, key=lambda e: (e["at"], e.get("hash", e.get("reference"))))


def customers(org, mode="live") -> list[Entity]:
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    entities = []
    for i in range(6):
        entity = Entity.objects.create(organization=org, mode=mode, legal_name=f"Customer {i}", entity_type="business",
                                       jurisdiction="US" if i else "IR", external_id=f"c{i}", status="active")
        Wallet.objects.create(organization=org, mode=mode, entity=entity, chain_id=1, address=wallet(i))
        entities.append(entity)
    return entities


def tx_item(event) -> dict:
    return {"chain_id": 1, "from_address": event["from"], "to_address": event["to"], "amount": event["amount"], "asset": "USDC",
            "timestamp": event["at"], "tx_hash": event["hash"], "log_index": 0}


def fiat_item(event, entities) -> dict:
    return {"entity_id": entities[event["customer"]].pk, "event_type": event["event_type"], "amount": Decimal(event["amount"]),
            "currency": "USD", "event_timestamp": event["at"], "reference": event["reference"],
            "counterparty_name": event["counterparty_name"]}


def live(org, entities, events, batch_size=37) -> None:
    principal, pending = Principal.system(org, "live"), []
    for event in events:
        if event["kind"] == "tx":
            pending.append(tx_item(event))
            if len(pending) == batch_size:
                transactions_ingest_batch(principal=principal, items=pending)
                pending = []
            continue
        if pending:
            transactions_ingest_batch(principal=principal, items=pending)
            pending = []
        fiat_event_ingest(principal=principal, item=fiat_item(event, entities))
    if pending:
        transactions_ingest_batch(principal=principal, items=pending)


def backfilled(org, entities, events, tmp_path) -> None:
    path = tmp_path / "history.jsonl"
    with path.open("w") as handle:
        for event in events:
            item = tx_item(event) if event["kind"] == "tx" else fiat_item(event, entities)
            handle.write(json.dumps(item, default=str) + "\n")
    call_command("backfill", str(path), "--org", org.slug, stdout=io.StringIO(), stderr=io.StringIO())
    call_command("run_monitoring", "--org", org.slug, stdout=io.StringIO())


def summary(org) -> list[tuple]:
    rows = []
    for alert in Alert.objects.filter(organization=org).select_related("entity"):
        rows.append((
            alert.entity.external_id, alert.rule_code, alert.hit_count, alert.first_triggered_at, alert.last_triggered_at,
            tuple(sorted(alert.transactions.values_list("tx_hash", flat=True))),
            tuple(sorted(alert.fiat_events.values_list("reference", flat=True))),
            tuple(sorted((h.triggered_at, UUID.sub("<id>", json.dumps(h.evidence, sort_keys=True, default=str)))
                         for h in AlertHit.objects.filter(alert=alert))),
        ))
    return sorted(rows)


def test_live_and_replayed_history_give_identical_alerts(make_org, tmp_path):
    events = history()
    live_org, replay_org = make_org("live-org"), make_org("replay-org")
    live(live_org, customers(live_org), events)
    backfilled(replay_org, customers(replay_org), events, tmp_path)
    live_alerts, replayed = summary(live_org), summary(replay_org)
    assert len(live_alerts) >= 50 and len({row[1] for row in live_alerts}) >= 12  # the history exercises many rules
    assert live_alerts == replayed
