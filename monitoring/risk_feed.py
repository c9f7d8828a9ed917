"""Alert history feeds the entity risk score: after a batch opens alerts, or a disposition closes
one, the entities' scores are recomputed by a worker (on commit), off the ingestion path."""

from common.outbox import enqueue_on_commit
from onboarding.risk import risks_recompute


def schedule(entity_ids, *, reason: str) -> None:
    """Enqueue the recomputation once the current transaction commits."""
    from monitoring import tasks

    ids = sorted({str(entity_id) for entity_id in entity_ids})
    if ids:
        enqueue_on_commit(tasks.recompute_entity_risk, ids, reason)


def recompute(entity_ids: list[str], *, reason: str) -> None:
    risks_recompute(entity_ids=entity_ids, reason=reason)
