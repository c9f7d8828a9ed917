"""Thin Celery wrappers around the filings services (STYLE "Side effects")."""

from celery import shared_task

from filings.cases import sla

MAX_BATCHES = 20


@shared_task(name="filings.sweep_sla_breaches", ignore_result=True, time_limit=240, soft_time_limit=220)
def sweep_sla_breaches() -> None:
    """Beat, every minute: `sla_breach` notifications for overdue alerts and cases, once per breach."""
    for _ in range(MAX_BATCHES):
        counts = sla.sla_breaches_notify()
        if max(counts.values()) < sla.BATCH:
            return
