"""The compliance report's sections: a registry of functions returning the rows of one kind in a
date range. Built in: checks, status changes, risk changes; alerts, cases and filings are registered
empty here and replaced by their apps:

    register_report_section("alerts", alert_rows)

    def alert_rows(entity, *, start, end, reader) -> list[ReportRow]: ...

`reader` is who asks (a Principal): a section leaves out what the reader may not see, such as a SAR
below l2_investigator (common.confidentiality).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from common.models import AuditLogEntry


@dataclass(frozen=True)
class ReportRow:
    at: datetime
    section: str
    kind: str  # the row's own type: check type, status, ...
    summary: str
    reference: str = ""
    actor: str = ""
    extra: dict = field(default_factory=dict)


ReportSection = Callable[..., list[ReportRow]]
_sections: dict[str, ReportSection] = {}


def register_report_section(name: str, section: ReportSection) -> None:
    _sections[name] = section


def report_sections() -> dict[str, ReportSection]:
    return dict(_sections)


def _in_range(queryset, start, end, field_name="created_at"):
    if start:
        queryset = queryset.filter(**{f"{field_name}__gte": start})
    if end:
        queryset = queryset.filter(**{f"{field_name}__lte": end})
    return queryset


def _checks(entity, *, start, end, reader):
    return [ReportRow(check.created_at, "compliance_check", f"{check.check_type}:{check.result}", check.summary, str(check.pk),
                      check.requested_by, {"provider": check.provider, "score": check.score})
            for check in _in_range(entity.checks.all(), start, end).order_by("created_at", "id")]


def _status_changes(entity, *, start, end, reader):
    entries = _in_range(AuditLogEntry.objects.filter(organization=entity.organization_id, object_type="entity",
                                                     object_id=str(entity.pk), action__startswith="entity."), start, end)
    rows = []
    entries = entries.exclude(action__in=("entity.screened", "entity.check_recorded", "entity.risk_changed", "entity.certificate_issued"))
    for entry in entries.order_by("created_at", "id"):
        before, after = entry.before or {}, entry.after or {}
        if entry.action != "entity.created" and before.get("status") == after.get("status"):
            continue
        rows.append(ReportRow(entry.created_at, "status_change", after.get("status") or "",
                              f"{before.get('status') or '—'} → {after.get('status')}" + (
                                  f": {after.get('status_reason')}" if after.get("status_reason") else ""),
                              str(entry.pk), entry.actor_label))
    return rows


def _risk_changes(entity, *, start, end, reader):
    return [ReportRow(row.created_at, "risk_change", row.tier,
                      f"{row.previous_score if row.previous_score is not None else '—'} → {row.score}: {row.reason}", str(row.pk),
                      row.actor_label)
            for row in _in_range(entity.risk_history.all(), start, end).order_by("created_at", "id")]


def _none_yet(entity, *, start, end, reader):
    return []


register_report_section("compliance_checks", _checks)
register_report_section("status_changes", _status_changes)
register_report_section("risk_changes", _risk_changes)
register_report_section("alerts", _none_yet)
register_report_section("cases", _none_yet)
register_report_section("filings", _none_yet)
