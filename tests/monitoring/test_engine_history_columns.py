"""The history a batch loads (events.transfers_by_entity: columns from rows, transfer objects made
only where a rule reads them) gives every rule exactly what the history built from transfer
objects gives it: all 50 rules over randomized histories, hits and skips with their evidence."""

import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from common.pg import PG_EPOCH
from monitoring.engine.events import rule_transaction, transfers_by_entity
from monitoring.rules import DEFAULT_SETTINGS, Entity, EntityContext, EntityHistory, OrgLists, OrgNetwork, evaluate
from monitoring.rules.context import Transfers

T0 = datetime(2026, 3, 11, 12, tzinfo=UTC)
MICRO = timedelta(microseconds=1)
ENTITIES = [f"e{i}" for i in range(6)]
SERVICES = [f"0xs{i}" for i in range(8)]
# Amounts near the rules' thresholds: structuring bands, round figures, large single transfers, dust.
AMOUNTS = ["9500", "9900", "8800", "1000", "2000", "5000", "12.34", "60", "0.5", "15000", "49999.99", "3", "700", "250"]


def own_wallet(entity: str, k: int = 0) -> str:
    return f"0x{entity}w{k}"


def random_rows(seed: int) -> list[tuple]:
    """reads.transactions rows: (id, µs since PG_EPOCH, chain, hash, from, to, amount, asset, usd text, from entity, to entity),
    in (time, id) order, with bursts, same-time ties, self transfers, transfers between customers and unpriced ones."""
    rng, rows = random.Random(seed), []
    for n in range(1, 701):
        if rng.random() < 0.25:  # a burst: same day as the previous, often the same instant
            at = rows[-1][1] + rng.choice([0, 0, 1_000_000, 60_000_000, 3_600_000_000]) if rows else 0
        else:
            at = (T0 - PG_EPOCH) // MICRO - rng.randrange(32 * 86_400) * 1_000_000
        entity, other = rng.choice(ENTITIES), rng.choice(ENTITIES)
        kind = rng.random()
        if kind < 0.1:
            sides = (own_wallet(entity), own_wallet(entity, 1), entity, entity)
        elif kind < 0.25:
            between = (own_wallet(entity), own_wallet(other), entity, other)
            sides = between if other != entity else (own_wallet(entity), "0xfresh", entity, None)
        elif kind < 0.6:
            counterparty = rng.choice(SERVICES + [f"0xnew{n}"])
            sides = (own_wallet(entity), counterparty, entity, None)
        else:
            sides = (rng.choice(SERVICES), own_wallet(entity), None, entity)
        amount = rng.choice(AMOUNTS)
        usd = None if rng.random() < 0.05 else amount
        rows.append((f"t{n:05d}", at, rng.choice([1, 1, 137, 0]), f"0xh{n}", sides[0], sides[1], Decimal(amount), "USDC", usd,
                     sides[2], sides[3]))
    rows.sort(key=lambda row: (row[1], row[0]))
    return rows


def as_objects(rows: list[tuple], entity: str):
    """The same transfers as objects, the way the engine's other callers make them."""
    return [rule_transaction((row[0], PG_EPOCH + row[1] * MICRO, *row[2:8], None if row[8] is None else Decimal(row[8]), *row[9:]),
                             entity) for row in rows if entity in (row[9], row[10])]


def context(entity: str, history: EntityHistory) -> EntityContext:
    lists = OrgLists(address_tags={(1, SERVICES[0]): frozenset({"exchange"}), (None, SERVICES[1]): frozenset({"mixer"})})
    network = OrgNetwork(registered_wallets={(1, own_wallet(e)): e for e in ENTITIES})
    return EntityContext(entity=Entity(id=entity, created_at=T0 - timedelta(days=400), expected_monthly_volume_usd=Decimal("20000")),
                         history=history, lists=lists, network=network)


@pytest.mark.parametrize("seed", range(6))
def test_loaded_columns_evaluate_exactly_as_transfer_objects(seed):
    rows = random_rows(seed)
    loaded = transfers_by_entity(rows, set(ENTITIES))
    earlier = T0 - timedelta(days=40)
    compared = hits = 0
    for entity in ENTITIES:
        objects = as_objects(rows, entity)
        known = {(1, SERVICES[2])}  # rule 14: dealt with before the loaded span
        reference = EntityHistory(objects, earlier_activity_at=earlier, known_counterparties=known)
        columns = EntityHistory(loaded[entity], earlier_activity_at=earlier).knowing(known)
        assert [tx.id for tx in columns.transactions] == [tx.id for tx in reference.transactions]
        assert columns.first_contacts() == reference.first_contacts()
        expected_ctx, loaded_ctx = context(entity, reference), context(entity, columns)
        for event in objects[-40:]:
            expected = [result.as_dict() for result in evaluate(event, expected_ctx, DEFAULT_SETTINGS)]
            assert [result.as_dict() for result in evaluate(event, loaded_ctx, DEFAULT_SETTINGS)] == expected
            compared += 1
            hits += sum(result["outcome"] == "hit" for result in expected)
    assert compared == 240 and hits > 50  # the histories do set rules off: the comparison is not between silences


def test_loaded_transfers_are_made_only_where_read_and_equal_the_objects():
    rows = random_rows(99)
    entity = ENTITIES[0]
    transfers = transfers_by_entity(rows, {entity})[entity]
    objects = as_objects(rows, entity)
    assert len(transfers) == len(objects) > 100 and transfers.made() == 0
    history = EntityHistory(transfers)
    view = history.view_at(objects[-1])
    window = view.transactions(hours=24)
    assert 0 < transfers.made() <= len(window) < len(transfers)
    assert view.transaction_volume(days=30) == EntityHistory(objects).view_at(objects[-1]).transaction_volume(days=30)
    assert transfers.made() <= len(window)  # a volume reads the columns, not the objects
    assert list(transfers) == objects and transfers[-1] == objects[-1] and transfers[2:5] == tuple(objects[2:5])
    with pytest.raises(IndexError):
        transfers[len(objects)]


def test_transfers_of_objects_sort_by_time_keeping_ties_in_order():
    rows = random_rows(3)
    objects = as_objects(rows, ENTITIES[1])
    shuffled = sorted(objects, key=lambda tx: tx.id, reverse=True)
    made = Transfers.of(shuffled)
    assert [tx.timestamp for tx in made] == sorted(tx.timestamp for tx in objects)
    ties = [tx.id for tx in made if sum(other.timestamp == tx.timestamp for other in objects) > 1]
    assert ties and ties == [tx.id for tx in shuffled if tx.id in set(ties)]  # stable: the given order among equal times
