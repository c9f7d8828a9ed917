"""Organization writes: creation, settings and filer profile, members and roles, invitations, API keys."""

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

from common.audit import audit_record
from common.errors import Conflict, NotFound, ValidationFailed
from common.mail import email_enqueue
from common.permissions import require_role
from common.principal import Principal
from common.secrets import new_secret, random_base62, secret_hash
from organizations import keyauth
from organizations.choices import InvitationStatus, Mode, Role, Tier
from organizations.hooks import notify_organization_created
from organizations.models import ApiKey, Invitation, Membership, Organization

ORG_FIELDS = ("name", "filer_profile", "four_eyes_filing")


def _org_state(org: Organization) -> dict:
    return {field: getattr(org, field) for field in ("name", "slug", *ORG_FIELDS[1:])}


def _audit(principal_or_user, action: str, obj, organization, **changes):
    audit_record(actor=principal_or_user, action=action, object_type=obj._meta.model_name, object_id=obj.pk,
                 organization=organization, **changes)


# --- Organizations -----------------------------------------------------------------------------

def _unique_slug(base: str) -> str:
    base = slugify(base)[:50] or "org"
    slug = base
    while Organization.objects.filter(slug=slug).exists():
        slug = f"{base}-{random_base62(5).lower()}"
    return slug


@transaction.atomic
def organization_create(*, actor, name: str, slug: str | None = None, filer_profile: dict | None = None) -> Organization:
    """Create an organization; `actor` (a User) becomes its admin. A slug is kept lower-case, as a
    slug made from the name is: "ACME" beside "acme" would be a look-alike of another organization."""
    slug = slug.lower() if slug else slug
    if slug and Organization.objects.filter(slug=slug).exists():
        raise Conflict(f"The slug {slug!r} is taken.")
    org = None
    for _ in range(5):  # a slug made from the name can be taken by a creation at the same moment: make another
        try:
            with transaction.atomic():
                org = Organization.objects.create(name=name, slug=slug or _unique_slug(name), filer_profile=filer_profile or {})
            break
        except IntegrityError:
            if slug:
                raise Conflict(f"The slug {slug!r} is taken.") from None
    if org is None:
        raise Conflict("Could not find a free slug for this name; choose one with `slug`.")
    Membership.objects.create(organization=org, user=actor, role=Role.ADMIN)
    _audit(actor, "organization.created", org, org, after=_org_state(org))
    notify_organization_created(org)
    return org


@transaction.atomic
def organization_update(*, principal: Principal, changes: dict) -> Organization:
    require_role(principal, Role.ADMIN)
    org = Organization.objects.select_for_update().get(pk=principal.organization.pk)
    before = _org_state(org)
    for field, value in changes.items():
        if field == "filer_profile":
            value = {**org.filer_profile, **value}
        setattr(org, field, value)
    org.save()
    keyauth.invalidate(*ApiKey.objects.filter(organization=org).values_list("key_hash", flat=True))
    _audit(principal, "organization.updated", org, org, before=before, after=_org_state(org))
    if before["four_eyes_filing"] != org.four_eyes_filing:  # its own entry: turning it off is what an examiner looks for
        _audit(principal, "organization.four_eyes_changed", org, org,
               before={"four_eyes_filing": before["four_eyes_filing"]},
               after={"four_eyes_filing": org.four_eyes_filing, "setting": org.four_eyes_setting,
                      "live": org.four_eyes_in(Mode.LIVE), "test": org.four_eyes_in(Mode.TEST)})
    return org


# --- Members -----------------------------------------------------------------------------------

def _locked_member(organization: Organization, user_id) -> Membership:
    """The member row, after locking every admin row of the organization: two admins demoting
    each other at once must not leave it with none."""
    list(Membership.objects.select_for_update().filter(organization=organization, role=Role.ADMIN).order_by("pk"))
    membership = Membership.objects.select_for_update().filter(organization=organization, user_id=user_id).first()
    if membership is None:
        raise NotFound("No member of your organization has this id.")
    return membership


def _refuse_last_admin(membership: Membership, what: str) -> None:
    if membership.role == Role.ADMIN and not (
        Membership.objects.filter(organization=membership.organization, role=Role.ADMIN).exclude(pk=membership.pk).exists()
    ):
        raise Conflict(f"The last admin of an organization cannot be {what}: make another member admin first.")


@transaction.atomic
def member_remove(*, principal: Principal, user_id) -> None:
    require_role(principal, Role.ADMIN)
    membership = _locked_member(principal.organization, user_id)
    _refuse_last_admin(membership, "removed")
    state = {"user_id": str(membership.user_id), "email": membership.user.email, "role": membership.role}
    membership.delete()
    audit_record(actor=principal, action="member.removed", object_type="membership", object_id=membership.user_id,
                 organization=principal.organization, before=state)


@transaction.atomic
def member_role_change(*, principal: Principal, user_id, role: str) -> Membership:
    require_role(principal, Role.ADMIN)
    membership = _locked_member(principal.organization, user_id)
    if role != Role.ADMIN:
        _refuse_last_admin(membership, "demoted")
    before = {"role": membership.role}
    membership.role = role
    membership.save(update_fields=["role", "updated_at"])
    audit_record(actor=principal, action="member.role_changed", object_type="membership", object_id=membership.user_id,
                 organization=principal.organization, before=before, after={"role": role})
    return membership


# --- Invitations -------------------------------------------------------------------------------

