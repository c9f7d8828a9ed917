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
            allowed = ", ".join(sorted(sources))
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
