"""The enumerations of cases and filings. `CaseStatus` owns the case state machine (issue 5)."""

from __future__ import annotations

from django.db import models

from common.errors import Conflict


class CaseStatus(models.TextChoices):
    """open → investigating | closed; investigating → under_review | escalated | determination |
    closed; under_review → investigating | determination; escalated → investigating |
    determination; determination → investigating | closed; closed → investigating (a reopen,
    l3_officer or above)."""

    OPEN = "open"
    INVESTIGATING = "investigating"
    UNDER_REVIEW = "under_review"
    ESCALATED = "escalated"
    DETERMINATION = "determination"
    CLOSED = "closed"

    @classmethod
    def targets(cls, current: str) -> tuple[str, ...]:
        """The statuses `current` may move to, in the enum's order."""
        allowed = CASE_TRANSITIONS.get(current, frozenset())
        return tuple(status for status in cls.values if status in allowed)

    @classmethod
    def can_move(cls, current: str, target: str) -> bool:
        return target in CASE_TRANSITIONS.get(current, frozenset())

    @classmethod
    def require_move(cls, current: str, target: str) -> None:
        """A 409 naming the allowed targets when `current` → `target` is not a transition."""
        if cls.can_move(current, target):
            return
        allowed = cls.targets(current)
        where = ", ".join(allowed) if allowed else "nothing"
        raise Conflict(f"A case that is {current} cannot move to {target}; it can move to: {where}.",
                       details=[{"field": "status", "message": f"Allowed from {current}: {where}.", "allowed": list(allowed)}])

    @classmethod
    def is_reopen(cls, current: str, target: str) -> bool:
        return current == cls.CLOSED and target != cls.CLOSED


CASE_TRANSITIONS: dict[str, frozenset[str]] = {
    CaseStatus.OPEN: frozenset({CaseStatus.INVESTIGATING, CaseStatus.CLOSED}),
    CaseStatus.INVESTIGATING: frozenset({CaseStatus.UNDER_REVIEW, CaseStatus.ESCALATED, CaseStatus.DETERMINATION,
                                         CaseStatus.CLOSED}),
    CaseStatus.UNDER_REVIEW: frozenset({CaseStatus.INVESTIGATING, CaseStatus.DETERMINATION}),
    CaseStatus.ESCALATED: frozenset({CaseStatus.INVESTIGATING, CaseStatus.DETERMINATION}),
    CaseStatus.DETERMINATION: frozenset({CaseStatus.INVESTIGATING, CaseStatus.CLOSED}),
    CaseStatus.CLOSED: frozenset({CaseStatus.INVESTIGATING}),
}


class CasePriority(models.TextChoices):
    """The highest severity among the case's alerts."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @classmethod
    def rank(cls, value: str) -> int:
        return list(cls.values).index(value) if value in cls.values else 0

    @classmethod
    def highest(cls, values) -> str:
        return max(values, key=cls.rank, default=cls.LOW)


class FilingStatus(models.TextChoices):
    """Where the case's suspicious-activity report stands."""

    NONE = "none"  # nothing prepared yet
    DRAFT = "draft"  # a member saved form data (sar-xml / sar-validate with a body, or the console)
    FILED = "filed"  # file-sar stored a filing record
    NOT_FILED = "not_filed"  # closed without a report: the reason on the timeline documents the decision


class CaseOrigin(models.TextChoices):
    ALERT = "alert"  # opened by a new alert of an entity without an open case
    MANUAL = "manual"  # opened by hand in the console
    SPLIT = "split"  # alerts split out of another case


class CaseEventKind(models.TextChoices):
    CREATED = "created"
    ALERTS_ATTACHED = "alerts_attached"
    ALERTS_DETACHED = "alerts_detached"
    ALERT_DISPOSED = "alert_disposed"
    ASSIGNED = "assigned"
    STATUS_CHANGED = "status_changed"
    COMMENT = "comment"
    DRAFT_SAVED = "draft_saved"
    REPORT_FILED = "report_filed"
    SLA_BREACHED = "sla_breached"
    MERGED = "merged"


class ReportFamily(models.TextChoices):
    SUSPICIOUS_ACTIVITY = "suspicious_activity"  # SAR, STR, SMR
    LARGE_TRANSACTION = "large_transaction"  # CTR, LCTR, TTR


class ReportKind(models.TextChoices):
    SAR = "SAR"
    STR = "STR"
    SMR = "SMR"
    CTR = "CTR"
    LCTR = "LCTR"
    TTR = "TTR"