@transaction.atomic
def invitation_create(*, principal: Principal, email: str, role: str) -> Invitation:
    require_role(principal, Role.ADMIN)
    # The organization's row locked first: two invitations of one address created at the same moment
    # both found none pending and both were stored. NO KEY: the organization's other writes go on.
    org = Organization.objects.select_for_update(no_key=True).get(pk=principal.organization.pk)
    email = email.strip().lower()
    if Membership.objects.filter(organization=org, user__email__iexact=email).exists():
        raise Conflict("This person is already a member of the organization.")
    pending = [i for i in Invitation.objects.filter(organization=org, email__iexact=email) if i.status == InvitationStatus.PENDING]
    if pending:
        raise Conflict("A pending invitation for this address exists: revoke it before inviting again.")
    invitation = Invitation.objects.create(
        organization=org, email=email, role=role, invited_by=principal.user,
        expires_at=timezone.now() + timedelta(days=settings.INVITATION_TTL_DAYS),
    )
    email_enqueue(kind="invitation", to=email, context={"invitation_id": str(invitation.pk)})
    _audit(principal, "invitation.created", invitation, org, after={"email": email, "role": role})
    return invitation


@transaction.atomic
def invitation_accept(*, user, invitation_id) -> Membership:
    """The signed-in user whose (verified) e-mail was invited joins with the invited role."""
    invitation = Invitation.objects.select_for_update().filter(pk=invitation_id, email__iexact=user.email).first()
    if invitation is None:
        raise NotFound("No invitation with this id is addressed to you.")
    if invitation.status != InvitationStatus.PENDING:
        raise Conflict(f"This invitation is {invitation.status}.")
    already = Conflict("You are already a member of this organization.")
    if Membership.objects.filter(organization=invitation.organization, user=user).exists():
        raise already
    try:
        with transaction.atomic():
            membership = Membership.objects.create(organization=invitation.organization, user=user, role=invitation.role)
    except IntegrityError:  # another invitation to the same organization accepted at the same moment
        raise already from None
    invitation.accepted_at = timezone.now()
    invitation.accepted_by = user
    invitation.save(update_fields=["accepted_at", "accepted_by", "updated_at"])
    _audit(user, "invitation.accepted", invitation, invitation.organization, after={"role": invitation.role})
    return membership


@transaction.atomic
def invitation_revoke(*, principal: Principal, invitation_id) -> Invitation:
    require_role(principal, Role.ADMIN)
    invitation = Invitation.objects.select_for_update().filter(pk=invitation_id, organization=principal.organization).first()
    if invitation is None:
        raise NotFound("No invitation of your organization has this id.")
    if invitation.status != InvitationStatus.PENDING:
        raise Conflict(f"Only a pending invitation can be revoked; this one is {invitation.status}.")
    invitation.revoked_at = timezone.now()
    invitation.save(update_fields=["revoked_at", "updated_at"])
    _audit(principal, "invitation.revoked", invitation, principal.organization)
    return invitation


# --- API keys ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class IssuedKey:
    api_key: ApiKey
    secret: str


def api_key_issue(*, organization: Organization, mode: str, name: str, tier: str = Tier.STANDARD,
                  role: str = Role.L3_OFFICER, actor=None, created_by=None) -> IssuedKey:
    """Mint a key; the secret exists only in the return value (shown once)."""
    if mode not in Mode.values:
        raise ValidationFailed.for_field("mode", f"mode must be one of {', '.join(Mode.values)}.")
    if tier not in Tier.values:
        raise ValidationFailed.for_field("tier", f"tier must be one of {', '.join(Tier.values)}.")
    if role not in Role.values:
        raise ValidationFailed.for_field("role", f"role must be one of {', '.join(Role.values)}.")
    secret = new_secret(f"sk_{mode}_", 40)
    with transaction.atomic():
        api_key = ApiKey.objects.create(
            organization=organization, mode=mode, name=name, tier=tier, role=role,
            prefix=secret[:12], key_hash=secret_hash(secret), created_by=created_by,
        )
        _audit(actor, "api_key.created", api_key, organization,
               after={"name": name, "mode": mode, "tier": tier, "role": role, "prefix": api_key.prefix})
    return IssuedKey(api_key, secret)


def api_key_create(*, principal: Principal, name: str, mode: str, tier: str, role: str) -> IssuedKey:
    require_role(principal, Role.ADMIN)
    return api_key_issue(organization=principal.organization, mode=mode, name=name, tier=tier, role=role,
                         actor=principal, created_by=principal.user)


@transaction.atomic
def api_key_revoke(*, principal: Principal, api_key_id) -> ApiKey:
    require_role(principal, Role.ADMIN)
    keys = ApiKey.objects.select_for_update().filter(pk=api_key_id, organization=principal.organization)
    if principal.is_api_key:
        # Test and live are kept apart: a test key (which may sit in a CI config) must not be able to
        # switch production off. A signed-in admin revokes keys of both modes. A key of the other mode
        # is answered as a random id would be, so that the answer does not say the id exists.
        keys = keys.filter(mode=principal.mode)
    api_key = keys.first()
    if api_key is None:
        raise NotFound("No API key of your organization has this id.")
    if api_key.revoked_at is None:
        api_key.revoked_at = timezone.now()
        api_key.revoked_by = principal.user
        api_key.save(update_fields=["revoked_at", "revoked_by", "updated_at"])
        keyauth.invalidate(api_key.key_hash)
        _audit(principal, "api_key.revoked", api_key, principal.organization, after={"prefix": api_key.prefix})
    return api_key


