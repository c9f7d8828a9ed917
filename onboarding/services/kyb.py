"""KYB review: the latest passing KYB verification of each entity, its expiry, and the policy.

A passing `kyb` check (a client's external result, the KYB or identity provider's callback) renews the
verification. The beat sweep marks an active entity's verification expired once the organization's
period for its risk tier has run out, and sends `account.kyb_expired` once per verification.
"""

from django.db import transaction
from django.utils import timezone

from common.audit import audit_record
from common.errors import ValidationFailed
from common.permissions import require_role
from monitoring.notifications.services import notification_create
from onboarding import selectors
from onboarding.choices import CheckResult, CheckType, EntityStatus
from onboarding.kyb import expires_at
from onboarding.models import ComplianceCheck, Entity, KybPolicy
from onboarding.models.kyb import MAX_VALID_DAYS
from organizations.choices import Role
from webhooks.services import event_emit

POLICY_ROLE = Role.ADMIN  # how often every customer is re-verified: an organization-wide setting
POLICY_FIELDS = ("valid_days_low", "valid_days_medium", "valid_days_high", "valid_days_critical")


def kyb_verification_record(*, entity: Entity, check: ComplianceCheck) -> None:
    """A passing KYB check renews the entity's verification (the entity is locked by the caller)."""
    if check.check_type != CheckType.KYB or check.result != CheckResult.PASS:
        return
    entity.kyb_verified_at, entity.kyb_check, entity.kyb_expired_at = check.created_at, check, None
    entity.save(update_fields=["kyb_verified_at", "kyb_check", "kyb_expired_at", "updated_at"])


@transaction.atomic
def kyb_policy_set(*, principal, **valid_days: int) -> KybPolicy:
    """The organization's KYB review periods in days, by risk tier; they apply from the next sweep on."""
    require_role(principal, POLICY_ROLE)
    details = [{"field": name, "message": f"From 1 to {MAX_VALID_DAYS} days."} for name in POLICY_FIELDS
               if not isinstance(valid_days.get(name), int) or not 1 <= valid_days[name] <= MAX_VALID_DAYS]
    if details:
        raise ValidationFailed(details=details)
    policy = KybPolicy.objects.select_for_update().filter(organization=principal.organization).first()
    policy = policy or KybPolicy(organization=principal.organization)
    before = None if policy._state.adding else {name: getattr(policy, name) for name in POLICY_FIELDS}
    for name in POLICY_FIELDS:
        setattr(policy, name, valid_days[name])
    policy.save()
    audit_record(actor=principal, action="kyb_policy.updated", object_type="kybpolicy", object_id=policy.pk,
                 organization=principal.organization, before=before, after={name: valid_days[name] for name in POLICY_FIELDS})
    return policy


def kyb_expiry_sweep(*, now=None, chunk: int = 500) -> int:
    """Mark every due verification expired (beat). Each entity in its own transaction, checked again
    under its lock, so a renewal or a tier change that lands meanwhile wins. Returns how many expired."""
    now = now or timezone.now()
    expired = 0
    while ids := selectors.entity_ids_kyb_due(now=now, limit=chunk):
        done = sum(_expire(entity_id, now) for entity_id in ids)
        expired += done
        if not done or len(ids) < chunk:
            break  # what is left changed under us (renewed, suspended): the next sweep looks again
    return expired


@transaction.atomic
def _expire(entity_id, now) -> bool:
    entity = Entity.objects.select_for_update(no_key=True).select_related("organization").get(pk=entity_id)
    due = expires_at(entity, selectors.kyb_policy(organization_id=entity.organization_id))
    if entity.status != EntityStatus.ACTIVE or entity.kyb_expired_at is not None or due is None or due > now:
        return False
    entity.kyb_expired_at = due
    entity.save(update_fields=["kyb_expired_at", "updated_at"])
    check_id = str(entity.kyb_check_id) if entity.kyb_check_id else None
    event_emit(organization=entity.organization, mode=entity.mode, type="account.kyb_expired",
               data={"entity_id": str(entity.pk), "check_id": check_id, "expired_at": due})
    audit_record(actor=None, action="entity.kyb_expired", object_type="entity", object_id=entity.pk,
                 organization=entity.organization, mode=entity.mode,
                 after={"kyb_verified_at": entity.kyb_verified_at.isoformat(), "check_id": check_id, "expired_at": due.isoformat()})
    notification_create(
        organization=entity.organization, mode=entity.mode, type="entity_status_changed", entity_id=entity.pk,
        title=f"KYB verification of {entity.legal_name} expired",
        body=(f"The KYB verification of {entity.kyb_verified_at:%Y-%m-%d} fell due on {due:%Y-%m-%d} under your KYB review "
              f"policy for {entity.risk_tier or 'unscored'} risk. Record a new KYB result to renew it."))
    return True
