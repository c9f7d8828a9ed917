"""Alert writes: recording the engine's hits (open, or extend the rule's open alert for the
entity: the dedupe of docs/rules.md, "The catalogue") and dispositions. Each new alert writes its
`alert.created` event and `alert_created` notification in the same transaction (docs/architecture.md §6)."""

from collections import defaultdict
from datetime import timedelta
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from common import bulk
from common.audit import audit_record
from common.bulk import execute_each
from common.errors import Conflict, NotFound, ValidationFailed
from common.permissions import require_role
from common.pg import insert_ignoring_conflicts, insert_new, on_postgres, pg_rows
from common.principal import Principal
from monitoring import risk_feed
from monitoring.alerts.describe import alert_description, rule_name
from monitoring.alerts.hooks import after_alerts, after_disposition
from monitoring.choices import SLA_HOURS, AlertStatus
from monitoring.models import Alert, AlertHit
from monitoring.notifications.services import notifications_create
from monitoring.rules import RuleResult
from organizations.choices import Role
from webhooks.services import event_emit, events_emit

DISPOSE_ROLE = Role.L1_ANALYST
EXTEND_SQL = """UPDATE monitoring_alert AS a
SET hit_count = a.hit_count + v.added, first_triggered_at = LEAST(a.first_triggered_at, v.earliest),
    last_triggered_at = GREATEST(a.last_triggered_at, v.latest), updated_at = %(now)s
FROM unnest(%(ids)b::uuid[], %(added)b::integer[], %(earliest)b::timestamptz[], %(latest)b::timestamptz[])
    AS v(id, added, earliest, latest) WHERE a.id = v.id RETURNING a.id"""
# Elsewhere (SQLite) one row per statement, run as one executemany; MIN/MAX of two values is what
# the ORM's Least/Greatest compile to there.
EXTEND_EACH_SQL = """UPDATE monitoring_alert SET hit_count = hit_count + %s, first_triggered_at = MIN(first_triggered_at, %s),
    last_triggered_at = MAX(last_triggered_at, %s), updated_at = %s WHERE id = %s"""
OPEN_STATUSES = (AlertStatus.OPEN, AlertStatus.IN_REVIEW)


def _grouped(hits: list[RuleResult]) -> dict[tuple[UUID, str], list[RuleResult]]:
    groups: dict[tuple[UUID, str], list[RuleResult]] = defaultdict(list)
    for hit in hits:
        groups[(UUID(hit.entity_id), hit.rule_code)].append(hit)
    return groups


@transaction.atomic(savepoint=False)  # inside the ingestion's transaction: no savepoint (docs/decisions.md)
def alerts_record(*, organization, mode: str, hits: list[RuleResult], event_times: dict[str, object]) -> set[UUID]:
    """Open or extend alerts for the hits, set-based (a constant number of queries per batch);
    returns the ids of the alerts touched. `event_times` maps each evaluated event's id to its
    timestamp (the runner has them in hand)."""
    if not hits:
        return set()
    groups = _grouped(hits)
    current = _open_alerts(organization, mode, groups)
    opened = _open_many(organization, mode, {key: results for key, results in groups.items() if key not in current}, event_times)
    lost_race = [key for key in groups if key not in current and key not in opened]
    current.update(_open_alerts(organization, mode, {key: groups[key] for key in lost_race}))
    _announce_many(organization, mode, [(alert, groups[key]) for key, alert in opened.items()])
    links = [(current.get(key) or opened[key], results) for key, results in groups.items()]
    _write_hits_and_links(links, event_times)
    _extend([(current[key], results) for key, results in groups.items() if key in current], event_times)
    after_alerts(organization=organization, mode=mode, opened=list(opened.values()), touched_entity_ids={key[0] for key in groups})
    return {alert.pk for alert, _ in links}


def _open_alerts(organization, mode: str, groups) -> dict[tuple[UUID, str], Alert]:
    """The open alerts of the groups' (entity, rule) pairs, locked in primary-key order (every batch
    locks in the same order, so two concurrent batches cannot deadlock on them)."""
    if not groups:
        return {}
    rows = Alert.objects.select_for_update(no_key=True).filter(
        organization=organization, mode=mode, status__in=OPEN_STATUSES, entity_id__in={key[0] for key in groups},
        rule_code__in={key[1] for key in groups}).order_by("pk").only("pk", "entity_id", "rule_code")
    return {(alert.entity_id, alert.rule_code): alert for alert in rows if (alert.entity_id, alert.rule_code) in groups}


def _open_many(organization, mode: str, groups, event_times) -> dict[tuple[UUID, str], Alert]:
    """New alerts, one per (entity, rule), in one insert. A key a concurrent batch opened first is
    left out of the result (the unique constraint refuses ours) and extended instead."""
    now = timezone.now()
    alerts = {}
    for (entity_id, code), results in sorted(groups.items()):  # one insertion order for every batch
        first, times = results[0], [event_times[result.event_id] for result in results]
        alerts[(entity_id, code)] = Alert(
            organization=organization, mode=mode, entity_id=entity_id, rule_number=first.rule_number, rule_code=code,
            rule_name=rule_name(code), severity=first.severity, score=first.score, description=alert_description(first),
            evidence=first.evidence, hit_count=len(results), first_triggered_at=min(times), last_triggered_at=max(times),
            sla_due_at=now + timedelta(hours=SLA_HOURS[first.severity]),
        )
    if not alerts:
        return {}
    stored = {alert.pk for alert in insert_new(Alert, list(alerts.values()))}
    return {key: alert for key, alert in alerts.items() if alert.pk in stored}


