"""Cases by hand (the console): open a case, merge cases of one entity, split alerts out of a case.

Alerts stay with one entity: a case is one entity's investigation, so merging is limited to
cases of the same entity. Alerts of a closed case are its record and do not move.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from common.audit import audit_record
from common.errors import Conflict, NotFound, ValidationFailed
from common.permissions import require_role
from common.principal import Principal
from filings.cases import common, metrics
from filings.cases.attach import lock_entities
from filings.choices import CaseEventKind, CaseOrigin, CaseStatus, FilingStatus
from filings.models import Case, CaseAlert
from monitoring.models import Alert
from onboarding.models import Entity
from organizations.choices import Role
from webhooks.services import event_emit

REGROUP_ROLE = Role.L2_INVESTIGATOR


def _alerts_of_entity(principal: Principal, entity_id, alert_ids) -> list[Alert]:
    wanted = {str(i) for i in alert_ids}
    alerts = list(Alert.objects.filter(pk__in=wanted, organization=principal.organization, mode=principal.mode, entity_id=entity_id)
                  .select_related("case_link__case").order_by("created_at", "id"))
    missing = wanted - {str(alert.pk) for alert in alerts}
    if missing:
        raise ValidationFailed.for_field("alert_ids", f"Not alerts of this entity: {', '.join(sorted(missing))}.")
    return alerts


def _source_case(alert: Alert) -> Case | None:
    try:
        return alert.case_link.case
    except CaseAlert.DoesNotExist:
        return None


def _recompute(case: Case, now) -> None:
    alerts = Alert.objects.filter(case_link__case=case).values_list("severity", "created_at")
    if metrics.apply_alerts(case, alerts, now=now, replace=True):
        case.save(update_fields=[*metrics.DERIVED_FIELDS, "updated_at"])


def _move_alerts(principal: Principal, alerts: list[Alert], target: Case, now) -> None:
    """Detach the alerts from their cases (never a closed one) and attach them to `target`."""
    sources: dict = {}
    for alert in alerts:
        source = _source_case(alert)
        if source is not None and source.pk != target.pk:
            if source.is_closed:
                raise Conflict(f"Alert {alert.pk} belongs to {source.reference}, which is closed: its alerts are its record.")
            sources.setdefault(source.pk, (source, []))[1].append(str(alert.pk))
    CaseAlert.objects.filter(alert__in=alerts).exclude(case=target).delete()
    CaseAlert.objects.bulk_create([CaseAlert(case=target, alert=alert) for alert in alerts], ignore_conflicts=True)
    for source, ids in sources.values():
        common.timeline_add(source, CaseEventKind.ALERTS_DETACHED, by=principal, body=f"{len(ids)} alert(s) moved to {target.reference}.",
                            data={"alert_ids": ids, "to_case_id": str(target.pk)})
        _recompute(source, now)


def _new_case(principal: Principal, entity: Entity, *, origin: str, title: str, now) -> Case:
    case = Case(organization=principal.organization, mode=principal.mode, entity=entity, origin=origin, title=title[:200],
                number=common.numbers_take(principal.organization, principal.mode, 1), sla_started_at=now, detected_at=now,
                opened_by_label=principal.actor_label)
    metrics.refresh_deadlines(case, now=now)
    case.save()
    return case


def _announce_created(principal: Principal, case: Case, reason: str, extra: dict) -> None:
    ids = common.alert_ids_of(case)
    common.timeline_add(case, CaseEventKind.CREATED, by=principal, body=reason, data={"alert_ids": ids, "origin": case.origin, **extra})
    audit_record(actor=principal, action="case.created", object_type="case", object_id=case.pk, organization=case.organization,
                 mode=case.mode, after={"number": case.number, "origin": case.origin, "alert_ids": ids, "reason": reason, **extra})
    event_emit(organization=case.organization, mode=case.mode, type="case.created", data=common.created_payload(case, ids))


@transaction.atomic
def case_open(*, principal: Principal, entity_id, alert_ids=(), title: str = "", reason: str = "") -> Case:
    """Open a case by hand, optionally taking alerts of the entity from their current cases."""
    require_role(principal, REGROUP_ROLE)
    entity = Entity.objects.filter(pk=entity_id, organization=principal.organization, mode=principal.mode).first()
    if entity is None:
        raise NotFound("No entity of yours has this id.")
    lock_entities([entity.pk])
    alerts, now = _alerts_of_entity(principal, entity.pk, alert_ids), timezone.now()
    case = _new_case(principal, entity, origin=CaseOrigin.MANUAL, title=title, now=now)
    _move_alerts(principal, alerts, case, now)
    _recompute(case, now)
    _announce_created(principal, case, reason or "Opened by hand.", {})
    return case


@transaction.atomic
def case_split(*, principal: Principal, case_id, alert_ids, reason: str = "", title: str = "") -> Case:
    """Move some of a case's alerts into a new case of the same entity; returns the new case."""
    require_role(principal, REGROUP_ROLE)
    source = common.case_of(principal, case_id, lock=True)
    if source.is_closed:
        raise Conflict("The case is closed: its alerts are its record.")
    alerts = _alerts_of_entity(principal, source.entity_id, alert_ids)
    if not alerts:
        raise ValidationFailed.for_field("alert_ids", "Choose the alerts to split out.")
    if any(_source_case(alert) is None or _source_case(alert).pk != source.pk for alert in alerts):
        raise ValidationFailed.for_field("alert_ids", f"Only alerts of {source.reference} can be split out of it.")
    if len(alerts) == CaseAlert.objects.filter(case=source).count():
        raise Conflict("Splitting out every alert would leave an empty case: leave at least one.")
    now = timezone.now()
    case = _new_case(principal, source.entity, origin=CaseOrigin.SPLIT, title=title or source.title, now=now)
    _move_alerts(principal, alerts, case, now)
    _recompute(case, now)
    _announce_created(principal, case, reason or f"Split out of {source.reference}.", {"split_from": str(source.pk)})
    return case


