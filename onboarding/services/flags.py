"""The decision aggregator: the entity's compliance flags (sanctioned, pep, adverse_media) from its
open sanctions hits and its latest conclusive checks. Stored on the entity so that a status
look-up reads one row (compliance.status)."""

from django.db import transaction
from django.utils import timezone

from onboarding.choices import CheckResult, CheckType, HitStatus
from onboarding.models import Entity, ScreeningHit
from onboarding.screening.thresholds import fail_threshold
from onboarding.selectors import latest_conclusive_check

FOUND = (CheckResult.REVIEW, CheckResult.FAIL)


def computed_flags(entity: Entity) -> dict:
    """sanctioned: an open, active built-in hit at the fail threshold, or the latest external sanctions
    result that counts is `fail`. pep / adverse_media: the latest conclusive check found something."""
    confident_hit = ScreeningHit.objects.filter(entity=entity, active=True, status=HitStatus.OPEN,
                                                score__gte=fail_threshold()).exists()
    external = latest_conclusive_check(entity, CheckType.SANCTIONS, external=True)
    pep, media = latest_conclusive_check(entity, CheckType.PEP), latest_conclusive_check(entity, CheckType.ADVERSE_MEDIA)
    return {
        "sanctioned": confident_hit or (external is not None and external.result == CheckResult.FAIL),
        "pep": pep is not None and pep.result in FOUND,
        "adverse_media": media is not None and media.result in FOUND,
    }


@transaction.atomic
def flags_recompute(*, entity: Entity) -> bool:
    """Store the aggregated flags; True when one changed."""
    flags = computed_flags(entity)
    current = Entity.objects.filter(pk=entity.pk).values("sanctioned", "pep", "adverse_media").get()
    if current == flags:
        return False
    now = timezone.now()
    Entity.objects.filter(pk=entity.pk).update(**flags, flags_updated_at=now, updated_at=now)
    for name, value in flags.items():
        setattr(entity, name, value)
    return True
