"""Thin Celery wrappers: each task takes an id (or nothing) and calls one service."""

from celery import shared_task
from celery.signals import worker_ready
from django.db import connection

from webhooks import delivery
from webhooks.inbound import services as inbound


@shared_task(name="webhooks.deliver", ignore_result=True, soft_time_limit=40, time_limit=50)
def deliver(delivery_id: str) -> None:
    delivery.delivery_attempt(delivery_id)


@shared_task(name="webhooks.sweep_deliveries", ignore_result=True, time_limit=60)
def sweep_deliveries() -> None:
    """Beat, every few seconds: retries that are due, and deliveries whose message was lost."""
    delivery.delivery_sweep()


@shared_task(name="webhooks.ingest_callback", ignore_result=True, time_limit=120)
def ingest_callback(callback_id: str) -> None:
    inbound.callback_ingest(callback_id)


@shared_task(name="webhooks.sweep_callbacks", ignore_result=True, time_limit=60)
def sweep_callbacks() -> None:
    """Beat: callbacks whose ingestion message was lost or whose worker died."""
    inbound.callback_sweep()


@worker_ready.connect
def release_dead_leases(**kwargs) -> None:
    """A worker starting (perhaps in place of one that was killed) hands back at once the attempts
    that dead processes of this host had claimed, instead of waiting for their leases to end."""
    try:
        delivery.delivery_release_dead_leases()
    finally:
        connection.close()  # the worker's main process keeps no connection of its own
