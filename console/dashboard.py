"""The dashboard's reads (console.views renders them): one organization in one mode, as a member of
a given role sees it. Every number is a count the linked changelist shows with the same filters.
SAR deadlines and 314(a) work are confidential below l2_investigator (common.confidentiality,
31 CFR 1010.520(b)(3)(iv)(B)) and are then not read at all."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode

from common.confidentiality import sar_visible
from filings.choices import CasePriority, CaseStatus
from filings.models import Case, CaseAlert
from monitoring.choices import AlertStatus, Severity
from monitoring.fincen314a.services import READ_ROLE as FINCEN_314A_ROLE
from monitoring.models import Alert
from monitoring.models.fincen314a import Fincen314aFile, Fincen314aMatch, ReviewStatus
from onboarding.choices import EntityStatus
from onboarding.models import Entity
from organizations.choices import Role

SAR_HORIZON = timedelta(days=7)
OPEN_ALERTS = [status for status in AlertStatus.values if status != AlertStatus.CLOSED]  # an IN list the indexes can seek
OPEN_CASES = [status for status in CaseStatus.values if status != CaseStatus.CLOSED]
SEVERITIES = [Severity.CRITICAL, Severity.HIGH, Severity.MEDIUM, Severity.LOW]  # most urgent first
PRIORITIES = [CasePriority.CRITICAL, CasePriority.HIGH, CasePriority.MEDIUM, CasePriority.LOW]
OVERDUE_SHOWN = 5
DEADLINES_SHOWN = 10


@dataclass(frozen=True)
class Scope:
    """Whose dashboard: the organization, the mode, the member and their role there."""

    organization: object
    mode: str
    user: object
    role: str
    now: datetime = field(default_factory=timezone.now)

    @property
    def sar_cleared(self) -> bool:
        return sar_visible(self.role)

    def link(self, model: str, **filters) -> str:
        """The changelist of `model` ("monitoring/alert") in this organization and mode, with `filters`."""
        query = {"organization__id__exact": self.organization.pk, "mode__exact": self.mode, **filters}
        return reverse(f"admin:{model.replace('/', '_')}_changelist") + "?" + urlencode(query)


@dataclass(frozen=True)
class Tally:
    label: str
    count: int
    url: str


def _open_alerts(scope: Scope):
    return Alert.objects.filter(organization=scope.organization, mode=scope.mode, status__in=OPEN_ALERTS)


def _open_cases(scope: Scope):
    return Case.objects.filter(organization=scope.organization, mode=scope.mode, status__in=OPEN_CASES)


def my_work(scope: Scope) -> list[Tally]:
    """My open cases and the open alerts in them (alerts are assigned through their case)."""
    mine = _open_cases(scope).filter(assigned_to=scope.user)
    cases = mine.count()
    alerts = CaseAlert.objects.filter(case__in=mine.values("pk"), alert__status__in=OPEN_ALERTS).count()
    return [Tally("My open cases", cases, scope.link("filings/case", queue="mine")),
            Tally("Open alerts in my cases", alerts, scope.link("monitoring/alert", queue="mine"))]


def alert_queue(scope: Scope) -> list[Tally]:
    """Open alerts by severity, most severe first (the alert queue's default view, one severity)."""
    counts = dict(_open_alerts(scope).values_list("severity").annotate(n=Count("id")).order_by())
    return [Tally(severity.label, counts.get(severity.value, 0),
                  scope.link("monitoring/alert", queue="open", severity__exact=severity.value)) for severity in SEVERITIES]


def case_queue(scope: Scope) -> list[Tally]:
    """Open cases by priority."""
    counts = dict(_open_cases(scope).values_list("priority").annotate(n=Count("id")).order_by())
    return [Tally(priority.label, counts.get(priority.value, 0), scope.link("filings/case", queue="open", priority__exact=priority.value))
            for priority in PRIORITIES]


def overdue(scope: Scope) -> dict:
    """Alerts and cases past their SLA, and the most urgent overdue alerts (severity, then the oldest due)."""
    alerts = _open_alerts(scope).filter(sla_due_at__lt=scope.now)
    cases = _open_cases(scope).filter(sla_due_at__lt=scope.now)
    rank = {severity.value: position for position, severity in enumerate(SEVERITIES)}
    worst = []
    for severity in SEVERITIES:  # one short indexed query per severity instead of sorting every overdue alert
        worst += alerts.filter(severity=severity).select_related("entity").order_by("sla_due_at", "id")[:OVERDUE_SHOWN - len(worst)]
        if len(worst) >= OVERDUE_SHOWN:
            break
    return {"counts": [Tally("Overdue alerts", alerts.count(), scope.link("monitoring/alert", queue="overdue")),
                       Tally("Overdue cases", cases.count(), scope.link("filings/case", queue="overdue"))],
            "alerts": sorted(worst, key=lambda alert: (rank[alert.severity], alert.sla_due_at)),
            "now": scope.now}


def sar_deadlines(scope: Scope) -> list[Case] | None:
    """Open cases whose report falls due in the next 7 days (or is already late); None below SAR_ROLE."""
    if not scope.sar_cleared:
        return None
    due = _open_cases(scope).filter(report_due_at__lte=scope.now + SAR_HORIZON)
    return list(due.select_related("entity", "assigned_to").order_by("report_due_at", "number")[:DEADLINES_SHOWN])


def fincen_314a_due(scope: Scope) -> dict | None:
    """314(a) lists with matches still to review, by response deadline; None below the role that reads them."""
    if not Role.at_least(scope.role, FINCEN_314A_ROLE):
        return None
    pending = Fincen314aMatch.objects.filter(organization=scope.organization, mode=scope.mode, review_status=ReviewStatus.PENDING)
    files = (Fincen314aFile.objects.filter(organization=scope.organization, mode=scope.mode, matches__review_status=ReviewStatus.PENDING)
             .annotate(pending=Count("matches", filter=Q(matches__review_status=ReviewStatus.PENDING)))
             .order_by("response_deadline", "id")[:DEADLINES_SHOWN])
    return {"counts": [Tally("Matches to review", pending.count(), scope.link("monitoring/fincen314amatch", review="pending"))],
            "files": list(files)}


def entity_reviews(scope: Scope) -> list[Tally]:
    """Customers waiting for a review decision."""
    entities = Entity.objects.filter(organization=scope.organization, mode=scope.mode)
    counts = dict(entities.filter(status__in=(EntityStatus.PENDING, EntityStatus.UNDER_REVIEW)).values_list("status")
                  .annotate(n=Count("id")).order_by())
    return [Tally(status.label, counts.get(status.value, 0), scope.link("onboarding/entity", status__exact=status.value))
            for status in (EntityStatus.UNDER_REVIEW, EntityStatus.PENDING)]


def sanctions_freshness() -> list:
    from onboarding.sanctions.status import lists_status

    return lists_status()


def chain_lag(now: datetime) -> list[dict]:
    """Per enabled chain: the last indexed block, the lag behind the head in blocks and seconds as the
    indexer's last run noted it (monitoring.indexer.selectors.lag_of), and how long since that run;
    empty while no chain is enabled."""
    from monitoring.indexer.selectors import lag_of
    from monitoring.models.indexer import ChainCursor

    cursors = ChainCursor.objects.filter(chain__enabled=True).select_related("chain").order_by("chain__chain_id")
    return [{"chain": cursor.chain.name, "chain_id": cursor.chain.chain_id, "last_block": cursor.last_block,
             "last_run_at": cursor.last_run_at, "stopped": cursor.stopped, "last_error": cursor.last_error[:200],
             "lag": lag_of(cursor),
             "minutes": int((now - cursor.last_run_at).total_seconds() // 60) if cursor.last_run_at else None}
            for cursor in cursors]