def _extend(extended: list[tuple[Alert, list[RuleResult]]], event_times: dict) -> None:
    """Extended alerts: hit count up by the new hits, first and latest trigger moved out to the
    earliest and newest (a backfill replays hits older than the alert), in one statement (one
    executemany off PostgreSQL; the rows are locked by _open_alerts, and hits are only ever added here)."""
    if not extended:
        return
    earliest = [min(event_times[r.event_id] for r in results) for _, results in extended]
    latest = [max(event_times[r.event_id] for r in results) for _, results in extended]
    now = timezone.now()
    if on_postgres():
        pg_rows(EXTEND_SQL, {"ids": [alert.pk for alert, _ in extended], "added": [len(results) for _, results in extended],
                             "earliest": earliest, "latest": latest, "now": now})
        return

    fields = [Alert._meta.get_field(name) for name in ("hit_count", "first_triggered_at", "last_triggered_at", "updated_at", "id")]
    execute_each(EXTEND_EACH_SQL, fields, [(len(results), first, last, now, alert.pk)
                                           for (alert, results), first, last in zip(extended, earliest, latest, strict=True)])


def _write_hits_and_links(links, event_times: dict) -> None:
    hits, tx_links, fiat_links = [], [], []
    for alert, results in links:
        for result in results:
            hits.append(AlertHit(alert=alert, event_id=UUID(result.event_id), event_kind=result.event_kind,
                                 triggered_at=event_times[result.event_id], evidence=result.evidence))
            tx_links += [Alert.transactions.through(alert_id=alert.pk, transaction_id=UUID(i)) for i in result.transaction_ids]
            fiat_links += [Alert.fiat_events.through(alert_id=alert.pk, fiatevent_id=UUID(i)) for i in result.fiat_event_ids]
    if on_postgres():  # one statement each, whatever the number of rows
        for model, rows in ((AlertHit, hits), (Alert.transactions.through, tx_links), (Alert.fiat_events.through, fiat_links)):
            insert_ignoring_conflicts(model, rows)
        return
    # Elsewhere one executemany each, of the values the fields prepare (common.bulk), not the ORM's bulk_create.
    bulk.insert_new(AlertHit, hits)
    bulk.insert_new(Alert.transactions.through, tx_links, ignore_conflicts=True)
    bulk.insert_new(Alert.fiat_events.through, fiat_links, ignore_conflicts=True)


def _announce_many(organization, mode: str, opened: list[tuple[Alert, list[RuleResult]]]) -> None:
    """The `alert.created` events (fixed payload: webhooks/catalogue.py) and `alert_created` notifications of new alerts."""
    if not opened:
        return
    events_emit(organization=organization, mode=mode, events=[("alert.created", {
        "alert_id": str(alert.pk), "entity_id": str(alert.entity_id), "rule_id": str(alert.rule_number),
        "rule_name": alert.rule_name, "severity": alert.severity, "description": alert.description,
        "transaction_ids": sorted({i for result in results for i in result.transaction_ids}), "created_at": alert.created_at,
    }) for alert, results in opened])
    notifications_create(organization=organization, mode=mode, items=[{
        "type": "alert_created", "entity_id": alert.entity_id, "alert_id": alert.pk,
        "title": f"{alert.severity.capitalize()} alert: {alert.rule_name}", "body": alert.description,
    } for alert, _ in opened])


NOTES_REQUIRED = ("Say why: what you reviewed and what it showed. A closed alert keeps its rationale with the disposition, "
                  "for the next investigator and for an examiner.")


@transaction.atomic
def alert_dispose(*, principal: Principal, alert_id, entity_id=None, disposition: str, notes: str = "") -> Alert:
    """Record the disposition (who, when, why) and close the alert; a second one is a 409. The why is
    required: a closed alert carries its rationale (what was reviewed, what it showed)."""
    require_role(principal, DISPOSE_ROLE)
    if not notes.strip():
        raise ValidationFailed.for_field("notes", NOTES_REQUIRED)
    alerts = Alert.objects.select_for_update(no_key=True).filter(pk=alert_id, organization=principal.organization, mode=principal.mode)
    if entity_id is not None:
        alerts = alerts.filter(entity_id=entity_id)
    alert = alerts.first()
    if alert is None:
        raise NotFound("No alert of yours has this id.")
    if alert.status == AlertStatus.CLOSED:
        raise Conflict(f"The alert already has the disposition {alert.disposition}.")
    now = timezone.now()
    before = {"status": alert.status, "disposition": alert.disposition}
    alert.status, alert.disposition, alert.disposition_notes = AlertStatus.CLOSED, disposition, notes
    alert.disposed_by, alert.disposed_by_label, alert.disposed_at = principal.user, principal.actor_label, now
    alert.save(update_fields=["status", "disposition", "disposition_notes", "disposed_by", "disposed_by_label", "disposed_at",
                              "updated_at"])
    audit_record(actor=principal, action="alert.disposition_set", object_type="alert", object_id=alert.pk,
                 organization=alert.organization, mode=alert.mode, before=before,
                 after={"status": alert.status, "disposition": disposition, "notes": notes})
    event_emit(organization=alert.organization, mode=alert.mode, type="alert.disposition_set", data={
        "alert_id": str(alert.pk), "entity_id": str(alert.entity_id), "rule_id": str(alert.rule_number),
        "disposition": disposition, "notes": notes or None, "set_by": principal.actor_label, "set_at": now,
    })
    after_disposition(alert=alert, by=principal)
    risk_feed.schedule([alert.entity_id], reason=f"alert disposed as {disposition}")
    return alert
