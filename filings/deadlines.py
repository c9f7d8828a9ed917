"""Deadlines of cases: the SLA to work a case and the regulatory deadline to file its report.

31 CFR 1020.320(b)(3) (and the same 30 days in 1022.320 for MSBs): a SAR is filed no later than 30
calendar days after the date of initial detection of facts that may constitute a basis for
filing. The service counts from the creation of the case's earliest alert — the moment it
detected the activity — which is the conservative reading (FinCEN allows a reasonable review
period before "detection"; an officer who needs it documents it on the timeline).

A continuing-activity report is due 120 days after the previous filing (FinCEN SAR FAQ, October
2017: a 90-day review period plus the 30 days to file), which is the deadline of a reopened case
whose report was filed.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from filings.choices import CasePriority

SAR_FILING_DAYS = 30
CONTINUING_REPORT_DAYS = 120
REGULATION = "31 CFR 1020.320(b)(3)"

# Time to bring a case to a determination, by priority; never later than the filing deadline.
CASE_SLA_DAYS = {CasePriority.CRITICAL: 5, CasePriority.HIGH: 10, CasePriority.MEDIUM: 20, CasePriority.LOW: 30}


def sar_due_at(detected_at: datetime) -> datetime:
    return detected_at + timedelta(days=SAR_FILING_DAYS)


def continuing_report_due_at(filed_at: datetime) -> datetime:
    return filed_at + timedelta(days=CONTINUING_REPORT_DAYS)


def case_sla_due_at(*, started_at: datetime, priority: str, report_due_at: datetime | None) -> datetime:
    due = started_at + timedelta(days=CASE_SLA_DAYS.get(priority, CASE_SLA_DAYS[CasePriority.LOW]))
    return min(due, report_due_at) if report_due_at else due


def days_remaining(due: datetime | None, now: datetime) -> int | None:
    """Whole calendar days left until `due` (negative once passed)."""
    if due is None:
        return None
    return (due.date() - now.date()).days
