"""314(b) writes: partners (register, verify), requests (send, record one received out of band,
respond) and their expiry.

Safe harbor under 31 CFR 1010.540 covers sharing only between institutions that have each filed a
notice with FinCEN, and only while the notice is in force: so a request is sent to, and answered
for, a verified partner whose certification has not expired (409 otherwise). When the partner is
itself an organization of this service (its EIN is another organization's filer TIN) that has
registered and verified the sender in turn, the request is delivered there as `received`, and the
answer comes back to the sender's request (docs/information-sharing.md).
"""

import datetime as dt
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from common.audit import audit_record, audit_records
from common.errors import Conflict, NotFound, ValidationFailed
from common.permissions import require_role
from common.principal import Principal
from monitoring.fincen314b.ein import ein_normalized, ein_variants
from monitoring.models import Fincen314bPartner, Fincen314bRequest
from monitoring.models.fincen314b import PartnerStatus, RequestDirection, RequestStatus
from organizations.choices import Role

READ_ROLE = Role.L2_INVESTIGATOR
PARTNER_ROLE = Role.L3_OFFICER
SHARE_ROLE = Role.L2_INVESTIGATOR
RESPONSE_DAYS = 14
# Lengths the API and the console both take (the database's text columns have none).
TEXT_MAX_CHARS = 5000  # a request's reason, a verification's notes
DETAILS_MAX_CHARS = 10_000  # a response's details
WALLETS_MAX, WALLET_MAX_CHARS = 50, 200  # a subject's wallet addresses
PARTNER_FIELDS = ("institution_name", "ein", "contact_name", "contact_email", "contact_phone", "certification_date",
                  "certification_expiry")


def _today() -> dt.date:
    return timezone.now().date()


def _partner_state(partner: Fincen314bPartner) -> dict:
    return {field: getattr(partner, field) for field in (*PARTNER_FIELDS, "status", "verified_at", "verified_by", "verification_method")}


def _audit(principal, action: str, obj, **changes) -> None:
    audit_record(actor=principal, action=action, object_type=obj._meta.model_name, object_id=obj.pk,
                 organization=obj.organization, mode=obj.mode, **changes)


# --- Partners ----------------------------------------------------------------------------------

def _checked_certification(certification_date: dt.date, certification_expiry: dt.date) -> None:
    if certification_expiry <= certification_date:
        raise ValidationFailed.for_field("certification_expiry", "The expiry must be after the certification date.")


@transaction.atomic
def partner_register(*, principal: Principal, institution_name: str, ein: str, contact_name: str, contact_email: str,
                     contact_phone: str = "", certification_date: dt.date, certification_expiry: dt.date) -> Fincen314bPartner:
    require_role(principal, PARTNER_ROLE)
    ein = ein_normalized(ein)
    _checked_certification(certification_date, certification_expiry)
    scope = {"organization": principal.organization, "mode": principal.mode}
    if Fincen314bPartner.objects.filter(**scope, ein=ein).exists():
        raise Conflict(f"A 314(b) partner with the EIN {ein} is registered already.")
    try:
        with transaction.atomic():
            partner = Fincen314bPartner.objects.create(
                **scope, institution_name=institution_name, ein=ein, contact_name=contact_name, contact_email=contact_email,
                contact_phone=contact_phone, certification_date=certification_date, certification_expiry=certification_expiry,
                created_by_label=principal.actor_label)
    except IntegrityError:
        raise Conflict(f"A 314(b) partner with the EIN {ein} is registered already.") from None
    _audit(principal, "fincen_314b.partner_registered", partner, after=_partner_state(partner))
    return partner


def _locked_partner(principal: Principal, partner_id) -> Fincen314bPartner:
    partner = Fincen314bPartner.objects.select_for_update().filter(
        pk=partner_id, organization=principal.organization, mode=principal.mode).first()
    if partner is None:
        raise NotFound("No 314(b) partner of yours has this id.")
    return partner


