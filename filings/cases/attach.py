"""New alerts join their entity's open case, or open one (issue 5: the API has no operation that creates a case).

`cases_attach_opened` is what monitoring calls in the transaction that opens alerts;
`cases_attach_alerts` takes any alerts (instances or ids) and reads them first. Both are
set-based: a constant number of queries per call, whatever the number of alerts and entities.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from operator import itemgetter
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from common.audit import audit_records
from common.pg import insert_all, inserted_rows, on_postgres, update_each
from filings.cases import common, metrics
from filings.choices import CaseEventKind, CaseOrigin, CasePriority, CaseStatus
from filings.models import Case, CaseAlert, CaseEvent
from monitoring.choices import AlertStatus
from monitoring.models import Alert
from onboarding.models import Entity
from webhooks.services import events_emit


def _alert_id(alert) -> UUID:
    return alert.pk if isinstance(alert, Alert) else UUID(str(alert))


def lock_entities(entity_ids) -> None:
    """Serialise case opening per entity: two batches cannot both open the entity's case. Locked in
    id order, so two batches over the same entities cannot deadlock; FOR NO KEY UPDATE, so rows
    other transactions insert that refer to the entity (their foreign-key checks take KEY SHARE)
    are not held up behind the lock. `entity_ids`: ids, or a query of them (one statement then)."""
    list(Entity.objects.select_for_update(no_key=True).filter(pk__in=entity_ids).order_by("pk").values_list("pk", flat=True))


def cases_attach_alerts(*, organization, mode: str, alerts: Iterable[Alert | UUID | str]) -> dict[UUID, UUID]:
    """Each alert (instances or ids) that is not closed and not yet in a case joins its entity's
    open case — the earliest-opened case of the entity that is not closed — or, when the entity
    has none, a new case (`case.created` event). Returns {alert id: case id} for the alerts
    attached by this call; alerts already in a case, closed, or of another organization or mode
    are left alone. Idempotent: a second call with the same alerts attaches nothing."""
    ids = {_alert_id(alert) for alert in alerts}  # a malformed id fails here, before the writes' block
    return _attach(organization, mode, ids) if ids else {}


def cases_attach_opened(*, organization, mode: str, alerts: list[Alert]) -> dict[UUID, UUID]:
    """`cases_attach_alerts` for alerts the caller's transaction has just opened (monitoring), as
    saved instances of this organization and mode. No other transaction can see them yet, so none
    is closed or in a case: they are taken as they are instead of read back, one statement fewer on
    the path of an ingest that opens alerts."""
    rows = sorted(((alert.pk, alert.entity_id, alert.severity, alert.created_at) for alert in alerts), key=itemgetter(3, 0))
    return _attach_opened(organization, mode, rows) if rows else {}


@transaction.atomic(savepoint=False)  # inside the alerts' transaction: no savepoint (docs/decisions.md)
def _attach(organization, mode: str, ids: set[UUID]) -> dict[UUID, UUID]:
    scoped = Alert.objects.filter(pk__in=ids, organization=organization, mode=mode).exclude(status=AlertStatus.CLOSED)
    lock_entities(scoped.values("entity_id"))
    rows = list(scoped.filter(case_link__isnull=True).order_by("created_at", "id").values_list("pk", "entity_id", "severity", "created_at"))
    return _join_or_open(organization, mode, rows) if rows else {}


@transaction.atomic(savepoint=False)  # as _attach
def _attach_opened(organization, mode: str, rows: list[tuple]) -> dict[UUID, UUID]:
    lock_entities({row[1] for row in rows})
    return _join_or_open(organization, mode, rows)


def _join_or_open(organization, mode: str, rows: list[tuple]) -> dict[UUID, UUID]:
    """`rows` (alert id, entity id, severity, created_at), oldest first, of alerts in no case, their
    entities locked: each joins its entity's open case, or a case opened for the entity's alerts."""
    by_entity: dict[UUID, list[tuple]] = defaultdict(list)
    for row in rows:
        by_entity[row[1]].append(row)
    now = timezone.now()
    existing = _open_cases(organization, mode, by_entity)
    opened = _open_many(organization, mode, {entity: by_entity[entity] for entity in by_entity if entity not in existing}, now)
    target = {**existing, **opened}
    attached = _link([CaseAlert(case=target[entity], alert_id=row[0]) for entity, group in by_entity.items() for row in group])
    _extend(existing, by_entity, now)
    _record(organization, mode, existing, opened, by_entity)
    return attached


def _link(links: list[CaseAlert]) -> dict[UUID, UUID]:
    """Insert the links, leaving out an alert linked already; {alert id: case id} of those inserted."""
    if on_postgres():
        return dict(inserted_rows(CaseAlert, links, returning=("alert_id", "case_id")))
    CaseAlert.objects.bulk_create(links, ignore_conflicts=True)
    meant = {link.alert_id: link.case_id for link in links}
    stored = CaseAlert.objects.filter(alert_id__in=meant).values_list("alert_id", "case_id")
    return {alert_id: case_id for alert_id, case_id in stored if meant[alert_id] == case_id}


def _open_cases(organization, mode: str, by_entity) -> dict[UUID, Case]:
    cases = (Case.objects.filter(organization=organization, mode=mode, entity_id__in=list(by_entity))
             .exclude(status=CaseStatus.CLOSED).order_by("created_at", "number"))
    chosen: dict[UUID, Case] = {}
    for case in cases:
        chosen.setdefault(case.entity_id, case)
    return chosen


def _open_many(organization, mode: str, groups: dict[UUID, list[tuple]], now) -> dict[UUID, Case]:
    if not groups:
        return {}
    first = common.numbers_take(organization, mode, len(groups))
    cases = {}
    for offset, (entity_id, group) in enumerate(groups.items()):
        case = Case(organization=organization, mode=mode, number=first + offset, entity_id=entity_id, origin=CaseOrigin.ALERT,
                    status=CaseStatus.OPEN, priority=CasePriority.LOW, sla_started_at=now, opened_by_label="system")
        metrics.apply_alerts(case, [(row[2], row[3]) for row in group], now=now, replace=True)
        cases[entity_id] = case
    insert_all(Case, list(cases.values()))
    return cases


def _extend(existing: dict[UUID, Case], by_entity, now) -> None:
    changed = [case for entity_id, case in existing.items()
               if metrics.apply_alerts(case, [(row[2], row[3]) for row in by_entity[entity_id]], now=now)]
    for case in changed:
        case.updated_at = now
    update_each(Case, changed, [*metrics.DERIVED_FIELDS, "updated_at"])


def _record(organization, mode: str, existing: dict[UUID, Case], opened: dict[UUID, Case], by_entity) -> None:
    """Timeline rows, audit rows and `case.created` events, one insert each."""
    def ids(entity_id):
        return [str(row[0]) for row in by_entity[entity_id]]

    events = [common.timeline_row(case, CaseEventKind.CREATED, body=f"Opened for {len(ids(entity_id))} new alert(s).",
                                  data={"alert_ids": ids(entity_id), "origin": CaseOrigin.ALERT})
              for entity_id, case in opened.items()]
    events += [common.timeline_row(case, CaseEventKind.ALERTS_ATTACHED, body=f"{len(ids(entity_id))} new alert(s) joined the case.",
                                   data={"alert_ids": ids(entity_id)}) for entity_id, case in existing.items()]
    insert_all(CaseEvent, events)
    audit_records(actor=None, action="case.created", object_type="case",
                  changes=[(case, None, {"number": case.number, "alert_ids": ids(entity_id)}) for entity_id, case in opened.items()])
    audit_records(actor=None, action="case.alerts_attached", object_type="case",
                  changes=[(case, None, {"alert_ids": ids(entity_id)}) for entity_id, case in existing.items()])
    events_emit(organization=organization, mode=mode, events=[("case.created", common.created_payload(case, ids(entity_id)))
                                                              for entity_id, case in opened.items()])


def case_note_disposition(*, alert: Alert, by) -> CaseEvent | None:
    """An alert of a case was disposed: the case's timeline says so (who, the disposition, the
    rationale), where the investigator working the case reads its history. None for an alert in no case."""
    link = CaseAlert.objects.filter(alert=alert).select_related("case").first()
    if link is None:
        return None
    return common.timeline_add(link.case, CaseEventKind.ALERT_DISPOSED, by=by, body=alert.disposition_notes, data={
        "alert_id": str(alert.pk), "rule_code": alert.rule_code, "disposition": alert.disposition})


def case_note_orphaned(*, links: list[tuple], chain_id: int, fork: int) -> int:
    """Transfers that alerts of cases link were orphaned by a reorganisation (monitoring.indexer): each such alert's case
    says so on its timeline (a system comment naming the alert and the transfer). `links`: (alert, transaction) pairs.
    Returns the notes written."""
    cases = {link.alert_id: link.case for link in CaseAlert.objects.filter(alert__in={alert for alert, _ in links}).select_related("case")}
    rows = [common.timeline_row(cases[alert.pk], CaseEventKind.COMMENT, body=(
        f"Transfer {tx.tx_hash} (#{tx.log_index}) of alert {alert.pk} ({alert.rule_code}) was orphaned by a reorganisation of chain "
        f"{chain_id} above block {fork}: kept for audit, out of every rule's history."), data={
        "alert_id": str(alert.pk), "transaction_id": str(tx.pk), "chain_id": chain_id, "fork_block": fork, "orphaned": True})
        for alert, tx in links if alert.pk in cases]
    CaseEvent.objects.bulk_create(rows)
    return len(rows)
