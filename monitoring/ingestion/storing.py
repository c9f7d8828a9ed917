"""Turning validated transfers into stored rows: sides resolved from registered wallets, USD value
from the price table, one insert per batch that tells which rows went in (a duplicate against
storage or a concurrent batch is left out), and the wallets' first-seen times (rule 9)."""

from datetime import datetime
from uuid import UUID

from common.pg import on_postgres, pg_rows, uuid_list
from monitoring.ingestion.pricing import PriceBook
from monitoring.ingestion.resolution import RegisteredWallet, registered_wallets, sides
from monitoring.models import Transaction
from onboarding.models import Wallet

# Only ever moves first_seen_at earlier, so concurrent batches commute.
FIRST_SEEN_SQL = """UPDATE onboarding_wallet AS w SET first_seen_at = v.at
FROM unnest(%(ids)b::uuid[], %(ats)b::timestamptz[]) AS v(id, at)
WHERE w.id = v.id AND (w.first_seen_at IS NULL OR w.first_seen_at > v.at) RETURNING w.id"""


def wallets_of(principal, items: list[dict]) -> dict[tuple[int, str], RegisteredWallet]:
    keys = {(i["chain_id"], i["from_address"]) for i in items} | {(i["chain_id"], i["to_address"]) for i in items}
    return registered_wallets(organization=principal.organization, mode=principal.mode, keys=keys)


def build_transactions(principal, items: list[dict], source: str, wallets: dict, *, monitored: bool = False) -> list[Transaction]:
    """Unsaved records. `monitored` is set when the caller evaluates them in the same database transaction."""
    owners = {key: wallet.entity_id for key, wallet in wallets.items()}
    prices = PriceBook(principal.organization)
    records = []
    for item in items:
        chain_id, asset = item["chain_id"], item.get("asset", "")
        from_entity, to_entity = sides(from_key=(chain_id, item["from_address"]), to_key=(chain_id, item["to_address"]),
                                       owners=owners, entity_id=item.get("entity_id"))
        records.append(_new_transaction({
            "organization_id": principal.organization.pk, "mode": principal.mode, "chain_id": chain_id, "tx_hash": item["tx_hash"],
            "log_index": item["log_index"], "from_address": item["from_address"], "to_address": item["to_address"],
            "amount": item["amount"], "asset": asset, "usd_value": prices.transaction_value(item["amount"], asset),
            "timestamp": item["timestamp"], "reference": item.get("reference", ""), "from_entity_id": from_entity,
            "to_entity_id": to_entity, "source": source, "monitored": monitored,
        }))
    return records


_TX_FIELDS = Transaction._meta.concrete_fields


def _new_transaction(values: dict) -> Transaction:
    """Transaction(**values), through the model's positional fast path (a third of the cost for a
    batch of a thousand); fields not given get their defaults (the time-ordered id)."""
    return Transaction(*[values[f.attname] if f.attname in values else f.get_default() for f in _TX_FIELDS])


def note_first_seen(records: list[Transaction], wallets: dict[tuple[int, str], RegisteredWallet]) -> list[tuple]:
    """Registered wallets remember their earliest transfer (rule 9's "first seen"), from the wallet
    rows read for resolution: at most one UPDATE, for the wallets whose time moves earlier. Returns
    the wallets as the engine reads them (reads.registered_wallets' rows), first-seen times moved,
    so that evaluating the batch in this transaction need not read them again."""
    earliest: dict[UUID, datetime] = {}
    for tx in records:
        for key in ((tx.chain_id, tx.from_address), (tx.chain_id, tx.to_address)):
            wallet = wallets.get(key)
            if wallet is not None and (wallet.first_seen_at is None or tx.timestamp < wallet.first_seen_at):
                earliest[wallet.pk] = min(earliest.get(wallet.pk, tx.timestamp), tx.timestamp)
    engine_rows = [(chain_id, address, str(wallet.entity_id), wallet.flagged, wallet.created_at,
                    earliest.get(wallet.pk, wallet.first_seen_at)) for (chain_id, address), wallet in wallets.items()]
    if not earliest:
        return engine_rows
    ordered = sorted(earliest)  # one lock order for every batch
    if on_postgres():
        pg_rows(FIRST_SEEN_SQL, {"ids": uuid_list(ordered), "ats": [earliest[pk] for pk in ordered]})
        return engine_rows
    for pk in ordered:
        Wallet.objects.filter(pk=pk).exclude(first_seen_at__lte=earliest[pk]).update(first_seen_at=earliest[pk])
    return engine_rows
