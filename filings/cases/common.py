"""What the case services share: who acts, the case looked up in the caller's tenant, numbering,
timeline rows and the webhook payloads of `case.*` events."""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, connection, transaction

from common.audit import actor_of
from common.errors import NotFound
from common.principal import Principal
from filings.models import Case, CaseAlert, CaseEvent, CaseSequence


def actor_key(who) -> str:
    """A stable identity for the four-eyes rule: user:<id>, api_key:<id> or system:."""
    actor = actor_of(who)
    return f"{actor.type}:{actor.id}"


def actor_label(who) -> str:
    """As alerts show who disposed them: the user's e-mail, api_key:<prefix>, or system."""
    return who.actor_label if isinstance(who, Principal) else actor_of(who).label


def actor_user(who):
    return who.user if isinstance(who, Principal) else None


def case_of(principal: Principal, case_id, *, lock: bool = False) -> Case:
    """The caller's case (organization and mode), else a 404 — also for another tenant's id."""
    cases = Case.objects.select_related("entity", "assigned_to")
    if lock:
        cases = cases.select_for_update(of=("self",), no_key=True)
    case = cases.filter(pk=case_id, organization=principal.organization, mode=principal.mode).first()
    if case is None:
        raise NotFound("No case of yours has this id.")
    return case


NUMBERS_TAKE_SQL = "UPDATE {table} SET last = last + %s WHERE organization_id = %s AND mode = %s RETURNING last"


def numbers_take(organization, mode: str, count: int) -> int:
    """The first of `count` consecutive case numbers. One statement: the UPDATE locks the sequence
    row until the transaction ends, so numbers are never shared or skipped (RETURNING: PostgreSQL,
    and SQLite from 3.35)."""
    sql = NUMBERS_TAKE_SQL.format(table=connection.ops.quote_name(CaseSequence._meta.db_table))
    organization_id = CaseSequence._meta.get_field("organization").get_db_prep_value(organization.pk, connection)
    for _ in range(2):
        with connection.cursor() as cursor:
            cursor.execute(sql, [count, organization_id, mode])
            row = cursor.fetchone()
        if row is not None:
            return row[0] - count + 1
        try:  # the first case of this organization and mode
            with transaction.atomic():
                CaseSequence.objects.create(organization=organization, mode=mode, last=0)
        except IntegrityError:  # a concurrent first case made it
            pass
    raise RuntimeError("the case sequence row could not be made")


def alert_ids_of(case: Case) -> list[str]:
    return [str(i) for i in CaseAlert.objects.filter(case=case).order_by("attached_at", "id").values_list("alert_id", flat=True)]


def timeline_row(case: Case, kind: str, *, by=None, body: str = "", data: dict | None = None) -> CaseEvent:
    """An unsaved timeline event (save it, or bulk_create many)."""
    return CaseEvent(organization_id=case.organization_id, mode=case.mode, case=case, kind=kind, actor=actor_user(by),
                     actor_label=actor_label(by), body=body, data=data or {})


def timeline_add(case: Case, kind: str, *, by=None, body: str = "", data: dict | None = None) -> CaseEvent:
    event = timeline_row(case, kind, by=by, body=body, data=data)
    event.save()
    return event


def assignee_id(case: Case) -> str | None:
    return str(case.assigned_to_id) if case.assigned_to_id else None


def created_payload(case: Case, alert_ids: list[str]) -> dict:
    return {"case_id": str(case.pk), "entity_id": str(case.entity_id), "status": case.status, "priority": case.priority,
            "assigned_to": assignee_id(case), "alert_ids": alert_ids, "created_at": case.created_at}


def status_changed_payload(case: Case, previous: str, alert_ids: list[str], at: datetime) -> dict:
    """Exactly the spec's fields of `case.status_changed`."""
    return {"case_id": str(case.pk), "entity_id": str(case.entity_id), "previous_status": previous, "new_status": case.status,
            "assigned_to": assignee_id(case), "alert_ids": alert_ids, "updated_at": at}
