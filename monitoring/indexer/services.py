"""An indexing pass of one chain and a reindex, under the chain's lock (docs/indexer.md).

A pass: take the lock; check the window against the node (a mismatch orphans above the fork point and rewinds; a
mismatch deeper than the window stops the chain); then index from the cursor up to the node's head, a range at a
time: read it, hand its transfers to monitoring (stored, monitored and `transfer.detected` at once), and move the
cursor (and the window) past it. `transfer.confirmed` goes out for the transfers of earlier runs whose block is now the
chain's confirmations deep, once per pass, and for this run's deep ones as they are recorded. A run that fails
resumes from the cursor: the ingest skips what was stored before."""

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from compliance.models import Chain
from compliance.onchain.publisher.common import connect
from compliance.travel_rule.chain import transfers_executed
from monitoring.indexer import selectors
from monitoring.indexer.confirm import confirm_through
from monitoring.indexer.delivery import deliver, executions
from monitoring.indexer.extract import RangeReader
from monitoring.indexer.reorg import DeepReorg, fork_point, orphan_above, stop
from monitoring.indexer.rpc import ChainRpc, RangeTooWide
from monitoring.models import ChainCursor

logger = logging.getLogger(__name__)


@dataclass
class PassResult:
    chain_id: int
    start: int | None = None
    end: int | None = None  # the last block indexed in this run
    target: int | None = None  # the node's head
    transfers: int = 0  # transfers read that touch a registered wallet
    ingested: int = 0  # rows stored (over all organizations)
    skipped: int = 0  # rows stored before
    alerts: int = 0
    confirmed: int = 0  # transfers announced `transfer.confirmed`
    orphaned: int = 0
    ranges: list[tuple[int, int]] = field(default_factory=list)
    narrowed: int = 0  # ranges the node refused or timed out on, tried again at half the span
    retries: int = 0  # calls tried again after an error
    behind: bool = False  # the target is not reached: run again
    skipped_reason: str = ""
    error: str = ""


@contextmanager
def chain_lock(chain: Chain):
    """The chain's cursor, leased to this run (None when another run holds it); the lease ends with the block, or by
    itself INDEXER_LEASE_SECONDS after the run last moved the cursor (a killed worker)."""
    cursor = selectors.cursor_of(chain)
    taken = ChainCursor.objects.filter(pk=cursor.pk).filter(Q(lease_until__isnull=True) | Q(lease_until__lt=timezone.now())).update(
        lease_until=_lease_end())
    if not taken:
        yield None
        return
    try:
        cursor.refresh_from_db()
        yield cursor
    finally:
        ChainCursor.objects.filter(pk=cursor.pk).update(lease_until=None)


def _lease_end():
    return timezone.now() + timedelta(seconds=settings.INDEXER_LEASE_SECONDS)


def _window_size(cursor: ChainCursor) -> int:
    """Blocks of the unfinalised window: `reorg_window`, and never fewer than the blocks not yet confirmed."""
    return max(1, cursor.reorg_window, cursor.chain.confirmations + 1)


def _advance(cursor: ChainCursor, blocks) -> None:
    """The cursor and the window past `blocks`; the lease renewed (a long run keeps its lock). The window holds at least
    the blocks not yet confirmed, whatever `reorg_window` says: a reorganisation of any of them is seen."""
    cursor.last_block, cursor.last_block_time = blocks[-1].number, blocks[-1].timestamp
    window = cursor.window + [[block.number, block.hash, block.parent_hash] for block in blocks]
    cursor.window = window[-_window_size(cursor):]
    cursor.lease_until = _lease_end()
    cursor.save(update_fields=["last_block", "last_block_time", "window", "lease_until", "updated_at"])


def _index(rpc: ChainRpc, cursor: ChainCursor, end: int, result: PassResult, progress: Callable | None,
           deadline: float | None = None) -> None:
    """Ranges from the cursor up to `end`, each read, delivered, then the cursor moved past it; no range is begun after
    `deadline` (time.monotonic(); the first range always is): the run ends behind and is enqueued again.

    The node is read one range ahead: while a range is delivered (the database's work), the next one is read on a
    thread of its own (the node's), building on the last block read. Only that thread calls the node while a run reads."""
    chain = cursor.chain
    registered, tokens = selectors.registrations(chain.chain_id), selectors.tokens(chain)
    head = result.target
    reader = RangeReader(rpc, set(registered), chunk=settings.INDEXER_WALLET_CHUNK, local_above=settings.INDEXER_LOCAL_FILTER_ABOVE,
                         by_hash_from=head - _window_size(cursor) + 1)

    def out_of_time() -> bool:
        return deadline is not None and bool(result.ranges) and time.monotonic() > deadline

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"indexer-{chain.chain_id}") as node:
        ahead = None  # (start, stop_at, the read under way)
        try:
            while True:
                start = cursor.last_block + 1 if cursor.last_block is not None else cursor.start_block
                if start > end or out_of_time():
                    return
                if ahead is not None and ahead[0] == start:
                    _, stop_at, reading = ahead
                else:
                    stop_at = min(end, start + rpc.span - 1)
                    parent = cursor.window[-1][1] if cursor.window and cursor.window[-1][0] == start - 1 else ""
                    reading = node.submit(reader.read, start, stop_at, parent)
                ahead = None
                try:
                    blocks, seen = reading.result()
                except RangeTooWide as refusal:
                    if stop_at == start:
                        raise
                    rpc.narrow(stop_at - start + 1)
                    result.narrowed += 1
                    logger.info("indexer: chain %s range %s-%s refused (%s): span now %s", chain.chain_id, start, stop_at, refusal,
                                rpc.span)
                    continue
                following = stop_at + 1
                if following <= end and not out_of_time():
                    last = min(end, following + rpc.span - 1)
                    ahead = (following, last, node.submit(reader.read, following, last, blocks[-1].hash))
                totals = deliver(chain.chain_id, seen, registered, tokens, deep=head - chain.confirmations,
                                 confirmations=chain.confirmations)
                transfers_executed(executions(chain.chain_id, seen, tokens, head))
                _advance(cursor, blocks)
                result.confirmed += totals["confirmed"]
                result.start = start if result.start is None else result.start
                result.end, result.transfers = stop_at, result.transfers + len(seen)
                result.ingested, result.skipped, result.alerts = (result.ingested + totals["ingested"], result.skipped + totals["skipped"],
                                                                  result.alerts + totals["alerts"])
                result.ranges.append((start, stop_at))
                if progress:
                    progress(result)
        finally:
            if ahead is not None:
                ahead[2].cancel()  # not begun: dropped; under way: its result is not used