@transaction.atomic
def cases_merge(*, principal: Principal, case_id, source_case_ids, reason: str = "") -> Case:
    """Move every alert of the source cases into the target case and close the sources (merged)."""
    require_role(principal, REGROUP_ROLE)
    target = common.case_of(principal, case_id)
    ids = {str(i) for i in source_case_ids} - {str(target.pk)}
    if not ids:
        raise ValidationFailed.for_field("source_case_ids", "Choose at least one other case to merge into this one.")
    # Every case locked in one statement, in number order: two merges of the same cases in opposite
    # directions (A into B, B into A) would otherwise each hold its target and wait for the other's.
    locked = {str(case.pk): case for case in Case.objects.select_for_update(of=("self",), no_key=True)
              .select_related("entity", "assigned_to")
              .filter(pk__in=ids | {str(target.pk)}, organization=principal.organization, mode=principal.mode).order_by("number")}
    target = locked.pop(str(target.pk))
    sources = sorted(locked.values(), key=lambda case: case.number)
    if len(sources) != len(ids):
        raise NotFound("No case of yours has one of these ids.")
    for case in [target, *sources]:
        if case.is_closed:
            raise Conflict(f"{case.reference} is closed: closed cases are not merged.")
        if case.entity_id != target.entity_id:
            raise Conflict(f"{case.reference} is about another entity: only cases of one entity are merged.")
    now = timezone.now()
    alerts = list(Alert.objects.filter(case_link__case__in=sources).select_related("case_link__case"))
    _move_alerts(principal, alerts, target, now)
    _recompute(target, now)
    for source in sources:
        _close_merged(principal, source, target, reason, now)
    common.timeline_add(target, CaseEventKind.MERGED, by=principal, body=reason,
                        data={"merged_case_ids": [str(s.pk) for s in sources], "alert_ids": [str(a.pk) for a in alerts]})
    audit_record(actor=principal, action="case.merged", object_type="case", object_id=target.pk, organization=target.organization,
                 mode=target.mode, after={"merged_case_ids": [str(s.pk) for s in sources], "reason": reason})
    return target


def _close_merged(principal: Principal, source: Case, target: Case, reason: str, now) -> None:
    """A merged case closes whatever its status: it is not decided, it continues as the target."""
    previous = source.status
    filing = source.filing_status if source.filing_status == FilingStatus.FILED else FilingStatus.NOT_FILED
    Case.objects.filter(pk=source.pk).update(status=CaseStatus.CLOSED, closed_at=now, merged_into=target, filing_status=filing,
                                             updated_at=now)
    source.status, source.closed_at, source.merged_into, source.filing_status = CaseStatus.CLOSED, now, target, filing
    body = f"Merged into {target.reference}." + (f" {reason}" if reason else "")
    common.timeline_add(source, CaseEventKind.STATUS_CHANGED, by=principal, body=body,
                        data={"previous_status": previous, "new_status": CaseStatus.CLOSED, "merged_into": str(target.pk)})
    audit_record(actor=principal, action="case.status_changed", object_type="case", object_id=source.pk,
                 organization=source.organization, mode=source.mode, before={"status": previous},
                 after={"status": CaseStatus.CLOSED, "merged_into": str(target.pk)})
    event_emit(organization=source.organization, mode=source.mode, type="case.status_changed",
               data=common.status_changed_payload(source, previous, [], now))
