"""Travel-rule transfers: the process enqueued on commit of each initiation, and the beat sweep. The oracle's
status publisher: enqueued on commit where on-chain status rows are written, and on beat for every enabled chain."""

import logging

from celery import shared_task

from compliance import services, vasp_exchange

logger = logging.getLogger("compliance.tasks")


@shared_task(name="compliance.process_transfer", ignore_result=True, time_limit=60)
def process_transfer(transfer_id: str) -> None:
    """The travel-rule process; for a beneficiary at another VASP, an attempt of the inquiry to it."""
    if vasp_exchange.is_vasp_transfer(transfer_id):
        vasp_exchange.transfer_inquire(transfer_id=transfer_id)
    else:
        services.transfer_process(transfer_id=transfer_id)


@shared_task(name="compliance.sweep_transfers", ignore_result=True, time_limit=120)
def sweep_transfers() -> None:
    """Beat: process transfers left pending, expire acknowledged ones not executed in time."""
    pending, expired = services.transfers_sweep()
    if pending or expired:
        logger.info("travel-rule sweep: %d pending re-enqueued, %d expired", len(pending), expired)


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
        if result.signed or result.confirmed or result.reverted:
            logger.info("chain %s: %d transactions signed, %d rows confirmed, %d reverted", each, len(result.signed),
                        result.confirmed, result.reverted)
