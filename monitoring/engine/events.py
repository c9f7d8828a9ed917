"""Stored events as the pure engine takes them (monitoring.rules), straight from row tuples.

Rows are `reads.TX_COLUMNS` / `reads.FIAT_COLUMNS` tuples with ids as strings; batch records (model
instances in hand) become the same tuples, so live events and loaded history convert alike.
"""

import dataclasses
from datetime import UTC, datetime
from decimal import Decimal
from operator import attrgetter

from common.pg import PG_EPOCH
from monitoring.engine.reads import FIAT_COLUMNS, TX_COLUMNS
from monitoring.rules import FiatEvent as RuleFiat
from monitoring.rules import Transaction as RuleTransaction
from monitoring.rules.context import EPOCH, ONE_MICROSECOND, Transfers

# Loaded history is the bulk of a batch's objects (tens of thousands of transfers), and the
# dataclass constructor (keyword parsing, frozen-attribute guard, __post_init__) is most of their
# cost. Rows from the database are already valid (timezone-aware, typed), so they are assembled
# through the slots directly: the same object the constructor makes, at a third of the cost. The
# shortcut checks itself at import against the constructor and stands aside if the engine's class
# has changed in any way it does not reproduce (tests/monitoring/test_engine_reads.py asserts it is on).
_FIELDS = ("id", "timestamp", "direction", "amount", "usd_value", "counterparty_address", "chain_id", "tx_hash", "from_address",
           "to_address", "asset", "counterparty_entity_id", "travel_rule_present", "counterparty_key")


_TX_VALUES = attrgetter(*TX_COLUMNS)


def tx_row(record) -> tuple:
    """A stored Transaction instance as a TX_COLUMNS tuple (ids as strings)."""
    (tx_id, at, chain_id, tx_hash, from_address, to_address, amount, asset, usd_value, from_entity,
     to_entity) = _TX_VALUES(record)
    return (str(tx_id), at, chain_id, tx_hash, from_address, to_address, amount, asset, usd_value,
            None if from_entity is None else str(from_entity), None if to_entity is None else str(to_entity))


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
    sender, receiver = row[9] == entity_id, row[10] == entity_id
    direction = "self" if sender and receiver else "out" if sender else "in"
    return _seen_as(row, direction, row[1], amount if amount is not None else Decimal(row[6]), row[8])


def _seen_as(row: tuple, direction: str, at: datetime, amount: Decimal, usd_value: Decimal | None) -> RuleTransaction:
    """The stored transfer as seen from the side `direction` names: its counterparty is the other side."""
    tx_id, _, chain_id, tx_hash, from_address, to_address, _, asset, _, from_entity, to_entity = row
    if direction == "in":
        counterparty, counterparty_entity = from_address, from_entity
    else:  # out, or self (both sides the entity's)
        counterparty, counterparty_entity = to_address, to_entity
    return _build(tx_id, at, direction, amount, usd_value, counterparty, chain_id, tx_hash, from_address, to_address, asset,
                  counterparty_entity)


def rule_fiat(row: tuple) -> RuleFiat:
    (event_id, _, at, event_type, amount, currency, usd_value, counterparty_name, counterparty_bank, card_type, mcc, country,
     check_type, check_number, deposit_method) = row
    return RuleFiat(
        id=event_id, timestamp=at, event_type=event_type, amount=amount, usd_value=usd_value, currency=currency,
        counterparty_name=counterparty_name, counterparty_bank=counterparty_bank, card_type=card_type or None,
        merchant_category_code=mcc or None, merchant_country=country or None, check_type=check_type or None,
        check_number=check_number or None, deposit_method=deposit_method or None,
    )


def _from_row(row: tuple, direction: str, usd_value: Decimal | None) -> RuleTransaction:
    """The transfer a `Transfers` column set holds at a position, made when a rule reads it."""
    return _seen_as(row, direction, PG_EPOCH + row[1] * ONE_MICROSECOND, Decimal(row[6]), usd_value)


def transfers_by_entity(rows: list[tuple], entity_ids: set[str]) -> dict[str, Transfers]:
    """Each entity's transfers among `rows` (reads.transactions: in time order, times as integers, usd_value as text),
    seen from that entity, as the columns the engine's windows read; a transfer between two of the
    entities is in both. Transfer objects are made only for the positions a rule reads. (This loop
    runs for every loaded history row: one pass, appends only.)"""
    columns: dict[str, tuple[list, list, list, list, list, list]] = {entity: ([], [], [], [], [], []) for entity in entity_ids}
    # The columns' bound append methods, per entity: no attribute look-up per row.
    appenders = {entity: tuple(column.append for column in entity_columns) for entity, entity_columns in columns.items()}
    shift, empty = (PG_EPOCH - EPOCH) // ONE_MICROSECOND, None  # from PostgreSQL's epoch to the engine's
    for row in rows:
        tx_id, pg_micros, chain_id, _, from_address, to_address, _, _, usd_text, from_entity, to_entity = row
        at_us, usd_value = pg_micros + shift, (None if usd_text is None else Decimal(usd_text))
        sender = appenders.get(from_entity, empty)
        if from_entity == to_entity:
            if sender is not None:
                add_at, add_id, add_usd, add_direction, add_key, add_row = sender
                add_at(at_us), add_id(tx_id), add_usd(usd_value), add_direction("self"), add_key((chain_id, to_address)), add_row(row)
            continue
        if sender is not None:
            add_at, add_id, add_usd, add_direction, add_key, add_row = sender
            add_at(at_us), add_id(tx_id), add_usd(usd_value), add_direction("out"), add_key((chain_id, to_address)), add_row(row)
        receiver = appenders.get(to_entity, empty)
        if receiver is not None:
            add_at, add_id, add_usd, add_direction, add_key, add_row = receiver
            add_at(at_us), add_id(tx_id), add_usd(usd_value), add_direction("in"), add_key((chain_id, from_address)), add_row(row)
    return {entity: Transfers(at=at_list, ids=ids, usd=usd, directions=directions, keys=keys, sources=sources, make=_from_row)
            for entity, (at_list, ids, usd, directions, keys, sources) in columns.items()}
