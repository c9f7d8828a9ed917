"""The decision aggregator: the entity's compliance flags (sanctioned, pep, adverse_media) from its
open sanctions hits and its latest conclusive checks. Stored on the entity so that a status
look-up reads one row (compliance.status)."""

from django.db import transaction
from django.utils import timezone

from onboarding.choices import CheckResult, CheckType, HitStatus
from onboarding.models import ComplianceCheck, Entity, ScreeningHit
from onboarding.screening.thresholds import fail_threshold

CONCLUSIVE = (CheckResult.PASS, CheckResult.REVIEW, CheckResult.FAIL)
FOUND = (CheckResult.REVIEW, CheckResult.FAIL)


def _latest_conclusive(entity: Entity, check_type: str, **filters) -> ComplianceCheck | None:
    return (ComplianceCheck.objects.filter(entity=entity, check_type=check_type, counts_toward_status=True,
                                           result__in=CONCLUSIVE, **filters)
            .order_by("-created_at", "-id").first())


def computed_flags(entity: Entity) -> dict:
    """sanctioned: an open, active built-in hit at the fail threshold, or the latest external sanctions
    result that counts is `fail`. pep / adverse_media: the latest conclusive check found something."""
    confident_hit = ScreeningHit.objects.filter(entity=entity, active=True, status=HitStatus.OPEN,
                                                score__gte=fail_threshold()).exists()
    external = _latest_conclusive(entity, CheckType.SANCTIONS, external=True)
    pep, media = _latest_conclusive(entity, CheckType.PEP), _latest_conclusive(entity, CheckType.ADVERSE_MEDIA)
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
