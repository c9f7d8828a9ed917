"""The backtest's replay (one prepared history, one input per event for every variant) gives what
the live path gives: the hits per entity of evaluate_batch run chunk by chunk, rule by rule."""

import random
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from common.principal import Principal
from monitoring.backtest.replay import range_batch, replay
from monitoring.configuration.selectors import engine_settings
from monitoring.engine.runner import evaluate_batch
from monitoring.ingestion.services import transactions_ingest_batch
from monitoring.models import AssetPrice, Transaction
from onboarding.models import Entity, Wallet

pytestmark = pytest.mark.django_db
START, END = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 21, tzinfo=UTC)
RULES = ["large_transfer", "rapid_pass_through", "fan_in", "fan_out", "structuring_below_threshold", "volume_spike", "high_velocity",
         "round_amounts", "counterparty_concentration", "cyclic_flow"]


@pytest.fixture
def history(org):
    """25 customers, 700 transfers over 20 days: in from outsiders, out to merchants, between customers,
    amounts from 50 to 20,000 USD (some round, some bursts)."""
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    rnd = random.Random(5)
    for i in range(25):
        entity = Entity.objects.create(organization=org, mode="test", legal_name=f"C{i}", entity_type="business", jurisdiction="US")
        Wallet.objects.create(organization=org, mode="test", entity=entity, chain_id=1, address=f"0x{i + 1:040x}")
    items = []
    for n in range(700):
        me, kind = f"0x{rnd.randrange(25) + 1:040x}", rnd.random()
        other = f"0x{rnd.randrange(25) + 1:040x}" if kind < 0.3 else f"0x{1000 + rnd.randrange(60):040x}"
        sender, receiver = (other, me) if kind > 0.65 else (me, other)
        amount = rnd.choice(["50", "120", "900", "5000", "9500", "12000", "20000", str(rnd.randrange(100, 3000))])
        at = START + timedelta(minutes=rnd.randrange(20 * 24 * 60))
        items.append({"chain_id": 1, "from_address": sender, "to_address": receiver, "amount": amount, "asset": "USDC",
                      "timestamp": at, "tx_hash": f"0x{n:x}", "log_index": 0})
    transactions_ingest_batch(principal=Principal.system(org, "test"), items=items, run_monitoring=False)


def _live_path_hits(org, settings) -> Counter:
    """The former backtest: evaluate_batch over 100-event chunks in time order."""
    transfers = list(Transaction.objects.filter(organization=org, mode="test", timestamp__gte=START, timestamp__lte=END)
                     .order_by("timestamp", "id"))
    hits = Counter()
    for index in range(0, len(transfers), 100):
        evaluation = evaluate_batch(organization=org, mode="test", transactions=transfers[index:index + 100], settings=settings)
        hits.update(hit.entity_id for hit in evaluation.hits)
    return hits


def test_the_replay_gives_the_live_paths_hits_for_every_variant_at_once(org, history):
    principal = Principal.system(org, "test")
    variants = [engine_settings(org, only=[rule], overrides={rule: {"enabled": True}}) for rule in RULES]
    variants.append(engine_settings(org, only=["large_transfer"], overrides={"large_transfer": {"parameters": {"threshold_usd": "900"}}}))
    outcomes = replay(principal, range_batch(principal, START, END), variants, START, END)
    fired = 0
    for settings, found in zip(variants, outcomes, strict=True):
        expected = _live_path_hits(org, settings)
        assert {entity: tally.hits for entity, tally in found.tallies.items()} == dict(expected), settings.active[0].rule.code
        fired += bool(expected)
    assert fired >= 6  # the history makes most of these rules fire
