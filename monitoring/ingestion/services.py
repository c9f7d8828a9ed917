"""Storing what clients submit (spec "Monitoring: data ingestion") and handing it to the engine.

Idempotency: a transaction is identified by (chain_id, tx_hash, log_index) within an organization
and mode. A single ingest of a known key returns the stored record and evaluates nothing; a batch
skips and counts duplicates, within itself and against storage; of concurrent identical posts the
database's unique constraint lets exactly one in. A fiat event with a `reference` is identified by
(event_type, reference) the same way.
"""

import hashlib
import json
from dataclasses import dataclass, field
from uuid import UUID

from django.db import IntegrityError, transaction

from common.errors import ValidationFailed
from common.permissions import require_role
from common.principal import Principal
from monitoring.choices import Source
from monitoring.engine.runner import monitor
from monitoring.ingestion.pricing import PriceBook
from monitoring.ingestion.resolution import existing_entity_ids, sides, wallet_owners
from monitoring.models import FiatEvent, Transaction
from onboarding.models import Wallet
from organizations.choices import Role

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


def _key(item: dict) -> tuple[int, str, int]:
    return item["chain_id"], item["tx_hash"], item["log_index"]


def _check_entities(principal: Principal, items: list[dict], field_name: str = "entity_id", prefix: str = "") -> None:
    wanted = {item[field_name] for item in items if item.get(field_name)}
    known = existing_entity_ids(organization=principal.organization, mode=principal.mode, ids=wanted)
    for index, item in enumerate(items):
        if item.get(field_name) and item[field_name] not in known:
            where = f"{prefix}{index}.{field_name}" if prefix else field_name
            raise ValidationFailed.for_field(where, "No entity of yours has this id.")


def _build_transactions(principal: Principal, items: list[dict], source: str) -> list[Transaction]:
    keys = {(i["chain_id"], i["from_address"]) for i in items} | {(i["chain_id"], i["to_address"]) for i in items}
    owners = wallet_owners(organization=principal.organization, mode=principal.mode, keys=keys)
    prices = PriceBook(principal.organization)
    records = []
    for item in items:
        from_entity, to_entity = sides(from_key=(item["chain_id"], item["from_address"]),
                                       to_key=(item["chain_id"], item["to_address"]), owners=owners, entity_id=item.get("entity_id"))
        records.append(Transaction(
            organization=principal.organization, mode=principal.mode, chain_id=item["chain_id"], tx_hash=item["tx_hash"],
            log_index=item["log_index"], from_address=item["from_address"], to_address=item["to_address"],
            amount=item["amount"], asset=item.get("asset", ""), usd_value=prices.transaction_value(item["amount"], item.get("asset", "")),
            timestamp=item["timestamp"], reference=item.get("reference", ""), from_entity_id=from_entity,
            to_entity_id=to_entity, source=source,
        ))
    return records


def _note_first_seen(records: list[Transaction]) -> None:
    """Registered wallets remember their earliest transfer (rule 9's "first seen"): one read and
    one bulk update per batch."""
    earliest: dict[tuple[int, str], object] = {}
    for tx in records:
        for entity_id, address in ((tx.from_entity_id, tx.from_address), (tx.to_entity_id, tx.to_address)):
            if entity_id:
                key = (tx.chain_id, address)
                earliest[key] = min(earliest.get(key, tx.timestamp), tx.timestamp)
    if not earliest:
        return
    first = records[0]
    changed = []
    wallets = Wallet.objects.filter(organization_id=first.organization_id, mode=first.mode,
                                    address__in={address for _, address in earliest})
    for wallet in wallets.only("pk", "chain_id", "address", "first_seen_at"):
        at = earliest.get((wallet.chain_id, wallet.address))
        if at is not None and (wallet.first_seen_at is None or at < wallet.first_seen_at):
            wallet.first_seen_at = at
            changed.append(wallet)
    Wallet.objects.bulk_update(changed, ["first_seen_at"], batch_size=500)


