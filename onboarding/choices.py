from django.db import models

from common.errors import Conflict


class EntityType(models.TextChoices):
    INDIVIDUAL = "individual"
    BUSINESS = "business"


class EntityStatus(models.TextChoices):
    """An entity's lifecycle. Each review action moves it from the listed states to one state;
    anything else is a 409 naming what is allowed."""

    PENDING = "pending"
    UNDER_REVIEW = "under_review"
    ACTIVE = "active"
    REJECTED = "rejected"
    SUSPENDED = "suspended"

    @classmethod
    def transition(cls, action: str, current: str) -> str:
        sources, target = ENTITY_TRANSITIONS[action]
        if current not in sources:
            names = sorted(sources)
            allowed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
            raise Conflict(f"Cannot {action.replace('_', ' ')} an entity that is {current}; it must be {allowed}.")
        return target


ENTITY_TRANSITIONS: dict[str, tuple[frozenset, str]] = {
    "approve": (frozenset({EntityStatus.PENDING, EntityStatus.UNDER_REVIEW}), EntityStatus.ACTIVE),
    "reject": (frozenset({EntityStatus.PENDING, EntityStatus.UNDER_REVIEW}), EntityStatus.REJECTED),
    "suspend": (frozenset({EntityStatus.ACTIVE}), EntityStatus.SUSPENDED),
    # A screening hit at or above the review threshold.
    "flag_for_review": (frozenset({EntityStatus.PENDING}), EntityStatus.UNDER_REVIEW),
}


class RiskTier(models.TextChoices):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class WalletStatus(models.TextChoices):
    ACTIVE = "active"
    INACTIVE = "inactive"


class CheckType(models.TextChoices):
    """The check types (also those of an external screening result, docs/onboarding.md)."""

    KYB = "kyb"
    UBO = "ubo"
    AML = "aml"
    SANCTIONS = "sanctions"
    PEP = "pep"
    ADVERSE_MEDIA = "adverse_media"


class CheckResult(models.TextChoices):
    """pass | review | fail | error are an external result's; `not_configured` records that no provider was
    set up for the check (never a pass)."""

    PASS = "pass"
    REVIEW = "review"
    FAIL = "fail"
    ERROR = "error"
    NOT_CONFIGURED = "not_configured"


class HitStatus(models.TextChoices):
    """open: raised, counts; false_positive: an investigator cleared it; suppressed: found again by a
    later screening but matching a false-positive decision on the same list-entry version."""

    OPEN = "open"
    FALSE_POSITIVE = "false_positive"
    SUPPRESSED = "suppressed"


class HitSubject(models.TextChoices):
    ENTITY = "entity"
    UBO = "ubo"
    WALLET = "wallet"


BUILTIN_PROVIDER = "builtin"
