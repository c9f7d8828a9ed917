"""The indexer's Celery tasks: a beat entry fans out one run per enabled chain; a run that is behind enqueues itself."""

from celery import shared_task
from django.conf import settings

from compliance.models import Chain
from monitoring.indexer import selectors
from monitoring.indexer.services import index_pass


@shared_task(name="monitoring.index_chains", ignore_result=True, time_limit=60)
def index_chains() -> None:
    """Beat: a run for every enabled chain (a chain whose lock is held skips it)."""
    for chain_id in selectors.enabled_chain_ids():
        index_chain.delay(chain_id)


@shared_task(name="monitoring.index_chain", ignore_result=True, time_limit=settings.INDEXER_LEASE_SECONDS - 30)
def index_chain(chain_id: int) -> None:
    chain = Chain.objects.filter(chain_id=chain_id, enabled=True).first()
    if chain is None:
        return
    result = index_pass(chain)
    if result.behind and not result.error and not result.skipped_reason:
        index_chain.delay(chain_id)
