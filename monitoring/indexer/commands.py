"""What the index_chain and reindex commands share: the chain by id, and the progress and summary lines."""

from django.core.management.base import CommandError

from compliance.models import Chain
from monitoring.indexer.services import PassResult


def chain_by_id(chain_id: int) -> Chain:
    chain = Chain.objects.filter(chain_id=chain_id).first()
    if chain is None:
        raise CommandError(f"no chain {chain_id} (compliance.Chain)")
    return chain


def progress_line(result: PassResult) -> str:
    start, end = result.ranges[-1]
    done = f" of {result.target}" if result.target is not None else ""
    return f"blocks {start}-{end}{done}: {result.transfers} transfers, {result.ingested} stored, {result.skipped} already stored"


def summary(result: PassResult) -> str:
    if result.skipped_reason:
        raise CommandError(f"chain {result.chain_id}: {result.skipped_reason}")
    if result.error:
        raise CommandError(f"chain {result.chain_id}: {result.error}")
    indexed = f"blocks {result.start}-{result.end}" if result.end is not None else "no new block"
    return (f"chain {result.chain_id}: {indexed} (target {result.target}), {result.transfers} transfers, {result.ingested} stored, "
            f"{result.skipped} already stored, {result.alerts} alerts, {result.orphaned} orphaned{', behind' if result.behind else ''}")
