"""SLA breaches: one `sla_breach` notification per breach, for alerts and cases
(docs/webhooks.md, "Notifications"). A breach is notified once: `sla_breach_notified_at` is set in the same
transaction; a later deadline (a reopened or re-prioritised case) clears it, so that a new breach
is notified again."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from filings.cases import common
from filings.choices import CaseEventKind, CaseStatus
from filings.models import Case, CaseEvent
from monitoring.choices import AlertStatus
from monitoring.models import Alert
from monitoring.notifications.services import notifications_create

BATCH = 500


@transaction.atomic
def sla_breaches_notify(*, now: datetime | None = None, limit: int = BATCH) -> dict[str, int]:
    """Notify up to `limit` overdue alerts and `limit` overdue cases not yet notified; returns the
    counts. Rows another worker holds are skipped (PostgreSQL), so two sweeps never double up."""
    now = now or timezone.now()
    return {"alerts": _alerts(now, limit), "cases": _cases(now, limit)}


def _grouped(rows) -> dict[tuple, list]:
    groups: dict[tuple, list] = defaultdict(list)
    for row in rows:
        groups[(row.organization, row.mode)].append(row)
    return groups


def _alerts(now: datetime, limit: int) -> int:
    alerts = list(Alert.objects.select_for_update(skip_locked=True, of=("self",)).select_related("organization", "entity")
                  .filter(sla_due_at__lt=now, sla_breach_notified_at__isnull=True).exclude(status=AlertStatus.CLOSED)
                  .order_by("sla_due_at", "id")[:limit])
    for (organization, mode), rows in _grouped(alerts).items():
        notifications_create(organization=organization, mode=mode, items=[{
            "type": "sla_breach", "entity_id": alert.entity_id, "alert_id": alert.pk,
            "title": f"SLA breached: {alert.severity} alert {alert.rule_name}",
            "body": f"The {alert.severity} alert {alert.rule_name} on {alert.entity.legal_name} was due for a disposition by "
                    f"{alert.sla_due_at:%Y-%m-%d %H:%M} UTC and is still {alert.status}.",
        } for alert in rows])
    Alert.objects.filter(pk__in=[alert.pk for alert in alerts]).update(sla_breach_notified_at=now)
    return len(alerts)


def _cases(now: datetime, limit: int) -> int:
    cases = list(Case.objects.select_for_update(skip_locked=True, of=("self",)).select_related("organization", "entity")
                 .filter(sla_due_at__lt=now, sla_breach_notified_at__isnull=True).exclude(status=CaseStatus.CLOSED)
                 .order_by("sla_due_at", "id")[:limit])
    for (organization, mode), rows in _grouped(cases).items():
        notifications_create(organization=organization, mode=mode, items=[{
            "type": "sla_breach", "entity_id": case.entity_id, "case_id": case.pk,
            "title": f"SLA breached: {case.reference}", "body": _case_body(case),
        } for case in rows])
    CaseEvent.objects.bulk_create([common.timeline_row(case, CaseEventKind.SLA_BREACHED, body=_case_body(case),
                                                       data={"sla_due_at": case.sla_due_at.isoformat()}) for case in cases])
    Case.objects.filter(pk__in=[case.pk for case in cases]).update(sla_breach_notified_at=now)
    return len(cases)


def _case_body(case: Case) -> str:
    report = f"; its report is due {case.report_due_at:%Y-%m-%d}" if case.report_due_at else ""
    return (f"{case.reference} ({case.priority} priority, {case.entity.legal_name}) was due for a determination by "
            f"{case.sla_due_at:%Y-%m-%d %H:%M} UTC and is still {case.status}{report}.")
