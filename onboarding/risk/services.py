"""risk_recompute: the one write of an entity's risk score (called at onboarding, after every
screening, check or status change, and by monitoring when alerts or behaviour change)."""

from django.db import transaction
from django.utils import timezone

from common.audit import actor_of, audit_record
from onboarding.models import Entity, RiskAssessment
from onboarding.risk.scoring import score_entity
from webhooks.services import event_emit


@transaction.atomic
def risk_recompute(*, entity: Entity, reason: str, actor=None) -> Entity:
    """Score the entity from its factors; store the factors; on a change of score or tier write a
    risk-history row, the `entity.risk_score_changed` event and an audit entry. Idempotent."""
    entity = Entity.objects.select_for_update().get(pk=entity.pk)
    result = score_entity(entity)
    now = timezone.now()
    changed = (entity.risk_score, entity.risk_tier) != (result.score, result.tier)
    updates = {"risk_factors": result.factors, "risk_updated_at": now, "updated_at": now}
    if changed:
        updates.update(risk_score=result.score, risk_tier=result.tier)
    if not changed and entity.risk_factors == result.factors:
        return entity
    Entity.objects.filter(pk=entity.pk).update(**updates)
    if changed:
        _record_change(entity, result, reason[:300], actor)
    entity.refresh_from_db()
    return entity


def _record_change(entity: Entity, result, reason: str, actor) -> None:
    RiskAssessment.objects.create(
        organization=entity.organization, mode=entity.mode, entity=entity, score=result.score, tier=result.tier,
        previous_score=entity.risk_score, previous_tier=entity.risk_tier, reason=reason, factors=result.factors,
        actor_label=actor_of(actor).label,
    )
    event_emit(organization=entity.organization, mode=entity.mode, type="entity.risk_score_changed", data={
        "entity_id": str(entity.pk), "previous_score": entity.risk_score, "new_score": result.score,
        "previous_tier": entity.risk_tier or None, "new_tier": result.tier, "reason": reason, "changed_at": timezone.now(),
    })
    audit_record(actor=actor, action="entity.risk_changed", object_type="entity", object_id=entity.pk,
                 organization=entity.organization, mode=entity.mode,
                 before={"risk_score": entity.risk_score, "risk_tier": entity.risk_tier or None},
                 after={"risk_score": result.score, "risk_tier": result.tier, "reason": reason})