def _confirm(cursor: ChainCursor) -> int:
    """`transfer.confirmed` for the indexed transfers up to the cursor whose block is the chain's confirmations deep."""
    if cursor.last_block is None or cursor.head is None:
        return 0
    chain = cursor.chain
    return confirm_through(chain.chain_id, min(cursor.last_block, cursor.head - chain.confirmations), chain.confirmations)


def _run(chain: Chain, cursor: ChainCursor, result: PassResult, work: Callable[[ChainRpc], None]) -> PassResult:
    rpc = None
    try:
        rpc = ChainRpc(connect(chain))
        work(rpc)
    except DeepReorg as error:
        stop(cursor, error)
        result.error = str(error)
    except Exception as error:  # noqa: BLE001 - any failure: noted on the cursor, the next run resumes from it
        logger.warning("indexer: chain %s run failed at block %s: %s", chain.chain_id, cursor.last_block, error)
        result.error = f"{type(error).__name__}: {error}"[:2000]
    result.retries = rpc.retries if rpc else 0
    cursor.last_run_at, cursor.last_error = timezone.now(), result.error or ("" if not cursor.stopped else cursor.last_error)
    cursor.save(update_fields=["last_run_at", "last_error", "head", "head_time", "updated_at"])
    return result


def _target(rpc: ChainRpc, cursor: ChainCursor) -> int:
    """The node's head, noted on the cursor with its time (for the console's and /health's lag, and the confirmations)."""
    head = rpc.block(rpc.head(), full=False)
    cursor.head, cursor.head_time = int(head["number"], 16), datetime.fromtimestamp(int(head["timestamp"], 16), tz=UTC)
    return cursor.head


def index_pass(chain: Chain, *, max_blocks: int | None = None, progress: Callable | None = None) -> PassResult:
    """One run over the chain: the window checked, then up to `max_blocks` (INDEXER_BLOCKS_PER_RUN) blocks indexed, no
    range begun after INDEXER_RUN_SECONDS (the Celery task's time limit is well above it; a run that is behind is enqueued
    again)."""
    result, began = PassResult(chain.chain_id), time.monotonic()
    with chain_lock(chain) as cursor:
        if cursor is None:
            result.skipped_reason = "another run holds the chain's lock"
            return result
        if cursor.stopped:
            result.skipped_reason = f"stopped: {cursor.last_error}"
            return result

        def work(rpc: ChainRpc) -> None:
            fork = fork_point(rpc, cursor.window)
            if fork is not None:
                result.orphaned = orphan_above(cursor, fork)
            result.target = _target(rpc, cursor)
            first = cursor.last_block + 1 if cursor.last_block is not None else cursor.start_block
            end = min(result.target, first + (max_blocks or settings.INDEXER_BLOCKS_PER_RUN) - 1)
            # Once per pass: the head is fixed for the run, so only transfers stored by earlier runs can have become
            # deep enough; this run's deep ones go in confirmed as they are recorded (delivery._note_blocks).
            result.confirmed += _confirm(cursor)
            _index(rpc, cursor, end, result, progress, deadline=began + settings.INDEXER_RUN_SECONDS)
            result.behind = result.target > (cursor.last_block if cursor.last_block is not None else -1)

        return _run(chain, cursor, result, work)


def reindex(chain: Chain, *, from_block: int, to_block: int | None = None, progress: Callable | None = None) -> PassResult:
    """Indexes [from_block, to_block] again (up to the head by default): the cursor is set back to
    from_block - 1 with an empty window, and the ranges are read and delivered as in a pass; stored transfers are
    skipped by the ingest (so reindexing twice stores the same), orphaned ones seen again are restored. Clears
    `stopped`. Later passes go on from where it ends."""
    result = PassResult(chain.chain_id)
    with chain_lock(chain) as cursor:
        if cursor is None:
            result.skipped_reason = "another run holds the chain's lock"
            return result
        cursor.last_block, cursor.window, cursor.stopped = (from_block - 1 if from_block > 0 else None), [], False
        cursor.start_block = min(cursor.start_block, from_block)
        cursor.save(update_fields=["last_block", "window", "stopped", "start_block", "updated_at"])

        def work(rpc: ChainRpc) -> None:
            result.target = _target(rpc, cursor)
            end = result.target if to_block is None else min(to_block, result.target)
            _index(rpc, cursor, end, result, progress)
            result.confirmed += _confirm(cursor)  # rows stored before the reindex, in its range, deep enough now
            result.behind = result.target > (cursor.last_block if cursor.last_block is not None else -1)

        return _run(chain, cursor, result, work)
