"""Where cases and filings plug into onboarding (onboarding/interfaces): the global search finds
cases, the entity activity feed shows case steps, and the compliance report lists cases and
filings. Registered in FilingsConfig.ready() (the searcher not yet: see `register`).

The activity feed leaves out drafts, filings and comments: the existence of a SAR is confidential
(31 CFR 1020.320(e)) and the feed is readable by every role. The compliance report, made for
auditors and examiners, lists cases with their filing status and the filings for a reader of
l2_investigator or above; below, it lists no SAR, STR or SMR and no case's filing status
(common.confidentiality), and still lists large-transaction reports.
"""

from __future__ import annotations

import re

from django.db.models import Q

from common.confidentiality import sar_visible
from filings.cases.selectors import visible_filings
from filings.choices import CaseEventKind
from filings.models import Case, CaseEvent, FilingRecord
from onboarding.interfaces.activity import ActivityItem, register_activity_source
from onboarding.interfaces.reports import ReportRow, register_report_section
from onboarding.interfaces.search import SearchResult, register_searcher

REFERENCE = re.compile(r"^(?:case-?)?0*(\d{1,9})$", re.IGNORECASE)
FEED_KINDS = (CaseEventKind.CREATED, CaseEventKind.STATUS_CHANGED, CaseEventKind.ASSIGNED)


def search_cases(*, organization, mode: str, q: str, limit: int) -> list[SearchResult]:
    term = q.strip()
    match = Q(entity__legal_name__icontains=term) | Q(title__icontains=term)
    number = REFERENCE.match(term)
    if number:
        match |= Q(number=int(number.group(1)))
    cases = (Case.objects.filter(organization=organization, mode=mode).filter(match).select_related("entity")
             .order_by("-created_at", "-number")[:limit])
    return [SearchResult("case", str(case.pk), case.reference, f"{case.entity.legal_name} · {case.priority} priority", case.status,
                         ["reference"] if number and case.number == int(number.group(1)) else ["entity"]) for case in cases]


def case_activity(entity, limit: int) -> list[ActivityItem]:
    events = (CaseEvent.objects.filter(case__entity=entity, kind__in=FEED_KINDS).select_related("case")
              .order_by("-created_at", "-id")[:limit])
    return [ActivityItem(event.created_at, f"case.{event.kind}", _summary(event),
                         {"case_id": str(event.case_id), "reference": event.case.reference, **_data(event)}) for event in events]


def _summary(event: CaseEvent) -> str:
    if event.kind == CaseEventKind.STATUS_CHANGED:
        return f"{event.case.reference}: {event.data.get('previous_status')} → {event.data.get('new_status')}"
    if event.kind == CaseEventKind.ASSIGNED:
        return f"{event.case.reference} assigned"
    return f"{event.case.reference} opened"


def _data(event: CaseEvent) -> dict:
    keep = ("previous_status", "new_status", "assigned_to", "origin")
    return {key: value for key, value in event.data.items() if key in keep}


def _in_range(queryset, field: str, start, end):
    if start:
        queryset = queryset.filter(**{f"{field}__gte": start})
    if end:
        queryset = queryset.filter(**{f"{field}__lte": end})
    return queryset


def case_rows(entity, *, start, end, reader) -> list[ReportRow]:
    cases = _in_range(Case.objects.filter(entity=entity), "created_at", start, end).order_by("created_at", "number")
    filing = sar_visible(reader)
    return [ReportRow(case.created_at, "case", case.status, f"{case.reference} ({case.priority} priority"
                      + (f", filing {case.filing_status})" if filing else ")"), str(case.pk), case.opened_by_label) for case in cases]


def filing_rows(entity, *, start, end, reader) -> list[ReportRow]:
    records = visible_filings(_in_range(FilingRecord.objects.filter(entity=entity), "filed_at", start, end), reader)
    records = records.defer("document", "form_data", "attachments")
    return [ReportRow(record.filed_at, "filing", record.kind, f"{record.kind} {record.tracking_id}: {record.amount} {record.currency}",
                      str(record.pk), record.filed_by_label, {"jurisdiction": record.jurisdiction, "sha256": record.document_sha256})
            for record in records.order_by("filed_at", "id")]


def register() -> None:
    register_searcher("case", search_cases)
    register_activity_source("cases", case_activity)
    register_report_section("cases", case_rows)
    register_report_section("filings", filing_rows)
