"""Storing what clients submit (README, "Sending transfers and fiat events") and handing it to the engine.

Idempotency: a transaction is identified by (chain_id, tx_hash, log_index) within an organization
and mode. A single ingest of a known key returns the stored record and evaluates nothing; a batch
skips and counts duplicates, within itself and against storage; of concurrent identical posts the
database's unique constraint lets exactly one in. A fiat event with a `reference` is identified by
(entity, event_type, reference) the same way; a repeat whose amount, currency or time differ is a
409 rather than a silent duplicate (the reference was reused for another event).
"""

import hashlib
import json
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import IntegrityError, transaction

from common.errors import Conflict, ValidationFailed
from common.permissions import require_role
from common.pg import insert_new, on_postgres
from common.principal import Principal
from monitoring.choices import Source
from monitoring.engine.gcpause import gc_paused
from monitoring.engine.runner import monitor
from monitoring.ingestion.announce import announce_transfers
from monitoring.ingestion.pricing import PriceBook
from monitoring.ingestion.resolution import existing_entity_ids
from monitoring.ingestion.retry import in_retried_transaction
from monitoring.ingestion.storing import build_transactions, note_first_seen, wallets_of
from monitoring.models import FiatEvent, Transaction
from organizations.choices import Role
from webhooks.services import endpoints_read_once

INGEST_ROLE = Role.L1_ANALYST


@dataclass
class Ingested:
    record: Transaction | FiatEvent
    created: bool
    alerts_triggered: int = 0


@dataclass
class BatchOutcome:
    ingested: int = 0
    skipped: int = 0
    alerts_triggered: int = 0
    records: list[Transaction] = field(default_factory=list)


def generated_tx_hash(item: dict) -> str:
    """A stable hash of the transfer's content: a retried post without tx_hash is the same
    transaction (send `reference` or `tx_hash` to tell apart two identical transfers)."""
    content = [item["chain_id"], item["from_address"], item["to_address"], item["amount"], item.get("asset", ""),
               item["timestamp"].isoformat(), item.get("reference", "")]
    return "gen_" + hashlib.sha256(json.dumps(content).encode()).hexdigest()[:60]


def _ingesting(work):
    """`work()` in its own transaction (retried when chosen as a deadlock victim), with the webhook
    endpoints read once in it: an ingest may announce its transfers, then open alerts and a case,
    each emitting events."""
    def with_endpoints_once():
        with endpoints_read_once():
            return work()

    return in_retried_transaction(with_endpoints_once)


def _key(item: dict) -> tuple[int, str, int]:
    return item["chain_id"], item["tx_hash"], item["log_index"]


def _check_entities(principal: Principal, items: list[dict], field_name: str = "entity_id", prefix: str = "") -> None:
    wanted = {item[field_name] for item in items if item.get(field_name)}
    known = existing_entity_ids(organization=principal.organization, mode=principal.mode, ids=wanted)
    for index, item in enumerate(items):
        if item.get(field_name) and item[field_name] not in known:
            where = f"{prefix}{index}.{field_name}" if prefix else field_name
            raise ValidationFailed.for_field(where, f"No entity of yours has this id (these credentials see {principal.mode}-mode "
                                                    "records only).")


def _with_hashes(items: list[dict]) -> list[dict]:
    return [{**item, "tx_hash": item.get("tx_hash") or generated_tx_hash(item), "log_index": item.get("log_index", 0)} for item in items]


def transaction_ingest(*, principal: Principal, item: dict, run_monitoring: bool = True, source: str = Source.API) -> Ingested:
    require_role(principal, INGEST_ROLE)
    item = _with_hashes([item])[0]
    _check_entities(principal, [item])
    if not on_postgres():  # PostgreSQL's insert tells by itself whether the key was stored before
        existing = _stored(principal, item)
        if existing is not None:
            return Ingested(existing, created=False)

    def store_and_monitor() -> Ingested | None:
        wallets = wallets_of(principal, [item])
        records = insert_new(Transaction, build_transactions(principal, [item], source, wallets, monitored=run_monitoring))
        if not records:
            return None  # stored before, or a concurrent identical post won the insert
        seen = note_first_seen(records, wallets)
        announce_transfers(organization=principal.organization, mode=principal.mode, records=records)
        if not run_monitoring:
            return Ingested(records[0], created=True)
        alerts = monitor(organization=principal.organization, mode=principal.mode, transactions=records, wallets=seen)
        return Ingested(records[0], created=True, alerts_triggered=alerts)

    try:
        outcome = _ingesting(store_and_monitor)
    except IntegrityError:  # a concurrent identical post won the insert
        outcome = None
    return outcome or Ingested(_stored(principal, item), created=False)


def _stored(principal: Principal, item: dict) -> Transaction | None:
    chain_id, tx_hash, log_index = _key(item)
    return Transaction.objects.filter(organization=principal.organization, mode=principal.mode, chain_id=chain_id,
                                      tx_hash=tx_hash, log_index=log_index).first()


