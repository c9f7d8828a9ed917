"""What a case's suspicious-activity report covers: which of the case's alerts (and so which of their
transactions) it includes, and why each is in or out (docs/cases.md, "What a SAR covers").

By default a report covers the alerts disposed `true_positive` or `inconclusive`; an alert closed
as `false_positive` is left out, and an alert still open is left out until the investigator selects
it. The investigator's choices (`ReportDraft.selection`: alert id → true/false) override the default.
"""

from __future__ import annotations

from dataclasses import dataclass

from filings.cases import selectors
from filings.choices import ReportFamily
from monitoring.choices import AlertStatus, Disposition
from monitoring.models import Alert

COVERED_DISPOSITIONS = (Disposition.TRUE_POSITIVE, Disposition.INCONCLUSIVE)


@dataclass(frozen=True)
class Covered:
    """One alert of the case: whether the report covers it, why, and whether the investigator chose so."""

    alert: Alert
    included: bool
    reason: str
    chosen: bool

    def as_dict(self) -> dict:
        alert = self.alert
        return {"alert_id": str(alert.pk), "rule": alert.rule_name, "rule_code": alert.rule_code, "status": alert.status,
                "disposition": alert.disposition or None, "transactions": getattr(alert, "transaction_count", None),
                "reason": self.reason, "selected_by_investigator": self.chosen}


def default_of(alert: Alert) -> tuple[bool, str]:
    """(included, reason) of an alert nobody chose for."""
    if alert.status != AlertStatus.CLOSED:
        return False, f"Still {alert.status.replace('_', ' ')}: a report covers an open alert only when the investigator selects it."
    if alert.disposition in COVERED_DISPOSITIONS:
        return True, f"Disposed {alert.disposition.replace('_', ' ')}."
    return False, f"Closed as {(alert.disposition or 'no disposition').replace('_', ' ')}: not suspicious activity to report."


def judge(alert: Alert, selection: dict | None) -> Covered:
    included, reason = default_of(alert)
    choice = (selection or {}).get(str(alert.pk))
    if choice is None or bool(choice) == included:
        return Covered(alert, included, reason, chosen=choice is not None)
    state = f"{alert.status.replace('_', ' ')}" + (f", {alert.disposition.replace('_', ' ')}" if alert.disposition else "")
    if choice:
        return Covered(alert, True, f"Selected by the investigator ({state}).", chosen=True)
    return Covered(alert, False, f"Left out by the investigator ({state}).", chosen=True)


def coverage_of(case, selection: dict | None) -> list[Covered]:
    """Every alert of the case, in the case's order, judged."""
    return [judge(alert, selection) for alert in selectors.case_alerts(case)]


def stored_selection(case) -> dict:
    """The investigator's choices stored on the case's suspicious-activity draft ({} without one)."""
    from filings.models import ReportDraft

    draft = ReportDraft.objects.filter(case=case, family=ReportFamily.SUSPICIOUS_ACTIVITY).only("selection").first()
    return dict(draft.selection or {}) if draft is not None else {}


def included_alerts(case, selection: dict | None) -> list[Alert]:
    return [item.alert for item in coverage_of(case, selection) if item.included]


def summary(items: list[Covered]) -> dict:
    """The draft's and the filing record's view: included and excluded alerts with their reasons."""
    return {"included": [item.as_dict() for item in items if item.included],
            "excluded": [item.as_dict() for item in items if not item.included]}
