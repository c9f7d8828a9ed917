"""Monitoring's Celery tasks: thin wrappers taking ids."""

from celery import shared_task

from monitoring import risk_feed


@shared_task(name="monitoring.recompute_entity_risk", ignore_result=True, time_limit=120)
def recompute_entity_risk(entity_ids: list[str], reason: str) -> None:
    """After alerts were opened or disposed: the entities' risk scores take the new alert history in."""
    risk_feed.recompute(entity_ids, reason=reason)
