import uuid

from django.core import signing

from organizations.models import ApiKey, Invitation, Membership, Organization

INVITATION_SALT = "organizations.invitation"


def api_key_by_hash(key_hash: str) -> ApiKey | None:
    """The active key with this hash, its organization loaded."""
    return ApiKey.objects.select_related("organization").filter(key_hash=key_hash, revoked_at__isnull=True).first()


def api_keys_of(organization: Organization):
    return ApiKey.objects.filter(organization=organization).select_related("created_by").order_by("-created_at", "id")


def memberships_of(user) -> list[Membership]:
    return list(Membership.objects.filter(user=user).select_related("organization").order_by("created_at", "id"))


def membership_for_request(*, user, organization_ref: str | None) -> Membership | None:
    """The membership a session acts through: the organization named (id or slug), else the first."""
    memberships = Membership.objects.filter(user=user).select_related("organization").order_by("created_at", "id")
    if organization_ref:
        try:
            return memberships.filter(organization_id=uuid.UUID(organization_ref)).first()
        except ValueError:
            return memberships.filter(organization__slug=organization_ref).first()
    return memberships.first()


def members_of(organization: Organization):
    return Membership.objects.filter(organization=organization).select_related("user").order_by("created_at", "id")


def member(organization: Organization, user_id) -> Membership | None:
    return members_of(organization).filter(user_id=user_id).first()


def invitations_of(organization: Organization):
    return Invitation.objects.filter(organization=organization).select_related("invited_by").order_by("-created_at", "id")


def invitation_token(invitation: Invitation) -> str:
    """The same token every time for one invitation (the API's answer and the e-mail, rendered later
    by a worker, carry the same link); the invitation's own expiry bounds its use."""
    return signing.Signer(salt=f"{INVITATION_SALT}.fixed").sign(str(invitation.pk))


def _invitation_id(token: str) -> str:
    try:
        return signing.Signer(salt=f"{INVITATION_SALT}.fixed").unsign(token)
    except signing.BadSignature:
        return signing.loads(token, salt=INVITATION_SALT)  # tokens e-mailed before they were deterministic


def invitation_by_token(token: str) -> Invitation | None:
    try:
        invitation_id = uuid.UUID(_invitation_id(token))
    except (signing.BadSignature, ValueError, TypeError):
        return None
    return Invitation.objects.select_related("organization", "invited_by").filter(pk=invitation_id).first()


def organization_by_slug(slug: str) -> Organization | None:
    return Organization.objects.filter(slug=slug).first()
