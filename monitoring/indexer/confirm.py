"""`transfer.confirmed` for indexed transfers whose block reached the chain's confirmations after they were stored
(those already deep enough when stored, a catch-up's, are confirmed as they are recorded: delivery._note_blocks).

The indexer stores (and monitors, announcing `transfer.detected`) a transfer as soon as its block is read, up to the
node's head; this announces it confirmed once its block is `confirmations` deep, exactly once: the row's `confirmed`
flag is set in the same database transaction as the events are written. A transfer orphaned by a reorganisation
before that is not announced (it is confirmed if the same transfer comes back on the new branch and gets deep
enough). The run holds the chain's lock, so no other run confirms the same rows."""

from collections import defaultdict, namedtuple

from django.db import transaction

from monitoring.ingestion.announce import announce_confirmed
from monitoring.models import IndexedTransfer
from organizations.models import Organization

Confirmed = namedtuple("Confirmed", "pk from_entity_id to_entity_id chain_id tx_hash block_number")


def confirm_through(chain_id: int, block: int, confirmations: int) -> int:
    """Announces the live indexed transfers of the chain up to `block` (the head minus the confirmations) not yet
    announced, one batch per organization and mode. Returns how many."""
    with transaction.atomic():
        pending = IndexedTransfer.objects.filter(chain_id=chain_id, confirmed=False, block_number__lte=block)
        rows = list(pending.filter(transaction__orphaned=False).values_list(
            "pk", "transaction_id", "transaction__organization_id", "transaction__mode", "from_entity_id", "to_entity_id",
            "transaction__tx_hash", "block_number"))
        if not rows:
            return 0
        IndexedTransfer.objects.filter(pk__in=[row[0] for row in rows]).update(confirmed=True)
        groups = defaultdict(list)
        for _, transaction_id, organization_id, mode, from_entity_id, to_entity_id, tx_hash, block_number in rows:
            groups[(organization_id, mode)].append(Confirmed(transaction_id, from_entity_id, to_entity_id, chain_id, tx_hash, block_number))
        organizations = Organization.objects.in_bulk({organization_id for organization_id, _ in groups})
        for (organization_id, mode), records in groups.items():
            announce_confirmed(organization=organizations[organization_id], mode=mode, records=records, confirmations=confirmations)
    return len(rows)
