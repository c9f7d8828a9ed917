"""Drafts of reports: what the form data is (stored, or prefilled), what reviewing it says, and
saving it with its preparer.

The preparer of a report is whoever last changed its form data: a member (or API key) whose
`*-xml` or `*-validate` call sent form data different from the stored draft, or who saved it in
the console. Previewing or validating the stored draft unchanged does not make one its preparer.
With four-eyes filing on, the preparer cannot file (filings.reports.filing).
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from django.db import IntegrityError, transaction
from django.utils import timezone

from common.audit import audit_record
from common.errors import Conflict, NotFound, ValidationFailed
from common.permissions import require_role
from common.principal import Principal
from filings.cases import common
from filings.cases.common import actor_key
from filings.choices import CaseEventKind, CaseStatus, FilingStatus, ReportFamily
from filings.models import Case, ReportDraft
from filings.renderers import Renderer, Review, UnsupportedReport, large_transaction_renderer, suspicious_activity_renderer
from filings.reports import coverage, prefill
from monitoring.models import Alert
from onboarding.models import Entity
from organizations.choices import Role

PREPARE_ROLE = Role.L2_INVESTIGATOR
FILE_ROLE = Role.L3_OFFICER


@dataclass
class Subject:
    """What a report is about: a case (suspicious activity) or an entity and maybe its rule-24 alert."""

    family: str
    renderer: Renderer
    entity: Entity
    case: Case | None = None
    alert: Alert | None = None

    def stored(self) -> ReportDraft | None:
        drafts = ReportDraft.objects.filter(organization_id=self.entity.organization_id, mode=self.entity.mode, family=self.family)
        if self.case is not None:
            return drafts.filter(case=self.case).first()
        if self.alert is not None:
            return drafts.filter(alert=self.alert, kind=self.renderer.kind).first()
        return drafts.filter(entity=self.entity, kind=self.renderer.kind, case__isnull=True, alert__isnull=True).first()

    def selection(self) -> dict:
        """The investigator's choices of what the report covers (a case's report only)."""
        draft = self.stored() if self.case is not None else None
        return dict(draft.selection or {}) if draft is not None else {}

    def coverage(self) -> list[coverage.Covered]:
        return coverage.coverage_of(self.case, self.selection()) if self.case is not None else []

    def prefilled(self, principal, selection: dict | None = None) -> dict:
        if self.case is not None:
            return prefill.sar_prefill(self.case, principal=principal, selection=self.selection() if selection is None else selection)
        if self.alert is not None:
            return prefill.ctr_prefill(self.alert, principal=principal)
        return {"filer": prefill.filer_of(self.entity.organization)}


def _sar_renderer(entity: Entity) -> Renderer:
    try:
        return suspicious_activity_renderer(entity.jurisdiction)
    except UnsupportedReport as exc:
        raise ValidationFailed.for_field("jurisdiction", f"The entity's jurisdiction has no report: {exc}") from None


def sar_subject(principal: Principal, case_id, *, minimum: str = PREPARE_ROLE) -> Subject:
    require_role(principal, minimum)
    case = common.case_of(principal, case_id)
    return Subject(ReportFamily.SUSPICIOUS_ACTIVITY, _sar_renderer(case.entity), case.entity, case=case)


def _entity(principal: Principal, entity_id) -> Entity:
    entity = Entity.objects.filter(pk=entity_id, organization=principal.organization, mode=principal.mode).first()
    if entity is None:
        raise NotFound("No entity of yours has this id.")
    return entity


def _large_renderer(entity: Entity) -> Renderer:
    renderer = large_transaction_renderer(entity.jurisdiction)
    if renderer is None:
        raise NotFound(f"Entities in {entity.jurisdiction} have no large-transaction report (none for GB, JP, DE, FR, NL and "
                       "other jurisdictions without one).")
    return renderer


def ctr_subject(principal: Principal, entity_id, *, alert_id=None, form_data: dict | None = None,
                minimum: str = PREPARE_ROLE) -> Subject:
    """The entity's large-transaction report: for `alert_id` (ctr-draft), or for the rule-24
    alert the form data names in `alert_references` (ctr-xml, ctr-validate, file-ctr)."""
    require_role(principal, minimum)
    entity = _entity(principal, entity_id)
    renderer = _large_renderer(entity)
    rule24 = Alert.objects.filter(organization=principal.organization, mode=principal.mode, entity=entity,
                                  rule_code=prefill.LARGE_FIAT_RULE).select_related("entity", "organization")
    if alert_id is not None:
        alert = rule24.filter(pk=alert_id).first()
        if alert is None:
            raise NotFound("No large-fiat-transaction (rule 24) alert of this entity has this id.")
        return Subject(ReportFamily.LARGE_TRANSACTION, renderer, entity, alert=alert)
    return Subject(ReportFamily.LARGE_TRANSACTION, renderer, entity, alert=_referenced_alert(rule24, form_data))


def _referenced_alert(rule24, form_data: dict | None) -> Alert | None:
    references = (form_data or {}).get("alert_references")
    if not isinstance(references, list):
        return None
    ids = []
    for reference in references:
        try:
            ids.append(UUID(str(reference).strip()))
        except ValueError:  # not a uuid: a reference of the filer's own
            continue
    found = {alert.pk: alert for alert in rule24.filter(pk__in=ids)}
    return next((found[i] for i in ids if i in found), None)


def current_form(subject: Subject, principal) -> tuple[dict, str, ReportDraft | None]:
    """(form data, "stored" | "prefilled", the stored draft)."""
    draft = subject.stored()
    if draft is not None:
        return draft.form_data, "stored", draft
    return subject.prefilled(principal), "prefilled", None


def form_or_current(subject: Subject, principal, form_data: dict | None) -> tuple[dict, ReportDraft | None, bool]:
    """The body's form data, or — for an empty body — the stored draft, else the prefill.
    Returns (data, stored draft, whether the data came from the body)."""
    if form_data:
        return form_data, subject.stored(), True
    data, _, draft = current_form(subject, principal)
    return data, draft, False


def review_or_422(subject: Subject, data: dict) -> Review:
    """The review of readable form data; unreadable form data (wrong types, unknown fields) is a 422."""
    review = subject.renderer.review(data)
    if review.rendering is None:
        raise issues_failed(review, "The form data cannot be read.")
    return review


def issues_failed(review: Review, message: str) -> ValidationFailed:
    details = [{"field": issue.path or None, "path": issue.path, "line": issue.line, "message": issue.message}
               for issue in review.errors]
    return ValidationFailed(f"{message} {len(details)} error(s); the first: {details[0]['path'] or '(form)'}: {details[0]['message']}"
                            if details else message, details=details)


def is_validated(draft: ReportDraft | None, data: dict) -> bool:
    """Whether `data` is the stored draft and its last validation, made since its last change, passed."""
    return (draft is not None and draft.form_data == data and bool(draft.valid) and draft.validated_at is not None
            and draft.validated_at >= draft.prepared_at)


@transaction.atomic
def draft_save(*, principal: Principal, subject: Subject, form_data: dict, review: Review | None = None,
               selection: dict | None = None) -> ReportDraft | None:
    """Store the form data (and, when given, the selection of what it covers) as the draft. The
    caller becomes its preparer only if either changed. Nothing is stored for a closed case (its
    report is decided) or unreadable form data."""
    if subject.case is not None and Case.objects.filter(pk=subject.case.pk, status=CaseStatus.CLOSED).exists():
        return None
    if review is not None and review.rendering is None:
        return None
    now, draft = timezone.now(), _locked_draft(subject)
    changed = draft is None or draft.form_data != form_data or (selection is not None and selection != draft.selection)
    if draft is None:
        draft = ReportDraft(organization_id=subject.entity.organization_id, mode=subject.entity.mode, family=subject.family,
                            entity=subject.entity, case=subject.case, alert=subject.alert)
    if selection is not None:
        draft.selection = selection
    if changed:
        draft.form_data, draft.prepared_by, draft.prepared_at = form_data, principal.user, now
        draft.prepared_by_actor, draft.prepared_by_label = actor_key(principal), common.preparer_label(principal)
    draft.kind, draft.jurisdiction = subject.renderer.kind, subject.renderer.jurisdiction
    if review is not None:
        draft.validated_at, draft.valid = now, review.valid
    _save_draft(draft)
    if changed:
        _announce_draft(principal, subject, draft)
    return draft


@transaction.atomic
def sar_selection_set(*, principal: Principal, case_id, include=(), exclude=(), reset: bool = False) -> Subject:
    """The investigator chooses what the case's report covers: `include` / `exclude` alert ids of
    the case (over the default of filings.reports.coverage); `reset` drops earlier choices first.
    The draft is prefilled again from the new selection (its caller becomes the preparer): the
    alerts, transactions, amount, dates and narrative follow what is included."""
    subject = sar_subject(principal, case_id)
    case = common.case_of(principal, subject.case.pk, lock=True)
    if case.is_closed:
        raise Conflict("The case is closed: its report is decided. Reopen the case to change what the report covers.")
    include, exclude = [str(i) for i in include], [str(i) for i in exclude]
    both = sorted(set(include) & set(exclude))
    if both:
        raise ValidationFailed.for_field("include", f"An alert cannot be both included and excluded: {', '.join(both)}.")
    ids = {str(i) for i in case.alert_links.values_list("alert_id", flat=True)}
    for field, given in (("include", include), ("exclude", exclude)):
        unknown = [i for i in given if i not in ids]
        if unknown:
            raise ValidationFailed.for_field(field, f"Not an alert of {case.reference}: {', '.join(unknown)}.")
    before = {} if reset else subject.selection()
    after = {**before, **{i: True for i in include}, **{i: False for i in exclude}}
    draft_save(principal=principal, subject=subject, form_data=subject.prefilled(principal, selection=after), selection=after)
    audit_record(actor=principal, action="report.selection_changed", object_type="case", object_id=case.pk,
                 organization=case.organization, mode=case.mode, before={"selection": before}, after={
                     "selection": after, "included": [str(item.alert.pk) for item in subject.coverage() if item.included]})
    return subject


def draft_validate(*, principal: Principal, subject: Subject, form_data: dict | None) -> Review:
    """sar-validate / ctr-validate: the schema and business checks of the form data (an empty body:
    the stored draft, else the prefill); form data sent, or a stored draft, is saved as the draft
    with the outcome (`validated_at`, `valid`). Unreadable form data is reported, not saved."""
    data, draft, from_body = form_or_current(subject, principal, form_data)
    review = subject.renderer.review(data)
    if from_body or draft is not None:
        draft_save(principal=principal, subject=subject, form_data=data, review=review)
    return review


def _locked_draft(subject: Subject) -> ReportDraft | None:
    draft = subject.stored()
    return ReportDraft.objects.select_for_update().filter(pk=draft.pk).first() if draft else None


def _save_draft(draft: ReportDraft) -> None:
    try:
        with transaction.atomic():
            draft.save()
    except IntegrityError:  # a concurrent first save of the same draft: theirs stands; try again
        raise Conflict("The draft was saved by someone else at the same moment; send it again.") from None


def _announce_draft(principal: Principal, subject: Subject, draft: ReportDraft) -> None:
    audit_record(actor=principal, action="report.draft_saved", object_type="report_draft", object_id=draft.pk,
                 organization=subject.entity.organization, mode=subject.entity.mode,
                 after={"kind": draft.kind, "case_id": str(subject.case.pk) if subject.case else None,
                        "alert_id": str(subject.alert.pk) if subject.alert else None})
    if subject.case is None:
        return
    common.timeline_add(subject.case, CaseEventKind.DRAFT_SAVED, by=principal, body=f"{draft.kind} draft saved.",
                        data={"kind": draft.kind, "draft_id": str(draft.pk)})
    Case.objects.filter(pk=subject.case.pk, filing_status=FilingStatus.NONE).update(filing_status=FilingStatus.DRAFT)