def transactions_ingest_batch(*, principal: Principal, items: list[dict], run_monitoring: bool = True,
                              source: str = Source.API) -> BatchOutcome:
    require_role(principal, INGEST_ROLE)
    items = _with_hashes(items)
    _check_entities(principal, items, prefix="transactions.")
    fresh, seen = [], set()
    # PostgreSQL's insert skips stored keys itself and says which rows went in; elsewhere they are looked up first.
    stored = set() if on_postgres() else _stored_keys(principal, items)
    for item in items:
        if _key(item) in seen or _key(item) in stored:
            continue
        seen.add(_key(item))
        fresh.append(item)
    def store_and_monitor() -> tuple[list[Transaction], int]:
        wallets = wallets_of(principal, fresh)
        records = build_transactions(principal, fresh, source, wallets, monitored=run_monitoring)
        records = insert_new(Transaction, records)  # stored before, or by a concurrent batch: left out
        seen = note_first_seen(records, wallets)
        if source != Source.BACKFILL:
            announce_transfers(organization=principal.organization, mode=principal.mode, records=records)
        if not (run_monitoring and records):
            return records, 0
        return records, monitor(organization=principal.organization, mode=principal.mode, transactions=records, wallets=seen)

    with gc_paused():
        records, alerts = _ingesting(store_and_monitor)
    return BatchOutcome(ingested=len(records), skipped=len(items) - len(records), alerts_triggered=alerts, records=records)


def _stored_keys(principal: Principal, items: list[dict]) -> set[tuple[int, str, int]]:
    hashes = {item["tx_hash"] for item in items}
    rows = Transaction.objects.filter(organization=principal.organization, mode=principal.mode, tx_hash__in=hashes).values_list(
        "chain_id", "tx_hash", "log_index")
    return set(rows)


# --- Fiat events -------------------------------------------------------------------------------

FIAT_FIELDS = ("event_type", "amount", "currency", "counterparty_name", "counterparty_bank", "reference", "card_type",
               "merchant_category_code", "merchant_country", "check_type", "check_number", "deposit_method")


def fiat_event_ingest(*, principal: Principal, item: dict, run_monitoring: bool = True, source: str = Source.API) -> Ingested:
    require_role(principal, INGEST_ROLE)
    _check_entities(principal, [item])
    existing = _stored_fiat(principal, item)
    if existing is not None:
        return Ingested(_same_fiat(existing, item), created=False)

    def store_and_monitor() -> Ingested:
        record = _build_fiat(principal, item, source)
        record.monitored = run_monitoring  # evaluated below, in this transaction
        record.save(force_insert=True)
        alerts = monitor(organization=principal.organization, mode=principal.mode, fiat_events=[record]) if run_monitoring else 0
        return Ingested(record, created=True, alerts_triggered=alerts)

    try:
        return _ingesting(store_and_monitor)
    except IntegrityError:
        return Ingested(_same_fiat(_stored_fiat(principal, item), item), created=False)


def _build_fiat(principal: Principal, item: dict, source: str, prices: PriceBook | None = None) -> FiatEvent:
    prices = prices or PriceBook(principal.organization)
    return FiatEvent(
        organization=principal.organization, mode=principal.mode, entity_id=item["entity_id"], timestamp=item["event_timestamp"],
        usd_value=prices.fiat_value(item["amount"], item.get("currency", "USD")), source=source,
        **{name: item[name] for name in FIAT_FIELDS if item.get(name) is not None},
    )


def _stored_fiat(principal: Principal, item: dict) -> FiatEvent | None:
    if not item.get("reference"):
        return None
    return FiatEvent.objects.filter(organization=principal.organization, mode=principal.mode, entity_id=item["entity_id"],
                                    event_type=item["event_type"], reference=item["reference"]).first()


def _fiat_key(item: dict) -> tuple:
    return str(item["entity_id"]), item["event_type"], item.get("reference") or ""


def _stored_fiat_keys(principal: Principal, items: list[dict]) -> set[tuple]:
    """The (entity, type, reference) keys of the items that are stored already, in one query (a
    backfill chunk's thousand look-ups were a third of its time)."""
    references = {item["reference"] for item in items if item.get("reference")}
    if not references:
        return set()
    rows = FiatEvent.objects.filter(organization=principal.organization, mode=principal.mode, reference__in=references).values_list(
        "entity_id", "event_type", "reference")
    return {(str(entity_id), event_type, reference) for entity_id, event_type, reference in rows}


def _same_fiat(stored: FiatEvent, item: dict) -> FiatEvent:
    """The stored event when the repeat describes it, else a 409 naming what differs."""
    sent = {"amount": Decimal(item["amount"]), "currency": item.get("currency", "USD"), "event_timestamp": item["event_timestamp"]}
    found = {"amount": stored.amount, "currency": stored.currency, "event_timestamp": stored.timestamp}
    differing = [name for name in sent if sent[name] != found[name]]
    if differing:
        raise Conflict(f"This entity already has a {stored.event_type} with reference {stored.reference!r} (id {stored.pk}) whose "
                       f"{' and '.join(differing)} {'differ' if len(differing) > 1 else 'differs'}; send a new reference for a new event.")
    return stored


def fiat_events_store(*, principal: Principal, items: list[dict], source: str = Source.BACKFILL) -> BatchOutcome:
    """Backfill: store fiat events without evaluating them, skipping known references."""
    require_role(principal, INGEST_ROLE)
    _check_entities(principal, items, prefix="events.")
    prices = PriceBook(principal.organization)
    stored = _stored_fiat_keys(principal, items)
    records = [_build_fiat(principal, item, source, prices) for item in items if _fiat_key(item) not in stored]
    with transaction.atomic():
        inserted = insert_new(FiatEvent, records)
    return BatchOutcome(ingested=len(inserted), skipped=len(items) - len(inserted))

