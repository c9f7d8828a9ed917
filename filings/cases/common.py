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


def preparer_label(principal: Principal) -> str:
    """Who prepared or filed a report: the person's e-mail when one acted; a key with its name
    ("api_key:sk_live_ab12 (Nightly filer)") otherwise."""
    key = principal.api_key
    if key is not None and key.name:
        return f"{principal.actor_label} ({key.name})"[:255]
    return principal.actor_label


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


def numbers_take(organization, mode: str, count: int) -> int:
    """The first of `count` consecutive case numbers, taken under a lock on the sequence row that
    lasts until the transaction ends, so numbers are never shared or skipped. One `UPDATE …
    RETURNING` where the database has it (PostgreSQL; SQLite from 3.35), else a locked read and a
    write. The first case of an organization and mode makes the row."""
    for _ in range(2):
        first = _advance(organization, mode, count)
        if first is not None:
            return first
        try:
            with transaction.atomic():
                CaseSequence.objects.create(organization=organization, mode=mode, last=0)
        except IntegrityError:  # a concurrent first case made it
            pass
    raise RuntimeError("the case sequence row could not be made")


def _advance(organization, mode: str, count: int) -> int | None:
    """Move the sequence on by `count`; the first number taken, or None when it has no row yet."""
    if not _updates_return_rows():
        sequence = CaseSequence.objects.select_for_update().filter(organization=organization, mode=mode).first()
        if sequence is None:
            return None
        sequence.last += count
        sequence.save(update_fields=["last"])
        return sequence.last - count + 1
    meta, quote = CaseSequence._meta, connection.ops.quote_name
    last, organization_field, mode_field = meta.get_field("last"), meta.get_field("organization"), meta.get_field("mode")
    sql = (f"UPDATE {quote(meta.db_table)} SET {quote(last.column)} = {quote(last.column)} + %s "
           f"WHERE {quote(organization_field.column)} = %s AND {quote(mode_field.column)} = %s RETURNING {quote(last.column)}")
    with connection.cursor() as cursor:
        cursor.execute(sql, [count, organization_field.get_db_prep_value(organization.pk, connection), mode])
        row = cursor.fetchone()
    return None if row is None else row[0] - count + 1


def _updates_return_rows() -> bool:
    if connection.vendor == "sqlite":
        import sqlite3

        return sqlite3.sqlite_version_info >= (3, 35)
    return connection.vendor == "postgresql"


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
    """Exactly the fixed fields of `case.status_changed` (docs/cases.md, webhooks/catalogue.py)."""
    return {"case_id": str(case.pk), "entity_id": str(case.entity_id), "previous_status": previous, "new_status": case.status,
            "assigned_to": assignee_id(case), "alert_ids": alert_ids, "updated_at": at}
