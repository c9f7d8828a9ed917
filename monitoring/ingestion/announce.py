"""`transfer.detected`: the webhook event of each transfer of a customer the API records
(docs/webhooks.md, event types), one per customer side, in the ingesting transaction; and
`transfer.confirmed` for each transfer the chain indexer stored from a block the chain's confirmations
deep (docs/indexer.md), one per customer side too.

Written only when an enabled endpoint of the organization and mode subscribes to the type: events
exist to be delivered (the API lists none), and a busy ingestion without such an endpoint should not
write a row per transfer that nothing reads. Backfilled history is not announced.
"""

from django.utils import timezone

from monitoring.models import Transaction
from webhooks.services import events_emit, has_subscribers

TRANSFER_DETECTED = "transfer.detected"
TRANSFER_CONFIRMED = "transfer.confirmed"


def _per_side(records: list, data) -> list[tuple[dict, str]]:
    return [data(record, entity_id) for record in records
            for entity_id in dict.fromkeys(side for side in (record.from_entity_id, record.to_entity_id) if side)]


def announce_transfers(*, organization, mode: str, records: list[Transaction]) -> None:
    if not records or not has_subscribers(organization=organization, mode=mode, type=TRANSFER_DETECTED):
        return
    detected_at = timezone.now()
    events = _per_side(records, lambda record, entity_id: (TRANSFER_DETECTED, {
        "transfer_id": record.pk, "entity_id": entity_id, "chain_id": record.chain_id, "tx_hash": record.tx_hash,
        "from_address": record.from_address, "to_address": record.to_address, "amount": record.amount,
        "asset": record.asset or None, "detected_at": detected_at}))
    events_emit(organization=organization, mode=mode, events=events)


def announce_confirmed(*, organization, mode: str, records: list, confirmations: int) -> None:
    """`records`: indexed transfers (pk, from_entity_id, to_entity_id, chain_id, tx_hash, block_number) whose block is
    `confirmations` deep or more."""
    if not records or not has_subscribers(organization=organization, mode=mode, type=TRANSFER_CONFIRMED):
        return
    confirmed_at = timezone.now()
    events = _per_side(records, lambda record, entity_id: (TRANSFER_CONFIRMED, {
        "transfer_id": record.pk, "entity_id": entity_id, "chain_id": record.chain_id, "tx_hash": record.tx_hash,
        "block_number": record.block_number, "confirmations": confirmations, "confirmed_at": confirmed_at}))
    events_emit(organization=organization, mode=mode, events=events)
