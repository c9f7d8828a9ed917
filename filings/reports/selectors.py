"""Filing records of an entity, scoped to one organization and mode, newest first."""

from __future__ import annotations

from django.db.models import QuerySet

from filings.choices import ReportFamily
from filings.models import FilingRecord

LIST_DEFER = ("document", "form_data")  # attachments stay: their names are listed


def filings_of_entity(*, organization, mode: str, entity_id, family: str | None = None) -> QuerySet[FilingRecord]:
    filings = (FilingRecord.objects.filter(organization=organization, mode=mode, entity_id=entity_id)
               .select_related("case").defer(*LIST_DEFER).order_by("-filed_at", "-id"))
    return filings.filter(family=family) if family else filings


def sar_history(*, organization, mode: str, entity_id) -> QuerySet[FilingRecord]:
    return filings_of_entity(organization=organization, mode=mode, entity_id=entity_id, family=ReportFamily.SUSPICIOUS_ACTIVITY)


def ctr_history(*, organization, mode: str, entity_id) -> QuerySet[FilingRecord]:
    return filings_of_entity(organization=organization, mode=mode, entity_id=entity_id, family=ReportFamily.LARGE_TRANSACTION)


def filing_of(*, organization, mode: str, filing_id, entity_id=None) -> FilingRecord | None:
    filings = FilingRecord.objects.filter(organization=organization, mode=mode, pk=filing_id)
    if entity_id is not None:
        filings = filings.filter(entity_id=entity_id)
    return filings.first()
