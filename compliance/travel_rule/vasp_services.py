"""Counterparty VASP directory writes (docs/travel-rule.md, "Beneficiaries at another VASP"): an
organization's VASPs per mode, each with its inquiry endpoint and the secret both sides sign with.
Admin role; every write audited (never the secret)."""

from urllib.parse import urlsplit

from django.db import transaction

from common.audit import audit_record
from common.errors import NotFound, ValidationFailed
from common.permissions import require_role
from common.principal import Principal
from common.secrets import new_secret
from compliance.lei import lei_problem
from compliance.models import CounterpartyVasp, VaspStatus
from organizations.choices import Role
from webhooks.services import checked_url
from webhooks.transport import DestinationRefused, resolve_destination

WRITE_ROLE = Role.ADMIN
EDITABLE_FIELDS = ("name", "lei", "inquiry_url", "status")
SECRET_PREFIX = "trsec_"
MIN_SECRET_LENGTH = 32


def _state(vasp: CounterpartyVasp) -> dict:
    return {field: getattr(vasp, field) for field in EDITABLE_FIELDS}


def _audit(principal: Principal, action: str, vasp: CounterpartyVasp, **changes) -> None:
    audit_record(actor=principal, action=action, object_type="counterpartyvasp", object_id=vasp.pk,
                 organization=principal.organization, mode=principal.mode, **changes)


def checked_inquiry_url(url: str) -> str:
    """As a webhook endpoint's URL (https, no credentials or fragment), and its host must resolve to
    public addresses now (webhooks.transport's guard, which WEBHOOK_ALLOW_PRIVATE_NETWORKS relaxes for
    local deployments and tests); every inquiry checks again when it connects."""
    try:
        url = checked_url(url)
    except ValidationFailed as exc:
        raise ValidationFailed(details=[{**detail, "field": "inquiry_url"} for detail in exc.details]) from None
    parts = urlsplit(url)
    try:
        resolve_destination(parts.hostname, parts.port or 443)
    except DestinationRefused as exc:
        raise ValidationFailed.for_field("inquiry_url", f"The VASP's endpoint cannot be called: {exc}.") from None
    return url


def _checked_text(field: str, value: str, limit: int) -> str:
    value = value.strip()
    if not value:
        raise ValidationFailed.for_field(field, "May not be blank.")
    if len(value) > limit or any(ord(char) < 0x20 or ord(char) == 0x7F for char in value):
        raise ValidationFailed.for_field(field, f"At most {limit} characters, without control characters.")
    return value


def _checked(changes: dict) -> dict:
    checked = dict(changes)
    if "name" in checked:
        checked["name"] = _checked_text("name", checked["name"], 200)
    if "lei" in checked:
        checked["lei"] = (checked["lei"] or "").strip().upper()
        problem = checked["lei"] and lei_problem(checked["lei"])
        if problem:
            raise ValidationFailed.for_field("lei", problem)
    if "inquiry_url" in checked:
        checked["inquiry_url"] = checked_inquiry_url(checked["inquiry_url"])
    if "status" in checked and checked["status"] not in VaspStatus.values:
        raise ValidationFailed.for_field("status", f"One of {', '.join(VaspStatus.values)}.")
    return checked


def _checked_secret(secret: str | None) -> str:
    if not secret:
        return new_secret(SECRET_PREFIX, 40)
    if not MIN_SECRET_LENGTH <= len(secret) <= 200 or not all(0x21 <= ord(char) <= 0x7E for char in secret):
        raise ValidationFailed.for_field("shared_secret", f"From {MIN_SECRET_LENGTH} to 200 printable ASCII characters, no spaces "
                                                          "(the secret the other VASP gave you), or leave it out to have one made.")
    return secret


@transaction.atomic
def vasp_create(*, principal: Principal, name: str, inquiry_url: str, lei: str = "", shared_secret: str | None = None,
                status: str = VaspStatus.ACTIVE) -> CounterpartyVasp:
    """A counterparty VASP of the caller's organization and mode. The secret is the other VASP's when
    it made one first (both sides sign with the same), else a new one; the returned row carries it:
    the only time it is shown."""
    require_role(principal, WRITE_ROLE)
    values = _checked({"name": name, "lei": lei, "inquiry_url": inquiry_url, "status": status})
    secret = _checked_secret(shared_secret)
    vasp = CounterpartyVasp.objects.create(organization=principal.organization, mode=principal.mode, shared_secret=secret, **values)
    _audit(principal, "counterparty_vasp.created", vasp, after=_state(vasp))
    return vasp


def _locked(principal: Principal, vasp_id) -> CounterpartyVasp:
    vasp = CounterpartyVasp.objects.select_for_update().filter(pk=vasp_id, organization=principal.organization,
                                                               mode=principal.mode).first()
    if vasp is None:
        raise NotFound("No counterparty VASP of yours has this id.")
    return vasp


@transaction.atomic
def vasp_update(*, principal: Principal, vasp_id, changes: dict) -> CounterpartyVasp:
    require_role(principal, WRITE_ROLE)
    vasp = _locked(principal, vasp_id)
    before = _state(vasp)
    for field, value in _checked({k: v for k, v in changes.items() if k in EDITABLE_FIELDS}).items():
        setattr(vasp, field, value)
    vasp.save()
    _audit(principal, "counterparty_vasp.updated", vasp, before=before, after=_state(vasp))
    return vasp


def vasp_disable(*, principal: Principal, vasp_id) -> CounterpartyVasp:
    """No new transfers to it, no messages taken from it; the transfers already made keep it."""
    return vasp_update(principal=principal, vasp_id=vasp_id, changes={"status": VaspStatus.DISABLED})
