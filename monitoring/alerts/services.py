"""Alert writes: recording the engine's hits (open, or extend the rule's open alert for the
entity: RULES.md's dedupe) and dispositions. Each new alert writes its `alert.created` event and
`alert_created` notification in the same transaction (DESIGN §6)."""

from collections import defaultdict
from datetime import timedelta
from uuid import UUID

from django.db import IntegrityError, transaction
from django.utils import timezone

from common.audit import audit_record
from common.errors import Conflict, NotFound
from common.permissions import require_role
from common.principal import Principal
from monitoring.alerts.describe import alert_description, rule_name
from monitoring.choices import SLA_HOURS, AlertStatus
from monitoring.models import Alert, AlertHit
from monitoring.notifications.services import notification_create
from monitoring.rules import RuleResult
from organizations.choices import Role
from webhooks.services import event_emit

DISPOSE_ROLE = Role.L1_ANALYST
OPEN_STATUSES = (AlertStatus.OPEN, AlertStatus.IN_REVIEW)


def _grouped(hits: list[RuleResult]) -> dict[tuple[UUID, str], list[RuleResult]]:
    groups: dict[tuple[UUID, str], list[RuleResult]] = defaultdict(list)
    for hit in hits:
        groups[(UUID(hit.entity_id), hit.rule_code)].append(hit)
    return groups


@transaction.atomic
def alerts_record(*, organization, mode: str, hits: list[RuleResult], event_times: dict[str, object]) -> set[UUID]:
    """Open or extend alerts for the hits; returns the ids of the alerts touched. `event_times`
    maps each evaluated event's id to its timestamp (the runner has them in hand)."""
    if not hits:
        return set()
    groups = _grouped(hits)
    open_alerts = {
        (alert.entity_id, alert.rule_code): alert
        for alert in Alert.objects.select_for_update().filter(
            organization=organization, mode=mode, status__in=OPEN_STATUSES,
            entity_id__in={key[0] for key in groups}, rule_code__in={key[1] for key in groups})
    }
    links = []
    for key, results in groups.items():
        times = [event_times[result.event_id] for result in results]
        alert = open_alerts.get(key)
        if alert is None:
            alert = _open(organization, mode, key, results, times)
        if alert is None:  # a concurrent batch opened it between our read and our insert
            alert = Alert.objects.select_for_update().get(organization=organization, mode=mode, entity_id=key[0],
                                                          rule_code=key[1], status__in=OPEN_STATUSES)
        if not getattr(alert, "_just_opened", False):
            _extend(alert, len(results), max(times))
        links.append((alert, results))
    _write_hits_and_links(links, event_times)
    return {alert.pk for alert, _ in links}


def _open(organization, mode: str, key: tuple[UUID, str], results: list[RuleResult], times: list) -> Alert | None:
    """A new alert for the first hit; None when a concurrent batch opened it first."""
    first, now = results[0], timezone.now()
    try:
        with transaction.atomic():
            alert = Alert.objects.create(
                organization=organization, mode=mode, entity_id=key[0], rule_number=first.rule_number, rule_code=first.rule_code,
                rule_name=rule_name(first.rule_code), severity=first.severity, score=first.score,
                description=alert_description(first), evidence=first.evidence, hit_count=len(results),
                first_triggered_at=min(times), last_triggered_at=max(times),
                sla_due_at=now + timedelta(hours=SLA_HOURS[first.severity]),
            )
    except IntegrityError:
        return None
    alert._just_opened = True
    _announce(alert, results)
    return alert


def _extend(alert: Alert, count: int, latest) -> None:
    Alert.objects.filter(pk=alert.pk).update(hit_count=alert.hit_count + count, updated_at=timezone.now(),
                                             last_triggered_at=max(alert.last_triggered_at, latest))


def _write_hits_and_links(links, event_times: dict) -> None:
    hits, tx_links, fiat_links = [], [], []
    for alert, results in links:
        for result in results:
            hits.append(AlertHit(alert=alert, event_id=UUID(result.event_id), event_kind=result.event_kind,
                                 triggered_at=event_times[result.event_id], evidence=result.evidence))
            tx_links += [Alert.transactions.through(alert_id=alert.pk, transaction_id=UUID(i)) for i in result.transaction_ids]
            fiat_links += [Alert.fiat_events.through(alert_id=alert.pk, fiatevent_id=UUID(i)) for i in result.fiat_event_ids]
    AlertHit.objects.bulk_create(hits)
    Alert.transactions.through.objects.bulk_create(tx_links, ignore_conflicts=True)
    Alert.fiat_events.through.objects.bulk_create(fiat_links, ignore_conflicts=True)


def _announce(alert: Alert, results: list[RuleResult]) -> None:
    transaction_ids = sorted({i for result in results for i in result.transaction_ids})
    event_emit(organization=alert.organization, mode=alert.mode, type="alert.created", data={
        "alert_id": str(alert.pk), "entity_id": str(alert.entity_id), "rule_id": str(alert.rule_number),
        "rule_name": alert.rule_name, "severity": alert.severity, "description": alert.description,
        "transaction_ids": transaction_ids, "created_at": alert.created_at,
    })
    notification_create(organization=alert.organization, mode=alert.mode, type="alert_created", entity_id=alert.entity_id,
                        alert_id=alert.pk, title=f"{alert.severity.capitalize()} alert: {alert.rule_name}", body=alert.description)


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