def _with_hashes(items: list[dict]) -> list[dict]:
    return [{**item, "tx_hash": item.get("tx_hash") or generated_tx_hash(item), "log_index": item.get("log_index", 0)} for item in items]


def transaction_ingest(*, principal: Principal, item: dict, run_monitoring: bool = True, source: str = Source.API) -> Ingested:
    require_role(principal, INGEST_ROLE)
    item = _with_hashes([item])[0]
    _check_entities(principal, [item])
    existing = _stored(principal, item)
    if existing is not None:
        return Ingested(existing, created=False)
    try:
        with transaction.atomic():
            record = _build_transactions(principal, [item], source)[0]
            record.save(force_insert=True)
            _note_first_seen([record])
            alerts = monitor(organization=principal.organization, mode=principal.mode, transactions=[record]) if run_monitoring else 0
            return Ingested(record, created=True, alerts_triggered=alerts)
    except IntegrityError:  # a concurrent identical post won the insert
        return Ingested(_stored(principal, item), created=False)


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
    stored = _stored_keys(principal, items)
    for item in items:
        if _key(item) in seen or _key(item) in stored:
            continue
        seen.add(_key(item))
        fresh.append(item)
    with transaction.atomic():
        records = _build_transactions(principal, fresh, source)
        Transaction.objects.bulk_create(records, ignore_conflicts=True)
        inserted = _inserted(Transaction, records)  # a concurrent batch may have stored some first
        records = [r for r in records if r.pk in inserted]
        _note_first_seen(records)
        alerts = 0
        if run_monitoring and records:
            alerts = monitor(organization=principal.organization, mode=principal.mode, transactions=records)
    return BatchOutcome(ingested=len(records), skipped=len(items) - len(records), alerts_triggered=alerts, records=records)


def _stored_keys(principal: Principal, items: list[dict]) -> set[tuple[int, str, int]]:
    hashes = {item["tx_hash"] for item in items}
    rows = Transaction.objects.filter(organization=principal.organization, mode=principal.mode, tx_hash__in=hashes).values_list(
        "chain_id", "tx_hash", "log_index")
    return set(rows)


def _inserted(model, records) -> set[UUID]:
    return set(model.objects.filter(pk__in=[r.pk for r in records]).values_list("pk", flat=True)) if records else set()


# --- Fiat events -------------------------------------------------------------------------------

FIAT_FIELDS = ("event_type", "amount", "currency", "counterparty_name", "counterparty_bank", "reference", "card_type",
               "merchant_category_code", "merchant_country", "check_type", "check_number", "deposit_method")


def fiat_event_ingest(*, principal: Principal, item: dict, run_monitoring: bool = True, source: str = Source.API) -> Ingested:
    require_role(principal, INGEST_ROLE)
    _check_entities(principal, [item])
    existing = _stored_fiat(principal, item)
    if existing is not None:
        return Ingested(existing, created=False)
    try:
        with transaction.atomic():
            record = _build_fiat(principal, item, source)
            record.save(force_insert=True)
            alerts = monitor(organization=principal.organization, mode=principal.mode, fiat_events=[record]) if run_monitoring else 0
            return Ingested(record, created=True, alerts_triggered=alerts)
    except IntegrityError:
        return Ingested(_stored_fiat(principal, item), created=False)


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
    return FiatEvent.objects.filter(organization=principal.organization, mode=principal.mode, event_type=item["event_type"],
                                    reference=item["reference"]).first()


def fiat_events_store(*, principal: Principal, items: list[dict], source: str = Source.BACKFILL) -> BatchOutcome:
    """Backfill: store fiat events without evaluating them, skipping known references."""
    require_role(principal, INGEST_ROLE)
    _check_entities(principal, items, prefix="events.")
    prices = PriceBook(principal.organization)
    records = [_build_fiat(principal, item, source, prices) for item in items if _stored_fiat(principal, item) is None]
    with transaction.atomic():
        FiatEvent.objects.bulk_create(records, ignore_conflicts=True)
        inserted = _inserted(FiatEvent, records)
    return BatchOutcome(ingested=len(inserted), skipped=len(items) - len(inserted))

