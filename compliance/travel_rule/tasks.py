"""Travel-rule transfers: the process enqueued on commit of each initiation, and the beat sweep. Registered names stay
`compliance.process_transfer` and `compliance.sweep_transfers` (beat entries and queued messages keep working);
compliance.tasks imports them so that the worker's autodiscovery registers them."""

import logging

from celery import shared_task

from compliance.travel_rule import services, vasp_exchange

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