@transaction.atomic
def partner_verify(*, principal: Principal, partner_id, verified: bool, verification_method: str, notes: str = "") -> Fincen314bPartner:
    """`verified` true: the partner is on FinCEN's list of 314(b) participants (checked by
    `verification_method`) and sharing is enabled; refused for an expired certification. `verified`
    false records a failed check: the partner goes back to pending_verification and sharing stops."""
    require_role(principal, PARTNER_ROLE)
    if not (verification_method or "").strip():
        raise ValidationFailed.for_field("verification_method", "Say how the partner was checked (for example fincen_lookup).")
    partner = _locked_partner(principal, partner_id)
    before = _partner_state(partner)
    if verified and partner.certification_expired(_today()):
        raise Conflict(f"The certification expired on {partner.certification_expiry:%Y-%m-%d}: a partner cannot be verified on an "
                       "expired notice. Record its renewed certification first.")
    now = timezone.now()
    partner.status = PartnerStatus.VERIFIED if verified else PartnerStatus.PENDING_VERIFICATION
    partner.verified_at = now if verified else None
    partner.verified_by = principal.actor_label if verified else ""
    partner.verification_method, partner.verification_notes = verification_method.strip(), notes
    partner.save(update_fields=["status", "verified_at", "verified_by", "verification_method", "verification_notes", "updated_at"])
    _audit(principal, "fincen_314b.partner_verified" if verified else "fincen_314b.partner_verification_failed", partner,
           before=before, after={**_partner_state(partner), "notes": notes})
    return partner


@transaction.atomic
def partner_update_certification(*, principal: Principal, partner_id, certification_date: dt.date,
                                 certification_expiry: dt.date) -> Fincen314bPartner:
    """A renewed notice (the console): new dates, and the partner must be verified again."""
    require_role(principal, PARTNER_ROLE)
    _checked_certification(certification_date, certification_expiry)
    partner = _locked_partner(principal, partner_id)
    before = _partner_state(partner)
    partner.certification_date, partner.certification_expiry = certification_date, certification_expiry
    partner.status, partner.verified_at, partner.verified_by = PartnerStatus.PENDING_VERIFICATION, None, ""
    partner.save(update_fields=["certification_date", "certification_expiry", "status", "verified_at", "verified_by", "updated_at"])
    _audit(principal, "fincen_314b.partner_certification_updated", partner, before=before, after=_partner_state(partner))
    return partner


# --- Requests ----------------------------------------------------------------------------------

def _subject_fields(subject: dict) -> dict:
    ein = ein_normalized(subject["ein"], field="subject.ein") if subject.get("ein") else ""
    return {"subject_name": subject["name"], "subject_ein": ein, "subject_address": subject.get("address") or "",
            "subject_wallet_addresses": list(subject.get("wallet_addresses") or [])}


def _request_state(request: Fincen314bRequest) -> dict:
    return {"direction": request.direction, "status": request.status, "partner_id": str(request.partner_id),
            "subject_name": request.subject_name, "subject_ein": request.subject_ein, "case_id": request.case_id,
            "reason": request.reason, "response_deadline": request.response_deadline}


def _checked_case(principal: Principal, case_id):
    if case_id is None:
        return None
    from filings.models import Case  # filings depends on monitoring, not the other way round

    if not Case.objects.filter(pk=case_id, organization=principal.organization, mode=principal.mode).exists():
        raise NotFound("No case of yours has this case_id.")
    return case_id


@transaction.atomic
def request_send(*, principal: Principal, partner_id, subject: dict, reason: str, case_id=None) -> Fincen314bRequest:
    require_role(principal, SHARE_ROLE)
    partner = Fincen314bPartner.objects.filter(pk=partner_id, organization=principal.organization, mode=principal.mode).first()
    if partner is None:
        raise NotFound("No 314(b) partner of yours has this partner_id.")
    partner.require_shareable(_today())
    fields = _subject_fields(subject)
    now = timezone.now()
    request = Fincen314bRequest.objects.create(
        organization=principal.organization, mode=principal.mode, partner=partner, direction=RequestDirection.OUTBOUND,
        status=RequestStatus.SENT, reason=reason, case_id=_checked_case(principal, case_id),
        response_deadline=now + timedelta(days=RESPONSE_DAYS), created_by_label=principal.actor_label, **fields)
    _deadline_from_creation(request)
    _audit(principal, "fincen_314b.request_sent", request, after=_request_state(request))
    _deliver(request)
    return request


