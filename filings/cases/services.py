"""Case writes an investigator makes: assign, change status, comment. Each writes its timeline
event, audit row, webhook event and notification in the same transaction (docs/architecture.md §6)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from common.audit import audit_record
from common.errors import Conflict, ValidationFailed
from common.permissions import require_role
from common.principal import Principal
from filings.cases import common, metrics
from filings.choices import CaseEventKind, CaseStatus, FilingStatus
from filings.models import Case, CaseEvent, ReportDraft
from monitoring.choices import AlertStatus
from monitoring.models import Alert
from monitoring.notifications.services import notification_create
from organizations.choices import Role
from organizations.models import Membership
from webhooks.services import event_emit

ASSIGN_ROLE = Role.L2_INVESTIGATOR
STATUS_ROLE = Role.L2_INVESTIGATOR
REOPEN_ROLE = Role.L3_OFFICER
COMMENT_ROLE = Role.L1_ANALYST
ASSIGNEE_ROLE = Role.L2_INVESTIGATOR  # `case_assigned`: "a case was assigned to an investigator" (docs/webhooks.md)
MAX_COMMENT = 10_000


@transaction.atomic
def case_assign(*, principal: Principal, case_id, assignee_id) -> Case:
    """Assign to a member of the organization who is an investigator or above. Assigning the
    current assignee again changes nothing and emits nothing."""
    require_role(principal, ASSIGN_ROLE)
    case = common.case_of(principal, case_id, lock=True)
    if case.is_closed:
        raise Conflict("The case is closed: reopen it before assigning it.")
    membership = (Membership.objects.select_related("user")
                  .filter(organization=principal.organization, user_id=assignee_id, user__is_active=True).first())
    if membership is None:
        raise ValidationFailed.for_field("assignee_id", "No member of your organization has this id.")
    if not Role.at_least(membership.role, ASSIGNEE_ROLE):
        raise ValidationFailed.for_field("assignee_id", f"Cases go to an {ASSIGNEE_ROLE} or above; this member is {membership.role}.")
    if case.assigned_to_id == membership.user_id:
        return case
    previous, now = common.assignee_id(case), timezone.now()
    case.assigned_to, case.assigned_at = membership.user, now
    case.save(update_fields=["assigned_to", "assigned_at", "updated_at"])
    _after_assign(principal, case, membership.user, previous, now)
    return case


def _after_assign(principal: Principal, case: Case, user, previous: str | None, now) -> None:
    common.timeline_add(case, CaseEventKind.ASSIGNED, by=principal, body=f"Assigned to {user.email}.",
                        data={"assigned_to": str(user.pk), "previous_assignee": previous})
    audit_record(actor=principal, action="case.assigned", object_type="case", object_id=case.pk, organization=case.organization,
                 mode=case.mode, before={"assigned_to": previous}, after={"assigned_to": str(user.pk)})
    event_emit(organization=case.organization, mode=case.mode, type="case.assigned", data={
        "case_id": str(case.pk), "entity_id": str(case.entity_id), "assigned_to": str(user.pk), "previous_assignee": previous,
        "assigned_by": principal.actor_label, "assigned_at": now,
    })
    notification_create(organization=case.organization, mode=case.mode, type="case_assigned", entity_id=case.entity_id,
                        case_id=case.pk, title=f"{case.reference} assigned to {user.email}",
                        body=f"{case.reference} ({case.priority} priority, {case.entity.legal_name}) was assigned by "
                             f"{principal.actor_label}.")


@transaction.atomic
def case_status_set(*, principal: Principal, case_id, status: str, reason: str = "") -> Case:
    """Move the case along CaseStatus's transitions with a conditional update, so of two
    concurrent changes one wins and the other gets a 409. Closing, and reopening a closed case
    (l3_officer or above), need a reason: it documents the decision (e.g. not to file)."""
    require_role(principal, STATUS_ROLE)
    case = common.case_of(principal, case_id)
    CaseStatus.require_move(case.status, status)
    if CaseStatus.is_reopen(case.status, status):
        require_role(principal, REOPEN_ROLE)
    if status == CaseStatus.CLOSED or CaseStatus.is_reopen(case.status, status):
        _require_reason(reason, "closing" if status == CaseStatus.CLOSED else "reopening")
    return status_move(principal, case, status, reason)


def _require_reason(reason: str, doing: str) -> None:
    if not (reason or "").strip():
        raise ValidationFailed.for_field("reason", f"Give a reason for {doing} the case: it documents the decision.")


def status_move(principal: Principal, case: Case, status: str, reason: str, *, extra: dict | None = None) -> Case:
    """The conditional update and its effects. Shared with filing (case → closed, filed)."""
    previous, now = case.status, timezone.now()
    changes = {"status": status, **_status_effects(case, status, now), **(extra or {})}
    if not Case.objects.filter(pk=case.pk, status=previous).update(**changes, updated_at=now):
        current = Case.objects.filter(pk=case.pk).values_list("status", flat=True).first()
        CaseStatus.require_move(current, status)  # usually raises, naming what is allowed now
        raise Conflict(f"The case changed while you were acting on it: it is now {current}. Try again.")
    for field, value in changes.items():
        setattr(case, field, value)
    if previous == CaseStatus.OPEN and status == CaseStatus.INVESTIGATING:
        Alert.objects.filter(case_link__case=case, status=AlertStatus.OPEN).update(status=AlertStatus.IN_REVIEW, updated_at=now)
    _after_move(principal, case, previous, reason, now)
    return case


def _status_effects(case: Case, status: str, now) -> dict:
    if status == CaseStatus.CLOSED:
        filing = case.filing_status if case.filing_status == FilingStatus.FILED else FilingStatus.NOT_FILED
        return {"closed_at": now, "filing_status": filing}
    if case.status != CaseStatus.CLOSED:
        return {}
    # A reopen: a new SLA from now; after a filing the continuing-activity deadline applies.
    case.sla_started_at = now
    metrics.refresh_deadlines(case, now=now)
    reopened = {"closed_at": None, "sla_started_at": now, "report_due_at": case.report_due_at, "sla_due_at": case.sla_due_at,
                "sla_breach_notified_at": None}
    if case.filing_status == FilingStatus.NOT_FILED:
        reopened["filing_status"] = FilingStatus.DRAFT if ReportDraft.objects.filter(case=case).exists() else FilingStatus.NONE
    return reopened


def _after_move(principal: Principal, case: Case, previous: str, reason: str, now) -> None:
    common.timeline_add(case, CaseEventKind.STATUS_CHANGED, by=principal, body=reason,
                        data={"previous_status": previous, "new_status": case.status})
    audit_record(actor=principal, action="case.status_changed", object_type="case", object_id=case.pk,
                 organization=case.organization, mode=case.mode, before={"status": previous},
                 after={"status": case.status, "reason": reason, "filing_status": case.filing_status})
    event_emit(organization=case.organization, mode=case.mode, type="case.status_changed",
               data=common.status_changed_payload(case, previous, common.alert_ids_of(case), now))


@transaction.atomic
def case_comment_add(*, principal: Principal, case_id, body: str) -> CaseEvent:
    """A note on the timeline; allowed on closed cases too (notes after a decision)."""
    require_role(principal, COMMENT_ROLE)
    text = (body or "").strip()
    if not text:
        raise ValidationFailed.for_field("body", "The comment is empty.")
    if len(text) > MAX_COMMENT:
        raise ValidationFailed.for_field("body", f"At most {MAX_COMMENT} characters.")
    case = common.case_of(principal, case_id)
    event = common.timeline_add(case, CaseEventKind.COMMENT, by=principal, body=text)
    Case.objects.filter(pk=case.pk).update(updated_at=event.created_at)
    audit_record(actor=principal, action="case.commented", object_type="case", object_id=case.pk, organization=case.organization,
                 mode=case.mode, after={"event_id": str(event.pk)})
    return event
