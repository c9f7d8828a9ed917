"""Stored events as the pure engine takes them (monitoring.rules), straight from row tuples.

Rows are `reads.TX_COLUMNS` / `reads.FIAT_COLUMNS` tuples with ids as strings; batch records (model
instances in hand) become the same tuples, so live events and loaded history convert alike.
"""

import dataclasses
from datetime import UTC, datetime
from decimal import Decimal
from itertools import groupby, islice
from operator import itemgetter

from monitoring.engine import reads
from monitoring.engine.pg import on_postgres
from monitoring.engine.reads import FIAT_COLUMNS, TX_COLUMNS
from monitoring.rules import FiatEvent as RuleFiat
from monitoring.rules import Transaction as RuleTransaction
from monitoring.rules import TransactionRun
from monitoring.rules.context import EPOCH, ONE_MICROSECOND, RunningVolume

# Loaded history is the bulk of a batch's objects (tens of thousands of transfers), and the
# dataclass constructor (keyword parsing, frozen-attribute guard, __post_init__) is most of their
# cost. Rows from the database are already valid (timezone-aware, typed), so they are assembled
# through the slots directly: the same object the constructor makes, at a third of the cost. The
# shortcut checks itself at import against the constructor and stands aside if the engine's class
# has changed in any way it does not reproduce (tests/monitoring/test_engine_reads.py asserts it is on).
_FIELDS = ("id", "timestamp", "direction", "amount", "usd_value", "counterparty_address", "chain_id", "tx_hash", "from_address",
           "to_address", "asset", "counterparty_entity_id", "travel_rule_present", "counterparty_key")


def tx_row(record) -> tuple:
    """A stored Transaction instance as a TX_COLUMNS tuple."""
    row = [getattr(record, name) for name in TX_COLUMNS]
    for i in (0, 9, 10):
        row[i] = str(row[i]) if row[i] is not None else None
    return tuple(row)


def fiat_row(record) -> tuple:
    row = [getattr(record, name) for name in FIAT_COLUMNS]
    row[0], row[1] = str(row[0]), str(row[1])
    return tuple(row)


def _constructed(tx_id, at, direction, amount, usd_value, counterparty, chain_id, tx_hash, from_address, to_address, asset,
                 counterparty_entity) -> RuleTransaction:
    return RuleTransaction(
        id=tx_id, timestamp=at, direction=direction, amount=amount, usd_value=usd_value, counterparty_address=counterparty,
        chain_id=chain_id, tx_hash=tx_hash, from_address=from_address, to_address=to_address, asset=asset,
        counterparty_entity_id=counterparty_entity,
    )


def _slot_builder():
    """The direct assembler, or None when it would not make exactly what the constructor makes."""
    if tuple(f.name for f in dataclasses.fields(RuleTransaction)) != _FIELDS or not hasattr(RuleTransaction, "__slots__"):
        return None
    new = object.__new__
    (set_id, set_at, set_direction, set_amount, set_usd, set_counterparty, set_chain, set_hash, set_from, set_to, set_asset,
     set_entity, set_travel, set_key) = (getattr(RuleTransaction, name).__set__ for name in _FIELDS)

    def build(tx_id, at, direction, amount, usd_value, counterparty, chain_id, tx_hash, from_address, to_address, asset,
              counterparty_entity):
        tx = new(RuleTransaction)
        set_id(tx, tx_id)
        set_at(tx, at)
        set_direction(tx, direction)
        set_amount(tx, amount)
        set_usd(tx, usd_value)
        set_counterparty(tx, counterparty)
        set_chain(tx, chain_id)
        set_hash(tx, tx_hash)
        set_from(tx, from_address)
        set_to(tx, to_address)
        set_asset(tx, asset)
        set_entity(tx, counterparty_entity)
        set_travel(tx, False)
        set_key(tx, (chain_id, counterparty))
        return tx

    sample = ("t", datetime(2026, 1, 1, tzinfo=UTC), "out", Decimal("1.5"), Decimal("1.50"), "b", 1, "h", "a", "b", "USDC", "e")
    made, expected = build(*sample), _constructed(*sample)
    return build if all(getattr(made, name) == getattr(expected, name) for name in _FIELDS) else None


_build = _slot_builder() or _constructed
FAST_CONSTRUCTION = _build is not _constructed


def rule_transaction(row: tuple, entity_id: str, amount: Decimal | None = None) -> RuleTransaction:
    """A stored transfer (TX_COLUMNS tuple) as seen from `entity_id`: direction and counterparty."""
    tx_id, at, chain_id, tx_hash, from_address, to_address, raw_amount, asset, usd_value, from_entity, to_entity = row
    sender, receiver = from_entity == entity_id, to_entity == entity_id
    if sender and receiver:
        direction, counterparty, counterparty_entity = "self", to_address, entity_id
    elif sender:
        direction, counterparty, counterparty_entity = "out", to_address, to_entity
    else:
        direction, counterparty, counterparty_entity = "in", from_address, from_entity
    return _build(tx_id, at, direction, amount if amount is not None else Decimal(raw_amount), usd_value, counterparty, chain_id,
                  tx_hash, from_address, to_address, asset, counterparty_entity)


def rule_fiat(row: tuple) -> RuleFiat:
    (event_id, _, at, event_type, amount, currency, usd_value, counterparty_name, counterparty_bank, card_type, mcc, country,
     check_type, check_number, deposit_method) = row
    return RuleFiat(
        id=event_id, timestamp=at, event_type=event_type, amount=amount, usd_value=usd_value, currency=currency,
        counterparty_name=counterparty_name, counterparty_bank=counterparty_bank, card_type=card_type or None,
        merchant_category_code=mcc or None, merchant_country=country or None, check_type=check_type or None,
        check_number=check_number or None, deposit_method=deposit_method or None,
    )