def _deadline_from_creation(request: Fincen314bRequest) -> None:
    """Due 14 days after the row's own creation time (created_at), to the microsecond."""
    request.response_deadline = request.created_at + timedelta(days=RESPONSE_DAYS)
    Fincen314bRequest.objects.filter(pk=request.pk).update(response_deadline=request.response_deadline)


@transaction.atomic
def request_record_inbound(*, principal: Principal, partner_id, subject: dict, reason: str,
                           received_at: dt.datetime | None = None) -> Fincen314bRequest:
    """A request a partner sent another way (e-mail, a portal): recorded as `received`, due 14 days
    after it arrived. Answering it later needs the partner verified."""
    require_role(principal, SHARE_ROLE)
    partner = Fincen314bPartner.objects.filter(pk=partner_id, organization=principal.organization, mode=principal.mode).first()
    if partner is None:
        raise NotFound("No 314(b) partner of yours has this partner_id.")
    now = timezone.now()
    received_at = received_at or now
    if received_at > now:
        raise ValidationFailed.for_field("received_at", "The request cannot have arrived in the future.")
    request = Fincen314bRequest.objects.create(
        organization=principal.organization, mode=principal.mode, partner=partner, direction=RequestDirection.INBOUND,
        status=RequestStatus.RECEIVED, reason=reason, response_deadline=received_at + timedelta(days=RESPONSE_DAYS),
        created_by_label=principal.actor_label, **_subject_fields(subject))
    _audit(principal, "fincen_314b.request_recorded", request, after=_request_state(request))
    return request


def _organization_ein(organization) -> str:
    profile = organization.filer_profile if isinstance(organization.filer_profile, dict) else {}
    if profile.get("tin_type") not in (None, "", "EIN"):
        return ""
    try:
        return ein_normalized(str(profile.get("tin") or ""))
    except ValidationFailed:
        return ""


def _claiming(ein: str):
    """The organizations whose filer TIN is this EIN."""
    from organizations.models import Organization

    candidates = Organization.objects.filter(filer_profile__tin__in=ein_variants(ein)).order_by("created_at", "pk")
    return [organization for organization in candidates if _organization_ein(organization) == ein]


def _deliver(outbound: Fincen314bRequest) -> Fincen314bRequest | None:
    """The inbound copy at the recipient, when the partner is an organization of this service that
    has registered and verified the sender as its own partner (both notices on file). A filer TIN
    is the organization's own statement: when two organizations state the sender's EIN, or two the
    partner's, which one is the institution cannot be told, so nothing is delivered (else one could
    take another's EIN to read the requests sent to it, or to be answered in its name)."""
    sender_ein = _organization_ein(outbound.organization)
    if not sender_ein or len(_claiming(sender_ein)) != 1:
        return None
    recipients = [organization for organization in _claiming(outbound.partner.ein) if organization.pk != outbound.organization_id]
    if len(recipients) != 1:
        return None
    (recipient,) = recipients
    sender = Fincen314bPartner.objects.filter(organization=recipient, mode=outbound.mode, ein=sender_ein).first()
    if sender is None or sender.status != PartnerStatus.VERIFIED or sender.certification_expired(_today()):
        return None
    inbound = Fincen314bRequest.objects.create(
        organization=recipient, mode=outbound.mode, partner=sender, direction=RequestDirection.INBOUND, status=RequestStatus.RECEIVED,
        subject_name=outbound.subject_name, subject_ein=outbound.subject_ein, subject_address=outbound.subject_address,
        subject_wallet_addresses=outbound.subject_wallet_addresses, reason=outbound.reason,
        response_deadline=outbound.response_deadline, created_by_label=f"delivered from {sender.institution_name}",
        counterpart=outbound)
    Fincen314bRequest.objects.filter(pk=outbound.pk).update(counterpart=inbound)
    outbound.counterpart = inbound
    _audit(None, "fincen_314b.request_received", inbound, after=_request_state(inbound))
    return inbound


