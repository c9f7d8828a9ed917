from django.db import models

from common.choices import Mode

__all__ = ["Mode", "Role", "Tier", "TinType"]


class Role(models.TextChoices):
    """Member and API-key roles, ascending (docs/architecture.md §3)."""

    VIEWER = "viewer", "Viewer"
    L1_ANALYST = "l1_analyst", "L1 analyst"
    L2_INVESTIGATOR = "l2_investigator", "L2 investigator"
    L3_OFFICER = "l3_officer", "L3 officer"
    ADMIN = "admin", "Admin"

    @classmethod
    def rank(cls, role: str) -> int:
        return list(cls.values).index(role)

    @classmethod
    def at_least(cls, role: str | None, minimum: str) -> bool:
        """True when `role` is `minimum` or above ("l2_investigator or above")."""
        return role in cls.values and cls.rank(role) >= cls.rank(minimum)


class Tier(models.TextChoices):
    STANDARD = "standard", "Standard (100/min)"
    PREMIUM = "premium", "Premium (1,000/min)"


class TinType(models.TextChoices):
    EIN = "EIN"
    SSN = "SSN"
    FOREIGN = "foreign"


class InvitationStatus(models.TextChoices):
    PENDING = "pending"
    ACCEPTED = "accepted"
    REVOKED = "revoked"
    EXPIRED = "expired"
