"""Reorganisations: the cursor's window of (number, hash, parent hash) against the node's blocks, the fork point,
and orphaning what was indexed above it."""

import logging

from django.db import transaction
from django.utils import timezone

from compliance.travel_rule.chain import executions_orphaned
from monitoring.alerts.hooks import after_orphaned
from monitoring.indexer.rpc import ChainRpc, IndexerError
from monitoring.models import ChainCursor, IndexedTransfer, Transaction

logger = logging.getLogger(__name__)


class DeepReorg(IndexerError):
    """No block of the window is on the node's branch any more: the chain stops until an operator reindexes."""


def fork_point(rpc: ChainRpc, window: list) -> int | None:
    """None when the window's newest block is still the node's; else the newest window block the node still has
    (where the new branch forks off). DeepReorg when none is."""
    if not window:
        return None
    number, block_hash, _ = window[-1]
    if rpc.block_hash(number) == block_hash:
        return None
    for number, block_hash, _ in reversed(window[:-1]):
        if rpc.block_hash(number) == block_hash:
            return number
    raise DeepReorg(f"reorganisation deeper than the window: none of blocks {window[0][0]}..{window[-1][0]} is on the node's "
                    f"branch any more; the chain is stopped (manage.py reindex --chain <id> --from-block <n>, then clear `stopped`)")


def orphan_above(cursor: ChainCursor, fork: int) -> int:
    """Marks the transfers indexed from blocks above `fork` orphaned (their customers cleared: out of every rule's
    history), rewinds the cursor to `fork` and logs the reorganisation. Returns the transfers orphaned."""
    depth = (cursor.last_block or fork) - fork
    with transaction.atomic():
        above = IndexedTransfer.objects.filter(chain_id=cursor.chain.chain_id, block_number__gt=fork)
        ids = list(above.values_list("transaction_id", flat=True))
        live = Transaction.objects.filter(pk__in=ids, orphaned=False)
        live_ids, hashes = [], set()
        for pk, tx_hash in live.values_list("pk", "tx_hash"):
            live_ids.append(pk)
            hashes.add(tx_hash)
        orphaned = Transaction.objects.filter(pk__in=live_ids).update(orphaned=True, from_entity=None, to_entity=None)
        after_orphaned(transaction_ids=live_ids, chain_id=cursor.chain.chain_id, fork=fork)
        reopened = executions_orphaned(chain_id=cursor.chain.chain_id, tx_hashes=hashes, fork=fork)
        cursor.last_block = fork
        cursor.window = [entry for entry in cursor.window if entry[0] <= fork]
        seen = {"at": timezone.now().isoformat(), "fork_block": fork, "depth": depth, "orphaned": orphaned,
                "travel_rule_reopened": reopened}
        cursor.reorgs = [*cursor.reorgs, seen][-100:]
        cursor.save(update_fields=["last_block", "window", "reorgs", "updated_at"])
    logger.warning("indexer: chain %s reorganised above block %s (depth %s): %s transfers orphaned", cursor.chain.chain_id, fork, depth,
                   orphaned)
    return orphaned


def stop(cursor: ChainCursor, error: Exception) -> None:
    logger.error("indexer: chain %s STOPPED: %s", cursor.chain.chain_id, error)
    cursor.stopped = True
    cursor.last_error = str(error)[:2000]
    cursor.save(update_fields=["stopped", "last_error", "updated_at"])
