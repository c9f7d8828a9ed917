"""When a KYB verification falls due: the organization's policy for the entity's risk tier.

Pure: no query and no clock. An entity not scored yet is reviewed on the medium tier's cycle.
"""

from datetime import datetime, timedelta

from onboarding.choices import RiskTier

TIER_FIELDS = {RiskTier.LOW: "valid_days_low", RiskTier.MEDIUM: "valid_days_medium", RiskTier.HIGH: "valid_days_high",
               RiskTier.CRITICAL: "valid_days_critical"}
UNSCORED_TIER = RiskTier.MEDIUM


def valid_days(policy, risk_tier: str) -> int:
    return getattr(policy, TIER_FIELDS.get(risk_tier or UNSCORED_TIER, TIER_FIELDS[UNSCORED_TIER]))


def expires_at(entity, policy) -> datetime | None:
    """When the entity's latest passing KYB verification falls due, or None without one."""
    if entity.kyb_verified_at is None:
        return None
    return entity.kyb_verified_at + timedelta(days=valid_days(policy, entity.risk_tier))


def kyb_view(entity, policy) -> dict | None:
    """The entity's KYB verification as the API shows it."""
    if entity.kyb_verified_at is None:
        return None
    return {"verified_at": entity.kyb_verified_at, "check_id": str(entity.kyb_check_id) if entity.kyb_check_id else None,
            "expires_at": expires_at(entity, policy), "expired": entity.kyb_expired_at is not None}
