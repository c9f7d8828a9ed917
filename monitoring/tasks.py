"""Monitoring's Celery tasks: thin wrappers taking ids."""

from celery import shared_task
from django.db import OperationalError

from monitoring import risk_feed


# One transaction for all the entities: a deadlock victim or a lost connection rolls back the
# whole recomputation, which is idempotent, so the task runs again (after 1, 2, 4, ... s).
@shared_task(name="monitoring.recompute_entity_risk", ignore_result=True, time_limit=120, autoretry_for=(OperationalError,),
             retry_backoff=1, retry_backoff_max=60, retry_jitter=True, max_retries=5)
def recompute_entity_risk(entity_ids: list[str], reason: str) -> None:
    """After alerts were opened or disposed: the entities' risk scores take the new alert history in."""
    risk_feed.recompute(entity_ids, reason=reason)
