"""risk_recompute: the one write of an entity's risk score (called at onboarding, after every
screening, check or status change, and by monitoring when alerts or behaviour change), and
risks_recompute, the same for many entities at once (a monitoring batch's)."""

from collections import defaultdict

from django.db import transaction
from django.utils import timezone

from common.audit import actor_of, audit_records
from common.pg import update_each
from onboarding.models import Entity, RiskAssessment
from onboarding.risk.scoring import score_entities
from webhooks.services import events_emit

_UPDATED = ("risk_score", "risk_tier", "risk_factors", "risk_updated_at", "updated_at")


def risk_recompute(*, entity: Entity, reason: str, actor=None) -> Entity:
    """Score the entity from its factors; store the factors; on a change of score or tier write a
    risk-history row, the `entity.risk_score_changed` event and an audit entry. Idempotent.
    Returns the entity as stored."""
    risks_recompute(entity_ids=[entity.pk], reason=reason, actor=actor)
    return Entity.objects.get(pk=entity.pk)


@transaction.atomic
def risks_recompute(*, entity_ids, reason: str, actor=None) -> int:
    """risk_recompute for each of the entities, in a number of statements that does not grow with
    theirs (only with the organizations and modes among them: events are emitted per tenant): the
    rows locked in id order (two batches touching the same entities wait rather than deadlock), each
    factor's inputs read once for all, one update, and one insert each for the history rows and
    the audit entries. Ids that match no entity are skipped. Returns how many scores or tiers changed.

    The factors' inputs are read under the locks, not before: a change committed meanwhile by
    another writer (an alert, a screening result), whose own recomputation waits for these locks,
    then cannot be overwritten by a score computed from what came before it. The locks are
    FOR NO KEY UPDATE, so rows inserted elsewhere that refer to the entities are not held up."""
    reason = reason[:300]
    entities = list(Entity.objects.select_for_update(of=("self",), no_key=True).select_related("organization")
                    .filter(pk__in=list(entity_ids)).order_by("pk"))
    if not entities:
        return 0
    results = score_entities(entities)
    now = timezone.now()
    updated, changed = [], []
    for entity in entities:
        result = results[entity.pk]
        moved = (entity.risk_score, entity.risk_tier) != (result.score, result.tier)
        if not moved and entity.risk_factors == result.factors:
            continue
        if moved:
            changed.append((entity, entity.risk_score, entity.risk_tier or None, result))
        entity.risk_score, entity.risk_tier = result.score, result.tier
        entity.risk_factors, entity.risk_updated_at, entity.updated_at = result.factors, now, now
        updated.append(entity)
    if updated:
        update_each(Entity, updated, _UPDATED)
    if changed:
        _record_changes(changed, reason, actor)
    return len(changed)


def _record_changes(changed: list[tuple], reason: str, actor) -> None:
    label = actor_of(actor).label
    RiskAssessment.objects.bulk_create([
        RiskAssessment(organization=entity.organization, mode=entity.mode, entity=entity, score=result.score, tier=result.tier,
                       previous_score=previous_score, previous_tier=previous_tier or "", reason=reason, factors=result.factors,
                       actor_label=label)
        for entity, previous_score, previous_tier, result in changed
    ])
    by_scope = defaultdict(list)
    for row in changed:
        by_scope[(row[0].organization_id, row[0].mode)].append(row)
    for rows in by_scope.values():
        organization, mode = rows[0][0].organization, rows[0][0].mode
        events_emit(organization=organization, mode=mode, events=[("entity.risk_score_changed", {
            "entity_id": str(entity.pk), "previous_score": previous_score, "new_score": result.score,
            "previous_tier": previous_tier, "new_tier": result.tier, "reason": reason, "changed_at": timezone.now(),
        }) for entity, previous_score, previous_tier, result in rows])
    audit_records(actor=actor, action="entity.risk_changed", object_type="entity",
                  changes=[(entity, {"risk_score": previous_score, "risk_tier": previous_tier},
                            {"risk_score": result.score, "risk_tier": result.tier, "reason": reason})
                           for entity, previous_score, previous_tier, result in changed])
