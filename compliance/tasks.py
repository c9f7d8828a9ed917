"""The oracle's status publisher: enqueued on commit where on-chain status rows are written, and on beat for every enabled chain; on beat
too, fresh rows for the statuses close to their on-chain expiry."""

import logging

from celery import shared_task

from compliance import services

logger = logging.getLogger("compliance.tasks")


@shared_task(name="compliance.publish_status", ignore_result=True, time_limit=240)
def publish_status(chain_id: int | None = None) -> None:
    """One publisher pass over `chain_id` (compliance.onchain.publisher); beat, without one: every enabled chain."""
    from compliance.models import Chain
    from compliance.onchain import publisher

    chain_ids = [chain_id] if chain_id is not None else list(Chain.objects.filter(enabled=True).values_list("chain_id", flat=True))
    for each in chain_ids:
        try:
            result = publisher.publish_pass(each)
        except Exception:
            logger.exception("publishing statuses to chain %s failed (recorded on the chain's last_error)", each)
            continue
        if result.signed or result.confirmed or result.reverted or result.replacements or result.reorganised:
            logger.info("chain %s: %d transactions signed, %d rows confirmed, %d reverted, %d replacements, %d reorganised", each,
                        len(result.signed), result.confirmed, result.reverted, len(result.replacements), result.reorganised)


@shared_task(name="compliance.republish_expiring", ignore_result=True, time_limit=240)
def republish_expiring() -> None:
    """Beat: for every enabled chain, a fresh pending row for each wallet whose confirmed status expires within
    ONCHAIN_REPUBLISH_MARGIN (published by compliance.publish_status, enqueued on commit)."""
    from compliance.models import Chain

    for chain_id in Chain.objects.filter(enabled=True).values_list("chain_id", flat=True):
        rows = services.onchain_republish_expiring(chain_id=chain_id)
        if rows:
            logger.info("chain %s: %d statuses close to expiry written to publish again", chain_id, len(rows))


# The travel rule's tasks live in its package; imported here so that the worker's autodiscovery registers them.
from compliance.travel_rule.tasks import process_transfer, sweep_transfers  # noqa: E402, F401
