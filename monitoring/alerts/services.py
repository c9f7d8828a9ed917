"""Alert writes: recording the engine's hits (open, or extend the rule's open alert for the
entity: RULES.md's dedupe) and dispositions. Each new alert writes its `alert.created` event and
`alert_created` notification in the same transaction (DESIGN §6)."""

from collections import defaultdict
from datetime import timedelta
from uuid import UUID

from django.db import transaction
from django.db.models import Count, Max, OuterRef, Subquery
from django.utils import timezone

from common.audit import audit_record
from common.errors import Conflict, NotFound
from common.permissions import require_role
from common.principal import Principal
from monitoring.alerts.describe import alert_description, rule_name
from monitoring.choices import SLA_HOURS, AlertStatus
from monitoring.models import Alert, AlertHit
from monitoring.notifications.services import notifications_create
from monitoring.rules import RuleResult
from organizations.choices import Role
from webhooks.services import event_emit, events_emit

DISPOSE_ROLE = Role.L1_ANALYST
OPEN_STATUSES = (AlertStatus.OPEN, AlertStatus.IN_REVIEW)


def _grouped(hits: list[RuleResult]) -> dict[tuple[UUID, str], list[RuleResult]]:
    groups: dict[tuple[UUID, str], list[RuleResult]] = defaultdict(list)
    for hit in hits:
        groups[(UUID(hit.entity_id), hit.rule_code)].append(hit)
    return groups


@transaction.atomic
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
    _recount([current[key].pk for key in groups if key in current])
    return {alert.pk for alert, _ in links}


def _open_alerts(organization, mode: str, groups) -> dict[tuple[UUID, str], Alert]:
    if not groups:
        return {}
    rows = Alert.objects.select_for_update().filter(
        organization=organization, mode=mode, status__in=OPEN_STATUSES,
        entity_id__in={key[0] for key in groups}, rule_code__in={key[1] for key in groups})
    return {(alert.entity_id, alert.rule_code): alert for alert in rows if (alert.entity_id, alert.rule_code) in groups}


def _open_many(organization, mode: str, groups, event_times) -> dict[tuple[UUID, str], Alert]:
    """New alerts, one per (entity, rule), in one insert. A key a concurrent batch opened first is
    left out of the result (the unique constraint refuses ours) and extended instead."""
    now = timezone.now()
    alerts = {}
    for (entity_id, code), results in groups.items():
        first, times = results[0], [event_times[result.event_id] for result in results]
        alerts[(entity_id, code)] = Alert(
            organization=organization, mode=mode, entity_id=entity_id, rule_number=first.rule_number, rule_code=code,
            rule_name=rule_name(code), severity=first.severity, score=first.score, description=alert_description(first),
            evidence=first.evidence, hit_count=len(results), first_triggered_at=min(times), last_triggered_at=max(times),
            sla_due_at=now + timedelta(hours=SLA_HOURS[first.severity]),
        )
    if not alerts:
        return {}
    Alert.objects.bulk_create(alerts.values(), ignore_conflicts=True)
    stored = set(Alert.objects.filter(pk__in=[alert.pk for alert in alerts.values()]).values_list("pk", flat=True))
    return {key: alert for key, alert in alerts.items() if alert.pk in stored}


def _recount(alert_ids: list[UUID]) -> None:
    """Extended alerts: hit count and latest trigger recomputed from their hits, in one statement."""
    if not alert_ids:
        return
    hits = AlertHit.objects.filter(alert=OuterRef("pk")).order_by().values("alert")
    Alert.objects.filter(pk__in=alert_ids).update(
        hit_count=Subquery(hits.annotate(n=Count("pk")).values("n")),
        last_triggered_at=Subquery(hits.annotate(latest=Max("triggered_at")).values("latest")),
        updated_at=timezone.now(),
    )


def _write_hits_and_links(links, event_times: dict) -> None:
    hits, tx_links, fiat_links = [], [], []
    for alert, results in links:
        for result in results:
            hits.append(AlertHit(alert=alert, event_id=UUID(result.event_id), event_kind=result.event_kind,
                                 triggered_at=event_times[result.event_id], evidence=result.evidence))
            tx_links += [Alert.transactions.through(alert_id=alert.pk, transaction_id=UUID(i)) for i in result.transaction_ids]
            fiat_links += [Alert.fiat_events.through(alert_id=alert.pk, fiatevent_id=UUID(i)) for i in result.fiat_event_ids]
    AlertHit.objects.bulk_create(hits, batch_size=1000)
    Alert.transactions.through.objects.bulk_create(tx_links, ignore_conflicts=True, batch_size=1000)
    Alert.fiat_events.through.objects.bulk_create(fiat_links, ignore_conflicts=True, batch_size=1000)


def _announce_many(organization, mode: str, opened: list[tuple[Alert, list[RuleResult]]]) -> None:
    """The `alert.created` events (spec payload) and `alert_created` notifications of new alerts."""
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


@transaction.atomic
def alert_dispose(*, principal: Principal, alert_id, entity_id=None, disposition: str, notes: str = "") -> Alert:
    """Record the disposition (who, when, why) and close the alert; a second one is a 409."""
    require_role(principal, DISPOSE_ROLE)
    alerts = Alert.objects.select_for_update().filter(pk=alert_id, organization=principal.organization, mode=principal.mode)
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
    return alert
