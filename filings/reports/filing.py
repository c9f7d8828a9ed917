"""Filing a report: validate, apply the four-eyes rule, store the document and a filing record,
close the case as filed (suspicious activity), emit `sar.filed` / `ctr.filed` and notify.

Rendering and validation run before the transaction (a CA STR with 1,000 transactions takes a
second); the transaction then locks the case and checks again that nothing changed meanwhile.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from datetime import datetime
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.utils import timezone

from common.audit import audit_record
from common.errors import Conflict, Forbidden, ValidationFailed
from common.principal import Principal
from filings.cases import common
from filings.cases.common import actor_key
from filings.cases.services import status_move
from filings.choices import CaseEventKind, CaseStatus, FilingStatus
from filings.documents.model import as_json
from filings.models import CaseAlert, FilingRecord, ReportDraft
from filings.renderers import Review
from filings.renderers.summary import amount_involved, total_in
from filings.reports import coverage, drafts
from filings.reports.activity import LOCAL_CURRENCY
from filings.reports.drafts import FILE_ROLE, Subject, ctr_subject, draft_save, form_or_current, issues_failed, review_or_422, sar_subject
from monitoring.alerts.services import alert_dispose
from monitoring.choices import AlertStatus, Disposition
from monitoring.models import Alert
from monitoring.notifications.services import notification_create
from webhooks.services import event_emit


def four_eyes_applies(subject: Subject) -> bool:
    """On by default in live mode; the organization's `four_eyes_filing` turns it on or off in both."""
    return subject.entity.organization.four_eyes_in(subject.entity.mode)


def four_eyes_check(principal: Principal, subject: Subject, draft: ReportDraft | None, data: dict, from_body: bool) -> None:
    """With four-eyes filing on, the filer files a draft someone else prepared, unchanged."""
    if not four_eyes_applies(subject):
        return
    if draft is None or (from_body and data != draft.form_data):
        raise Forbidden("Four-eyes filing is on: the report must be prepared by another member first. Have a colleague save or "
                        "validate the form data, then file it unchanged.", code="FOUR_EYES")
    if draft.prepared_by_actor == actor_key(principal):
        raise Forbidden(f"Four-eyes filing is on: you prepared this report (last change {draft.prepared_at:%Y-%m-%d %H:%M} UTC), "
                        "so another officer must file it.", code="FOUR_EYES")


def _valid_review(subject: Subject, data: dict) -> Review:
    review = review_or_422(subject, data)
    if not review.valid:
        raise issues_failed(review, f"The {subject.renderer.kind} is not valid and was not filed.")
    return review


# --- Suspicious-activity reports -----------------------------------------------------------------

DETERMINATION_REASON = "Determination made; case closed."
FILE_FROM = (CaseStatus.DETERMINATION,)
"""The statuses a case's report can be filed from (docs/cases.md, "No filing without review"):
determination is reached only through the state machine (open → investigating → [under_review |
escalated →] determination), so a filed case was investigated and decided."""


def review_check(case, draft: ReportDraft | None, data: dict) -> None:
    """409 REVIEW_REQUIRED naming everything missing: the case in determination, and the form data
    filed being the stored draft as last validated (valid, and unchanged since)."""
    missing = []
    if case.status not in FILE_FROM:
        missing.append({"field": "status", "message": f"The case is {case.status}; a report is filed from "
                        f"{' or '.join(FILE_FROM)} only (investigate it, then move it to determination).",
                        "status": case.status, "required": list(FILE_FROM)})
    if not drafts.is_validated(draft, data):
        why = ("nothing was saved as the draft" if draft is None else "the form data sent differs from the stored draft"
               if draft.form_data != data else "the draft was not validated since its last change" if draft.validated_at is None
               or draft.validated_at < draft.prepared_at else "the draft's last validation failed")
        missing.append({"field": "draft", "message": f"File a validated document: validate the draft (sar-validate), then file "
                        f"it unchanged; {why}."})
    if missing:
        raise Conflict(f"{case.reference} cannot be filed yet: " + " ".join(item["message"] for item in missing),
                       code="REVIEW_REQUIRED", details=missing)


def sar_file(*, principal: Principal, case_id, form_data: dict | None = None) -> FilingRecord:
    """File the case's SAR/STR/SMR: the body's form data, else the stored draft. Four eyes apply
    (403), the form data must be valid (422), the case in determination and the form data the
    validated draft (409, review_check)."""
    subject = sar_subject(principal, case_id, minimum=FILE_ROLE)
    data, draft, from_body = form_or_current(subject, principal, form_data)
    four_eyes_check(principal, subject, draft, data, from_body)
    review = _valid_review(subject, data)
    review_check(subject.case, draft, data)
    return _sar_record(principal, subject, data, from_body, review)


