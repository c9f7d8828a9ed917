"""SAR confidentiality: the one policy every surface applies (docs/cases.md, "SAR confidentiality").

31 USC 5318(g)(2) and 31 CFR 1020.320(e): the existence of a suspicious-activity report is
confidential. Below `SAR_ROLE` a reader (API key, member, console user) sees no SAR, STR or SMR
filing, no tracking or BSA id, no document hash, no draft, no `sar.filed` event or delivery, no
`sar_filed` notification, no filing status of a case and no audit entry that records any of them.
Large-transaction reports (CTR, LCTR, TTR) are not confidential in this sense.

The reads ask `sar_visible(reader)` and filter with the querysets and names below; nothing stored
changes. The filings app owns the filing records; the names here are its contract (a test checks that
SAR_KINDS are filings' suspicious-activity kinds and SAR_EVENT_TYPES in the webhook catalogue)."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from organizations.choices import Role

SAR_ROLE = Role.L2_INVESTIGATOR
SAR_KINDS = ("SAR", "STR", "SMR")  # ReportFamily.SUSPICIOUS_ACTIVITY
SAR_EVENT_TYPES = frozenset({"sar.filed"})
SAR_NOTIFICATION_TYPES = frozenset({"sar_filed"})
SAR_CASE_FILING_STATUSES = ("draft", "filed")  # FilingStatus: a case's SAR being prepared or filed


def role_of(reader) -> str | None:
    """A Principal's role, or the role itself (a string), or None."""
    return reader if reader is None or isinstance(reader, str) else getattr(reader, "role", None)


def sar_visible(reader) -> bool:
    """May `reader` (a Principal, a role or None) know that a SAR exists?"""
    return Role.at_least(role_of(reader), SAR_ROLE)


def cleared_roles() -> list[str]:
    return [role for role in Role.values if Role.at_least(role, SAR_ROLE)]


def sar_audit_entries() -> Q:
    """Audit entries that record a SAR: its draft, its filing, a case moving with a SAR drafted or filed."""
    return (Q(action__in=("report.filed", "report.draft_saved"), after__kind__in=SAR_KINDS)
            | Q(action="case.status_changed", after__filing_status__in=SAR_CASE_FILING_STATUSES))


def visible_audit_entries(entries: QuerySet, reader) -> QuerySet:
    if sar_visible(reader):
        return entries
    return entries.exclude(pk__in=entries.model.objects.filter(sar_audit_entries()).values("pk"))  # JSON keys may be absent


def visible_event_types(event_types, reader) -> list[str]:
    """Event type names as a reader may see them: `sar.filed` left out below SAR_ROLE."""
    return [name for name in event_types if sar_visible(reader) or name not in SAR_EVENT_TYPES]
