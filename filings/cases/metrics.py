"""A case's priority, detection time and deadlines, derived from its alerts."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from filings import deadlines
from filings.choices import CasePriority
from filings.models import Case

DERIVED_FIELDS = ("priority", "detected_at", "report_due_at", "sla_due_at", "sla_breach_notified_at")


def report_due(case: Case) -> datetime:
    """30 days from detection; after a filing, the continuing-activity deadline (120 days)."""
    if case.last_filed_at:
        return deadlines.continuing_report_due_at(case.last_filed_at)
    return deadlines.sar_due_at(case.detected_at)


def apply_alerts(case: Case, alerts: Iterable[tuple[str, datetime]], *, now: datetime, replace: bool = False) -> bool:
    """Fold (severity, created_at) of alerts into the case. `replace` recomputes from these
    alerts alone (after a split or merge); otherwise they are added to what the case has.
    Returns whether a derived field changed (save DERIVED_FIELDS)."""
    alerts = list(alerts)
    before = tuple(getattr(case, field) for field in DERIVED_FIELDS)
    severities = [severity for severity, _ in alerts]
    detections = [created for _, created in alerts]
    if replace and alerts:
        case.priority, case.detected_at = CasePriority.highest(severities), min(detections)
    elif alerts:
        case.priority = CasePriority.highest([case.priority, *severities])
        case.detected_at = min([case.detected_at, *detections]) if case.detected_at else min(detections)
    refresh_deadlines(case, now=now)
    return before != tuple(getattr(case, field) for field in DERIVED_FIELDS)


def refresh_deadlines(case: Case, *, now: datetime) -> None:
    case.report_due_at = report_due(case)
    case.sla_due_at = deadlines.case_sla_due_at(started_at=case.sla_started_at, priority=case.priority,
                                                report_due_at=case.report_due_at)
    if case.sla_due_at > now:  # a later deadline (a split, a reopen) can be breached, and notified, again
        case.sla_breach_notified_at = None
