"""Handing a range's transfers to monitoring: each organization and mode whose registered wallet a transfer touches
gets it through the ingestion service of POST /v1/monitoring/transfers/batch (source `indexer`, the same idempotency
key; `transfer.detected`), and the block it was seen in is recorded (what a reorganisation orphans, and what
monitoring/indexer/confirm.py announces `transfer.confirmed` once deep enough)."""

from collections import defaultdict
from decimal import Decimal

from django.db import transaction as db_transaction

from common.pg import insert_ignoring_conflicts, on_postgres
from common.principal import Principal
from compliance.travel_rule.chain import Execution
from monitoring.amounts import canonical_amount
from monitoring.choices import Source
from monitoring.indexer.confirm import Confirmed
from monitoring.indexer.extract import Seen
from monitoring.ingestion.announce import announce_confirmed
from monitoring.ingestion.services import transactions_ingest_batch
from monitoring.models import IndexedToken, IndexedTransfer, Transaction
from organizations.models import Organization

# The native coin's label per chain id (the price table's asset); ETH elsewhere.
NATIVE_SYMBOLS = {80002: "POL", 137: "POL"}
NATIVE_DECIMALS = 18


def _whole(raw: int, decimals: int) -> str:
    return canonical_amount(format(Decimal(raw).scaleb(-decimals), "f"))


def as_item(chain_id: int, seen: Seen, tokens: dict[str, IndexedToken]) -> dict:
    """The ingestion item of a transfer: a registered token's (or the native coin's) amount in whole units and its
    symbol; an unregistered token's raw amount with its contract address as the asset (no price: the value rules
    skip it, and the transfer's evaluation says so)."""
    if not seen.token:
        asset, amount = NATIVE_SYMBOLS.get(chain_id, "ETH"), _whole(seen.raw_amount, NATIVE_DECIMALS)
    elif seen.token in tokens:
        token = tokens[seen.token]
        asset, amount = token.symbol, _whole(seen.raw_amount, token.decimals)
    else:
        asset, amount = seen.token, str(seen.raw_amount)
    return {"chain_id": chain_id, "tx_hash": seen.tx_hash, "log_index": seen.log_index, "from_address": seen.from_address,
            "to_address": seen.to_address, "amount": amount, "asset": asset, "timestamp": seen.timestamp}


def executions(chain_id: int, seen: list[Seen], tokens: dict[str, IndexedToken], head: int) -> list[Execution]:
    """The transfers as the travel rule matches them (compliance.travel_rule.chain), labelled as monitoring stores them."""
    found = []
    for transfer in seen:
        item = as_item(chain_id, transfer, tokens)
        found.append(Execution(chain_id, transfer.tx_hash, transfer.block_number, transfer.timestamp, transfer.from_address,
                               transfer.to_address, item["asset"], item["amount"], max(0, head - transfer.block_number),
                               transfer.commitment))
    return found


def deliver(chain_id: int, seen: list[Seen], registered: dict[str, set[tuple[str, str]]], tokens: dict[str, IndexedToken], *,
            deep: int = -1, confirmations: int = 0) -> dict:
    """Ingests each transfer for every (organization, mode) with a registered wallet on either side (`transfer.detected`
    from the ingestion service) and records the blocks of the newly stored ones. Those in blocks at or below `deep` (the
    head minus the chain's `confirmations`: a catch-up's) are recorded confirmed and announced `transfer.confirmed` at
    once; monitoring/indexer/confirm.py announces the others when their block is deep enough. Returns {"ingested",
    "skipped", "alerts", "restored", "confirmed"} summed over them."""
    groups: dict[tuple[str, str], list[Seen]] = defaultdict(list)
    for transfer in seen:
        for owner in registered.get(transfer.from_address, set()) | registered.get(transfer.to_address, set()):
            groups[owner].append(transfer)
    totals = {"ingested": 0, "skipped": 0, "alerts": 0, "restored": 0, "confirmed": 0}
    organizations = {str(org.pk): org for org in Organization.objects.filter(pk__in={organization_id for organization_id, _ in groups})}
    for (organization_id, mode), transfers in sorted(groups.items()):
        organization = organizations[organization_id]
        items = [as_item(chain_id, transfer, tokens) for transfer in transfers]
        totals["restored"] += _restore(organization, mode, chain_id, transfers)
        outcome = transactions_ingest_batch(principal=Principal.system(organization, mode), items=items, source=Source.INDEXER)
        totals["ingested"] += outcome.ingested
        totals["skipped"] += outcome.skipped
        totals["alerts"] += outcome.alerts_triggered
        totals["confirmed"] += _note_blocks(organization, mode, chain_id, transfers, outcome.records, deep, confirmations)
    return totals