@transaction.atomic
def _sar_record(principal: Principal, subject: Subject, data: dict, from_body: bool, review: Review) -> FilingRecord:
    case = common.case_of(principal, subject.case.pk, lock=True)
    draft = _unchanged_draft(principal, subject, data, from_body)
    review_check(case, draft, data)
    form, now = review.form, timezone.now()
    amount, _ = amount_involved(form, form.activity.currency)
    start = form.activity.start_date
    record = _record(principal, subject, review, data, draft, now=now, amount=amount or Decimal(0), currency=form.activity.currency,
                     start=start, end=form.activity.end_date or start)
    # The reason and the alerts' notes are read by every role: they say a determination was made, not
    # that a report was filed (the report_filed step and the filing records say that, from l2_investigator).
    status_move(principal, case, CaseStatus.CLOSED, DETERMINATION_REASON,
                extra={"filing_status": FilingStatus.FILED, "last_filed_at": now})
    common.timeline_add(case, CaseEventKind.REPORT_FILED, by=principal, body=f"{record.kind} filed as {record.tracking_id}.",
                        data={"filing_id": str(record.pk), "kind": record.kind, "tracking_id": record.tracking_id})
    _dispose_alerts(principal, case, record, [item["alert_id"] for item in record.selection.get("included", [])])
    event_emit(organization=case.organization, mode=case.mode, type="sar.filed", data={
        "sar_id": str(record.pk), "case_id": str(case.pk), "entity_id": str(case.entity_id), "bsa_id": record.bsa_id or record.tracking_id,
        "filing_date": record.filing_date, "amount_involved": record.amount, "activity_start_date": record.activity_start_date,
        "activity_end_date": record.activity_end_date,
    })
    notification_create(organization=case.organization, mode=case.mode, type="sar_filed", entity_id=case.entity_id, case_id=case.pk,
                        title=f"{record.kind} filed: {case.reference}",
                        body=f"{record.kind} {record.tracking_id} on {case.entity.legal_name} filed by {principal.actor_label}: "
                             f"{record.amount} {record.currency}, activity {record.activity_start_date} to {record.activity_end_date}.")
    return record


def _unchanged_draft(principal: Principal, subject: Subject, data: dict, from_body: bool) -> ReportDraft | None:
    """The draft the filing is made from, checked again under the case lock: the body's data is
    saved as the draft (its filer then prepared it); a stored draft must not have changed."""
    locked = subject.stored()
    four_eyes_check(principal, subject, locked, data, from_body)
    if from_body:
        return draft_save(principal=principal, subject=subject, form_data=data)
    if locked is not None and locked.form_data != data:
        raise Conflict("The draft changed while it was being filed: review it again, then file.")
    return locked


def _dispose_alerts(principal: Principal, case, record: FilingRecord, included: list[str]) -> None:
    """The alerts the report covers that are still open are true positives: a report was filed on
    them (alerts left out stay as they are). They are locked
    as they are read: an alert an investigator is disposing meanwhile is waited for and then keeps
    that disposition, where reading first and locking each after would find it closed and fail the
    filing with a 409."""
    still_open = (Alert.objects.select_for_update(of=("self",), no_key=True).filter(case_link__case=case, pk__in=included)
                  .exclude(status=AlertStatus.CLOSED).order_by("pk"))
    for alert_id in list(still_open.values_list("pk", flat=True)):
        alert_dispose(principal=principal, alert_id=alert_id, disposition=Disposition.TRUE_POSITIVE,
                      notes=f"Confirmed by the determination of {case.reference}.")


# --- Large-transaction reports -------------------------------------------------------------------

def ctr_file(*, principal: Principal, entity_id, form_data: dict | None, alert_id=None) -> FilingRecord:
    """File a CTR/LCTR/TTR: the body's form data (from ctr-draft, possibly edited), or with an
    empty body the stored draft, else the prefill, of `alert_id`."""
    if not form_data and alert_id is None:
        raise ValidationFailed.for_field(None, "Send the report's form data (start from ctr-draft/{alert_id}), or name alert_id.")
    subject = ctr_subject(principal, entity_id, alert_id=alert_id, form_data=form_data, minimum=FILE_ROLE)
    data, draft, from_body = form_or_current(subject, principal, form_data)
    four_eyes_check(principal, subject, draft, data, from_body)
    review = _valid_review(subject, data)
    return _ctr_record(principal, subject, data, from_body, review)


