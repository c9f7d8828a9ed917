"""`transfer.detected`: the webhook event of each transfer of a customer the API records
(docs/webhooks.md, event types), one per customer side, in the ingesting transaction.

Written only when an enabled endpoint of the organization and mode subscribes to the type: events
exist to be delivered (the API lists none), and a busy ingestion without such an endpoint should not
write a row per transfer that nothing reads. Backfilled history is not announced.
"""

from django.utils import timezone

from monitoring.models import Transaction
from webhooks.services import events_emit, has_subscribers

TRANSFER_DETECTED = "transfer.detected"


def announce_transfers(*, organization, mode: str, records: list[Transaction]) -> None:
    if not records or not has_subscribers(organization=organization, mode=mode, type=TRANSFER_DETECTED):
        return
    detected_at = timezone.now()
    events = [
        (TRANSFER_DETECTED, {
            "transfer_id": record.pk, "entity_id": entity_id, "chain_id": record.chain_id, "tx_hash": record.tx_hash,
            "from_address": record.from_address, "to_address": record.to_address, "amount": record.amount,
            "asset": record.asset or None, "detected_at": detected_at,
        })
        for record in records
        for entity_id in dict.fromkeys(side for side in (record.from_entity_id, record.to_entity_id) if side)
    ]
    events_emit(organization=organization, mode=mode, events=events)