@transaction.atomic
def request_respond(*, principal: Principal, request_id, has_match: bool, details: str = "", share_sar_reference: bool = False,
                    sar_bsa_id: str = "") -> Fincen314bRequest:
    """Answer a received request, once and before its deadline; the answer also reaches the sender's
    request when the sender uses this service."""
    require_role(principal, SHARE_ROLE)
    if share_sar_reference and not sar_bsa_id:
        raise ValidationFailed.for_field("sar_bsa_id", "Give the SAR's BSA ID when share_sar_reference is true.")
    if sar_bsa_id and not share_sar_reference:
        raise ValidationFailed.for_field("sar_bsa_id", "A BSA ID is shared only with share_sar_reference true.")
    request = (Fincen314bRequest.objects.select_for_update(of=("self",)).select_related("partner")
               .filter(pk=request_id, organization=principal.organization, mode=principal.mode).first())
    if request is None:
        raise NotFound("No 314(b) request of yours has this id.")
    if request.direction != RequestDirection.INBOUND:
        raise Conflict("Only a request received from a partner can be answered; this one is outbound (your own).")
    if request.status != RequestStatus.RECEIVED:
        raise Conflict(f"The request is {request.status}: only a received request can be answered, once.")
    now = timezone.now()
    if request.response_deadline < now:
        raise Conflict(f"The request's response deadline passed on {request.response_deadline:%Y-%m-%d %H:%M} UTC.")
    request.partner.require_shareable(now.date())
    before = _request_state(request)
    response = {"has_match": has_match, "response_details": details, "share_sar_reference": share_sar_reference,
                "sar_bsa_id": sar_bsa_id, "responded_at": now}
    _answer(request, status_from=RequestStatus.RECEIVED, responded_by=principal.actor_label, **response)
    _audit(principal, "fincen_314b.request_responded", request, before=before,
           after={**_request_state(request), "has_match": has_match, "share_sar_reference": share_sar_reference})
    _answer_sender(request, response, answered_by=principal.actor_label)
    return request


def _answer(request: Fincen314bRequest, *, status_from: str, **response) -> bool:
    changed = Fincen314bRequest.objects.filter(pk=request.pk, status=status_from).update(
        status=RequestStatus.RESPONDED, updated_at=response["responded_at"], **response)
    if not changed:
        raise Conflict("The request was answered or expired meanwhile.")
    request.refresh_from_db()
    return True


def _answer_sender(inbound: Fincen314bRequest, response: dict, *, answered_by: str) -> None:
    if inbound.counterpart_id is None:
        return
    outbound = Fincen314bRequest.objects.select_for_update(of=("self",)).select_related("partner").filter(
        pk=inbound.counterpart_id, direction=RequestDirection.OUTBOUND, status=RequestStatus.SENT).first()
    if outbound is None:
        return  # expired at the sender meanwhile: the answer stays with the recipient
    before = _request_state(outbound)
    _answer(outbound, status_from=RequestStatus.SENT, responded_by=f"{outbound.partner.institution_name} ({answered_by})", **response)
    _audit(None, "fincen_314b.response_received", outbound, before=before,
           after={**_request_state(outbound), "has_match": response["has_match"]})


def requests_expire(*, now: dt.datetime | None = None) -> int:
    """Sent or received requests past their deadline → expired, with an audit entry each. Idempotent."""
    now = now or timezone.now()
    expired = 0
    while True:
        with transaction.atomic():
            due = list(Fincen314bRequest.objects.select_for_update().filter(
                status__in=RequestStatus.open_statuses(), response_deadline__lt=now).order_by("response_deadline", "pk")[:500])
            if not due:
                return expired
            Fincen314bRequest.objects.filter(pk__in=[r.pk for r in due], status__in=RequestStatus.open_statuses()).update(
                status=RequestStatus.EXPIRED, expired_at=now, updated_at=now)
            audit_records(actor=None, action="fincen_314b.request_expired", object_type="fincen314brequest",
                          changes=[(r, {"status": r.status}, {"status": RequestStatus.EXPIRED}) for r in due])
            expired += len(due)
