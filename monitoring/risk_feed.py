"""Alert history feeds the entity risk score: after a batch opens alerts, or a disposition closes
one, the entities' scores are recomputed by a worker (on commit), off the ingestion path."""

from common.outbox import enqueue_on_commit
from onboarding.models import Entity
from onboarding.risk.services import risk_recompute


def schedule(entity_ids, *, reason: str) -> None:
    """Enqueue the recomputation once the current transaction commits."""
    from monitoring import tasks

    ids = sorted({str(entity_id) for entity_id in entity_ids})
    if ids:
        enqueue_on_commit(tasks.recompute_entity_risk, ids, reason)


def recompute(entity_ids: list[str], *, reason: str) -> None:
    from monitoring.integration import risk_inputs_prefetched

    with risk_inputs_prefetched(entity_ids):  # monitoring's two factors: grouped reads for all the entities
        for entity in Entity.objects.filter(pk__in=entity_ids):
            risk_recompute(entity=entity, reason=reason)