@transaction.atomic
def _ctr_record(principal: Principal, subject: Subject, data: dict, from_body: bool, review: Review) -> FilingRecord:
    form, now = review.form, timezone.now()
    if subject.alert is not None:
        Alert.objects.select_for_update(no_key=True).filter(pk=subject.alert.pk).first()
        _require_first_report(subject, form)
    draft = _unchanged_draft(principal, subject, data, from_body)
    currency = LOCAL_CURRENCY.get(subject.renderer.jurisdiction, "USD")
    amount, _ = total_in(form.transactions, currency)
    days = sorted(tx.day for tx in form.transactions)
    record = _record(principal, subject, review, data, draft, now=now, amount=amount, currency=currency, start=days[0], end=days[-1])
    event_emit(organization=subject.entity.organization, mode=subject.entity.mode, type="ctr.filed", data={
        "filing_id": str(record.pk), "kind": record.kind, "jurisdiction": record.jurisdiction, "entity_id": str(record.entity_id),
        "alert_id": str(record.alert_id) if record.alert_id else None, "bsa_id": record.bsa_id or None,
        "filing_date": record.filing_date, "amount_involved": record.amount, "currency": record.currency,
    })
    case_link = CaseAlert.objects.select_related("case").filter(alert=subject.alert).first() if subject.alert else None
    if case_link is not None:
        common.timeline_add(case_link.case, CaseEventKind.REPORT_FILED, by=principal,
                            body=f"{record.kind} filed as {record.tracking_id} for alert {record.alert_id}.",
                            data={"filing_id": str(record.pk), "kind": record.kind, "tracking_id": record.tracking_id})
    return record


def _require_first_report(subject: Subject, form) -> None:
    if form.amendment.type.value != "initial":
        return
    filed = FilingRecord.objects.filter(alert=subject.alert, kind=subject.renderer.kind, amendment_type="initial").first()
    if filed is not None:
        raise Conflict(f"A {filed.kind} was already filed for this alert ({filed.tracking_id}); file a correction "
                       "(amendment.type \"correction\" with its prior_report_id) instead.")


# --- The record --------------------------------------------------------------------------------

def _tracking_id(kind: str, jurisdiction: str, now: datetime) -> str:
    return f"{kind}-{jurisdiction}-{now:%Y%m%d}-{secrets.token_hex(4).upper()}"


def _record(principal: Principal, subject: Subject, review: Review, data: dict, draft: ReportDraft | None, *, now: datetime,
            amount: Decimal, currency: str, start, end) -> FilingRecord:
    form, rendering, renderer = review.form, review.rendering, subject.renderer
    preparer = (draft.prepared_by, draft.prepared_by_actor, draft.prepared_by_label) if draft else (
        principal.user, actor_key(principal), common.preparer_label(principal))
    selection = coverage.summary(subject.coverage()) if subject.case is not None else {}
    if selection:
        selection["choices"] = dict(draft.selection or {}) if draft else {}
    try:
        with transaction.atomic():
            record = FilingRecord.objects.create(
                organization=subject.entity.organization, mode=subject.entity.mode, family=subject.family, kind=renderer.kind,
                jurisdiction=renderer.jurisdiction, entity=subject.entity, case=subject.case, alert=subject.alert,
                tracking_id=_tracking_id(renderer.kind, renderer.jurisdiction, now), report_reference=form.report_reference or "",
                amendment_type=form.amendment.type.value, prior_report_id=form.amendment.prior_report_id or "",
                amount=amount.quantize(Decimal("0.01")), currency=currency, activity_start_date=start, activity_end_date=end,
                filing_date=renderer.filing_day(form), filer=as_json(form.filer), form_data=data, document=rendering.document,
                content_type=rendering.content_type, filename=rendering.filename,
                attachments={name: base64.b64encode(content).decode() for name, content in rendering.attachments.items()},
                document_sha256=hashlib.sha256(rendering.document).hexdigest(), warnings=[i.as_dict() for i in review.warnings],
                filed_at=now, filed_by=principal.user, filed_by_actor=actor_key(principal),
                filed_by_label=common.preparer_label(principal),
                prepared_by=preparer[0], prepared_by_actor=preparer[1], prepared_by_label=preparer[2], selection=selection,
                four_eyes_required=four_eyes_applies(subject), four_eyes_setting=subject.entity.organization.four_eyes_setting,
            )
    except IntegrityError:
        raise Conflict("This report was filed by someone else at the same moment.") from None
    audit_record(actor=principal, action="report.filed", object_type="filing_record", object_id=record.pk,
                 organization=record.organization, mode=record.mode,
                 after={"kind": record.kind, "tracking_id": record.tracking_id, "case_id": str(record.case_id) if record.case_id else None,
                        "alert_id": str(record.alert_id) if record.alert_id else None, "sha256": record.document_sha256,
                        "prepared_by": record.prepared_by_label, "four_eyes_required": record.four_eyes_required,
                        "four_eyes_setting": record.four_eyes_setting})
    return record