def _from_source(source: tuple) -> RuleTransaction:
    """A TransactionRun's transfer made when a rule first reads it: (row, direction, USD value)."""
    row, direction, usd_value = source
    tx_id, at, chain_id, tx_hash, from_address, to_address, raw_amount, asset, _, from_entity, to_entity = row
    if direction == "in":
        counterparty, counterparty_entity = from_address, from_entity
    else:  # "out", or "self" (both sides the entity's own)
        counterparty, counterparty_entity = to_address, to_entity
    return _build(tx_id, at, direction, Decimal(raw_amount), usd_value, counterparty, chain_id, tx_hash, from_address, to_address,
                  asset, counterparty_entity)


def history_runs(organization, mode: str, entity_ids: set[str], since: datetime, until: datetime) -> dict[str, TransactionRun]:
    """Each entity's transfers in [since, until] as a TransactionRun, however the database gives them."""
    if on_postgres():
        return runs_from_sides(reads.transaction_sides(organization, mode, entity_ids, since, until), entity_ids)
    return transactions_by_entity(reads.transactions(organization, mode, entity_ids, since, until), entity_ids)


def transactions_by_entity(rows: list[tuple], entity_ids: set[str]) -> dict[str, TransactionRun]:
    """Each entity's transfers among `rows` (reads.transactions: in time order, usd_value as text),
    seen from that entity, as TransactionRuns whose transfers are made when a rule reads them. A
    transfer between two of the entities appears in both runs. (The ORM's path: on PostgreSQL the
    database splits the rows by entity and adds up the volumes, `runs_from_sides`.)"""
    columns = {entity: ([], [], [], [], [], []) for entity in entity_ids}  # at_us, ids, usd, counted, counterparty, source
    for row in rows:
        tx_id, at, chain_id, _, from_address, to_address, _, _, usd_text, from_entity, to_entity = row
        usd_value = None if usd_text is None else Decimal(usd_text)
        at_us = (at - EPOCH) // ONE_MICROSECOND
        if from_entity == to_entity:
            sides = ((from_entity, "self", to_address, False),)
        else:
            sides = ((from_entity, "out", to_address, True), (to_entity, "in", from_address, True))
        for entity, direction, counterparty, counted in sides:
            if entity not in columns:
                continue
            at_col, id_col, usd_col, counted_col, key_col, source_col = columns[entity]
            at_col.append(at_us)
            id_col.append(tx_id)
            usd_col.append(usd_value)
            counted_col.append(counted)
            key_col.append((chain_id, counterparty))
            source_col.append((row, direction))
    return {entity: TransactionRun(at_us=at_col, ids=id_col, counterparty_keys=key_col, volume=RunningVolume(usd_col, counted_col),
                                   sources=source_col, make=_from_source)
            for entity, (at_col, id_col, usd_col, counted_col, key_col, source_col) in columns.items()}


def runs_from_sides(rows: list[tuple], entity_ids: set[str]) -> dict[str, TransactionRun]:
    """reads.transaction_sides' rows (one per entity and transfer, in entity and time order, the
    volumes' running sums made by the database) as each entity's TransactionRun."""
    runs = {}
    for entity, group in groupby(rows, key=itemgetter(0)):
        sides = list(group)
        _, at_us, ids, chains, counterparties, usd, priced, unpriced = islice(zip(*sides, strict=True), 8)
        runs[entity] = TransactionRun(
            at_us=list(at_us), ids=list(ids), counterparty_keys=list(zip(chains, counterparties, strict=True)),
            volume=RunningVolume.prefixed([_ZERO, *map(_decimal_or_zero, usd)], [0, *priced], [0, *unpriced]),
            sources=sides, make=_from_side)
    empty = RunningVolume((), ())
    for entity in entity_ids - runs.keys():
        runs[entity] = TransactionRun(at_us=[], ids=[], counterparty_keys=[], volume=empty, sources=[], make=_from_side)
    return runs


_ZERO = Decimal(0)


def _decimal_or_zero(text: str | None) -> Decimal:
    return _ZERO if text is None else Decimal(text)


def _from_source(source: tuple) -> RuleTransaction:
    """A transfer of transactions_by_entity's runs, made when a rule first reads it: (row, direction)."""
    row, direction = source
    tx_id, at, chain_id, tx_hash, from_address, to_address, raw_amount, asset, usd_text, from_entity, to_entity = row
    if direction == "in":
        counterparty, counterparty_entity = from_address, from_entity
    else:  # "out", or "self" (both sides the entity's own)
        counterparty, counterparty_entity = to_address, to_entity
    return _build(tx_id, at, direction, Decimal(raw_amount), None if usd_text is None else Decimal(usd_text), counterparty, chain_id,
                  tx_hash, from_address, to_address, asset, counterparty_entity)


def _from_side(side: tuple) -> RuleTransaction:
    """A transfer of runs_from_sides' runs, made when a rule first reads it (a reads.SIDE_COLUMNS row)."""
    (_, _, tx_id, chain_id, counterparty, _, _, _, at, direction, tx_hash, from_address, to_address, raw_amount, asset, usd_text,
     counterparty_entity) = side
    return _build(tx_id, at, direction, Decimal(raw_amount), None if usd_text is None else Decimal(usd_text), counterparty, chain_id,
                  tx_hash, from_address, to_address, asset, counterparty_entity)
