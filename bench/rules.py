"""Micro-benchmark of the rule engine's pure core: all 53 rules over synthetic entity histories.

    .venv/bin/python bench/rules.py [--entities 200] [--transactions 300] [--fiat 100] [--days 30] [--seed 7]

Each entity gets a history of transactions and fiat events spread over `--days` days (repeated
counterparties, a few unpriced assets, several chains, every fiat event type), the organization gets
address tags, a sanctions-name index and a transfer graph. The context is built once per entity (as
storage does per batch) and every event is evaluated against it in time order with all 53 rules
enabled. Prints events/s and the time per event, context building included and excluded.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from monitoring.rules import (  # noqa: E402
    DEFAULT_SETTINGS,
    Entity,
    EntityContext,
    EntityHistory,
    FiatEvent,
    OrgLists,
    OrgNetwork,
    PeerGroupStats,
    SanctionsNameIndex,
    Transaction,
    TransferGraph,
    evaluate,
)
from monitoring.rules.context import FIAT_EVENT_TYPES  # noqa: E402

START = datetime(2025, 1, 1, tzinfo=UTC)
# Mostly everyday amounts, some near reporting thresholds, a few large ones.
AMOUNTS = ["12.50", "25", "99.90", "180", "500", "950", "1000", "2500", "3000", "4999", "5000", "8500", "9500", "10000", "25000"]
AMOUNT_WEIGHTS = [12, 14, 14, 12, 10, 8, 6, 5, 4, 3, 3, 2, 2, 1, 1]
ASSETS = [("USDC", Decimal(1)), ("ETH", Decimal(3000)), ("USDT", Decimal(1)), ("SHIB", None)]
CHAINS = [1, 1, 1, 137, 56, 10]


def amount(rng: random.Random) -> Decimal:
    return Decimal(rng.choices(AMOUNTS, AMOUNT_WEIGHTS)[0])


def make_transaction(rng: random.Random, entity: int, n: int, at: datetime) -> Transaction:
    asset, price = rng.choice(ASSETS)
    usd = amount(rng)
    direction = rng.choice(["in", "in", "out", "out", "self"])
    own, counterparty = f"0xe{entity}w{rng.randrange(3)}", f"0xcp{rng.randrange(40)}"
    sender, recipient = (counterparty, own) if direction == "in" else (own, counterparty)
    registered = f"e{rng.randrange(1000)}" if rng.random() < 0.2 else None
    return Transaction(
        id=f"e{entity}t{n}", timestamp=at, direction=direction, amount=usd / (price or Decimal(1)), usd_value=usd if price else None,
        counterparty_address=counterparty, chain_id=rng.choice(CHAINS), tx_hash=f"0x{entity:04x}{n:06x}", from_address=sender,
        to_address=recipient, asset=asset, counterparty_entity_id=registered, travel_rule_present=rng.random() < 0.5,
    )  # fmt: skip


def make_fiat(rng: random.Random, entity: int, n: int, at: datetime) -> FiatEvent:
    kind = rng.choice(FIAT_EVENT_TYPES)
    usd = amount(rng)
    details = {}
    if kind.startswith("card"):
        details = {"card_type": rng.choice(["debit", "prepaid"]), "merchant_category_code": rng.choice(["5411", "7995", "5812"])}
        details["merchant_country"] = rng.choice(["US", "US", "US", "FR", "GB", "DE", "CA", "IR"])
    if kind.startswith("check"):
        details = {"check_number": str(1000 + rng.randrange(30)), "check_type": rng.choice(["personal", "money_order"])}
        details["deposit_method"] = rng.choice(["teller", "rdc_mobile", "rdc_desktop"])
    party, bank = f"Counterparty {rng.randrange(25)}", f"Bank {rng.randrange(5)}"
    return FiatEvent(
        id=f"e{entity}f{n}", timestamp=at, event_type=kind, amount=usd, usd_value=usd,
        counterparty_name=party, counterparty_bank=bank, **details,
    )  # fmt: skip


def moments(rng: random.Random, count: int, days: int) -> list[datetime]:
    return sorted(START + timedelta(seconds=rng.randrange(days * 86400)) for _ in range(count))


def build_context(rng: random.Random, entity: int, args: argparse.Namespace, lists: OrgLists, network: OrgNetwork) -> EntityContext:
    txs = [make_transaction(rng, entity, i, at) for i, at in enumerate(moments(rng, args.transactions, args.days))]
    fiat = [make_fiat(rng, entity, i, at) for i, at in enumerate(moments(rng, args.fiat, args.days))]
    peers = PeerGroupStats(size=12, mean_volume_usd=Decimal(400_000), stddev_volume_usd=Decimal(50_000), active=12)
    profile = Entity(
        id=f"e{entity}", jurisdiction=rng.choices(["US", "CA", "AU", "KP"], [70, 20, 9, 1])[0], onboarded_at=START - timedelta(days=400),
        expected_monthly_volume_usd=Decimal(250_000), peer_group=peers,
    )  # fmt: skip
    history = EntityHistory(txs, fiat, earlier_activity_at=START - timedelta(days=200))
    return EntityContext(entity=profile, history=history, lists=lists, network=network)


def organization(rng: random.Random) -> tuple[OrgLists, OrgNetwork]:
    tags = {(1, f"0xcp{i}"): frozenset({rng.choice(["exchange", "mixer", "darknet", "merchant"])}) for i in range(0, 40, 3)}
    names = SanctionsNameIndex((f"Listed Person {i} {rng.choice(['Ivanov', 'Petrov', 'Smith'])}", "OFAC SDN") for i in range(5000))
    lists = OrgLists(asset_prices={"USD": Decimal(1), "CAD": Decimal("0.73")}, address_tags=tags, sanctions_names=names)
    graph_edges = [make_transaction(rng, rng.randrange(500), i, at) for i, at in enumerate(moments(rng, 20_000, 30))]
    registered = {(tx.chain_id, tx.counterparty_address): tx.counterparty_entity_id for tx in graph_edges if tx.counterparty_entity_id}
    network = OrgNetwork(transfers=TransferGraph(graph_edges), registered_wallets=registered, flagged_wallets=frozenset({(1, "0xcp7")}))
    return lists, network


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=200)
    parser.add_argument("--transactions", type=int, default=300, help="transactions per entity")
    parser.add_argument("--fiat", type=int, default=100, help="fiat events per entity")
    parser.add_argument("--days", type=int, default=30, help="span of each history")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    lists, network = organization(rng)
    build_seconds = eval_seconds = 0.0
    events = 0
    outcomes: Counter[str] = Counter()
    per_entity: list[float] = []
    for entity in range(args.entities):
        started = time.perf_counter()
        context = build_context(rng, entity, args, lists, network)
        built = time.perf_counter()
        stream = sorted((*context.history.transactions, *context.history.fiat_events), key=lambda e: e.timestamp)
        for event in stream:
            for result in evaluate(event, context, DEFAULT_SETTINGS):
                outcomes[result.outcome] += 1
        done = time.perf_counter()
        build_seconds += built - started
        eval_seconds += done - built
        events += len(stream)
        per_entity.append((done - built) / len(stream))

    total = build_seconds + eval_seconds
    print(f"{args.entities} entities × ({args.transactions} transactions + {args.fiat} fiat events) over {args.days} days; all 53 rules")
    print(f"events evaluated        {events:>10,}")
    print(f"hits / skips            {outcomes['hit']:>10,} / {outcomes['skipped']:,}")
    print(f"evaluation only         {events / eval_seconds:>10,.0f} events/s   {eval_seconds / events * 1e6:7.1f} µs/event")
    print(f"with context building   {events / total:>10,.0f} events/s   {total / events * 1e6:7.1f} µs/event")
    print(f"per-entity µs/event     median {statistics.median(per_entity) * 1e6:.1f}, worst {max(per_entity) * 1e6:.1f}")


if __name__ == "__main__":
    main()