def _stored(organization, mode: str, chain_id: int, transfers: list[Seen]):
    return Transaction.objects.filter(organization=organization, mode=mode, chain_id=chain_id,
                                      tx_hash__in={transfer.tx_hash for transfer in transfers})


def _restore(organization, mode: str, chain_id: int, transfers: list[Seen]) -> int:
    """Orphaned transfers seen again (the same transaction and index on the new branch) are live again, with their
    customers back; the ingest then skips them as stored. Looked for only when the organization has orphans (the partial
    index `transaction_orphaned`: no look-up by hash for each range)."""
    if not Transaction.objects.filter(organization=organization, mode=mode, orphaned=True, chain_id=chain_id).exists():
        return 0
    keys = {(transfer.tx_hash, transfer.log_index): transfer for transfer in transfers}
    restored = 0
    for record in _stored(organization, mode, chain_id, transfers).filter(orphaned=True).select_related("indexed"):
        transfer = keys.get((record.tx_hash, record.log_index))
        if transfer is None:
            continue
        indexed = record.indexed
        Transaction.objects.filter(pk=record.pk).update(orphaned=False, from_entity_id=indexed.from_entity_id,
                                                       to_entity_id=indexed.to_entity_id)
        IndexedTransfer.objects.filter(pk=indexed.pk).update(block_number=transfer.block_number, block_hash=transfer.block_hash)
        restored += 1
    return restored


def _note_blocks(organization, mode: str, chain_id: int, transfers: list[Seen], inserted: list[Transaction], deep: int,
                 confirmations: int) -> int:
    """Records the block of each transfer stored for the first time: those the ingest just `inserted` (from the rows in
    hand), and stored ones without a block (sent through the API before; looked up only when the ingest skipped some).
    Rows in blocks at or below `deep` go in confirmed, announced in the same database transaction. Returns how many."""
    keys = {(transfer.tx_hash, transfer.log_index): transfer for transfer in transfers}
    found = [(record.pk, record.tx_hash, record.log_index, record.from_entity_id, record.to_entity_id) for record in inserted]
    new = {(record.tx_hash, record.log_index) for record in inserted}
    left = [transfer for key, transfer in keys.items() if key not in new]
    if left:
        found += _stored(organization, mode, chain_id, left).filter(indexed__isnull=True).values_list(
            "pk", "tx_hash", "log_index", "from_entity_id", "to_entity_id")
    rows, hashes = [], []
    for pk, tx_hash, log_index, from_entity_id, to_entity_id in found:
        transfer = keys.get((tx_hash, log_index))
        if transfer is not None:
            hashes.append(tx_hash)
            rows.append(IndexedTransfer(transaction_id=pk, chain_id=chain_id, block_number=transfer.block_number,
                                        block_hash=transfer.block_hash, from_entity_id=from_entity_id, to_entity_id=to_entity_id,
                                        confirmed=transfer.block_number <= deep))
    with db_transaction.atomic():
        if on_postgres():  # one statement of a fixed size, whatever the number of rows
            went_in = insert_ignoring_conflicts(IndexedTransfer, rows)
        else:
            went_in = {row.pk for row in IndexedTransfer.objects.bulk_create(rows, ignore_conflicts=True)}
        confirmed = [Confirmed(row.transaction_id, row.from_entity_id, row.to_entity_id, chain_id, tx_hash, row.block_number)
                     for row, tx_hash in zip(rows, hashes, strict=True) if row.confirmed and row.pk in went_in]
        announce_confirmed(organization=organization, mode=mode, records=confirmed, confirmations=confirmations)
    return len(confirmed)
