"""Case reads, scoped to one organization and mode, ordered, related rows loaded."""

from __future__ import annotations

from django.db.models import Count, Prefetch, Q, QuerySet
from django.utils import timezone

from common.confidentiality import SAR_KINDS, SAR_ROLE, sar_visible
from filings.choices import CaseEventKind, CaseStatus
from filings.models import Case, CaseAlert, CaseEvent, FilingRecord
from monitoring.alerts.selectors import with_transaction_count
from monitoring.models import Alert, FiatEvent, Transaction

DETAIL_TRANSACTIONS = 500  # the detail shows the first 500 of each kind; the entity's transfer list pages the rest
FILINGS_ROLE = SAR_ROLE
"""Who sees a case's reports (its filing records, drafts and filing status): the existence of a SAR
is confidential (31 CFR 1020.320(e), common.confidentiality), so, as for the filing histories, not
analysts and viewers."""
FILING_KINDS = (CaseEventKind.DRAFT_SAVED, CaseEventKind.REPORT_FILED)


def filings_visible(reader) -> bool:
    """May `reader` (a Principal or a role) see a case's reports? The SAR policy, common.confidentiality."""
    return sar_visible(reader)


def visible_filings(records: QuerySet[FilingRecord], reader) -> QuerySet[FilingRecord]:
    """Filing records as `reader` may read them where every role reads (the compliance report): no
    SAR, STR or SMR below l2_investigator; large-transaction reports are not confidential."""
    return records if sar_visible(reader) else records.exclude(kind__in=SAR_KINDS)


def cases_of(*, organization, mode: str) -> QuerySet[Case]:
    return (Case.objects.filter(organization=organization, mode=mode).select_related("entity", "assigned_to")
            .annotate(alert_count=Count("alert_links", distinct=True)).order_by("-created_at", "-number"))


def cases_of_entity(*, organization, mode: str, entity_id, status: str | None = None) -> QuerySet[Case]:
    cases = cases_of(organization=organization, mode=mode).filter(entity_id=entity_id)
    return cases.filter(status=status) if status else cases


def case_queue(*, organization, mode: str, queue: str = "open", user=None) -> QuerySet[Case]:
    """The console's queues: open (not closed), mine, unassigned, overdue, closed, all."""
    cases = cases_of(organization=organization, mode=mode)
    not_closed = ~Q(status=CaseStatus.CLOSED)
    filters = {
        "open": not_closed, "mine": not_closed & Q(assigned_to=user), "unassigned": not_closed & Q(assigned_to__isnull=True),
        "overdue": not_closed & Q(sla_due_at__lt=timezone.now()), "closed": Q(status=CaseStatus.CLOSED), "all": Q(),
    }
    return cases.filter(filters.get(queue, not_closed))


def case_alerts(case: Case) -> QuerySet[Alert]:
    return with_transaction_count(Alert.objects.filter(case_link__case=case)).order_by("created_at", "id")


def case_transactions(case: Case) -> QuerySet[Transaction]:
    return Transaction.objects.filter(alerts__case_link__case=case).distinct().order_by("timestamp", "id")


def case_fiat_events(case: Case) -> QuerySet[FiatEvent]:
    return FiatEvent.objects.filter(alerts__case_link__case=case).distinct().order_by("timestamp", "id")


def alerts_transactions(alerts) -> QuerySet[Transaction]:
    """The transactions of these alerts (a report covering only some of a case's alerts)."""
    return Transaction.objects.filter(alerts__in=[alert.pk for alert in alerts]).distinct().order_by("timestamp", "id")


def alerts_fiat_events(alerts) -> QuerySet[FiatEvent]:
    return FiatEvent.objects.filter(alerts__in=[alert.pk for alert in alerts]).distinct().order_by("timestamp", "id")


def case_detail(*, organization, mode: str, case_id, entity_id=None, with_filings: bool = True) -> Case | None:
    """The case with its timeline and filing records; `with_filings` False (a reader below
    FILINGS_ROLE) leaves out the filing records and the timeline's draft and filing steps."""
    cases = cases_of(organization=organization, mode=mode).filter(pk=case_id)
    if entity_id is not None:
        cases = cases.filter(entity_id=entity_id)
    events, filings = CaseEvent.objects.order_by("created_at", "id"), FilingRecord.objects.order_by("-filed_at", "-id")
    if not with_filings:
        events, filings = events.exclude(kind__in=FILING_KINDS), filings.none()
    return cases.prefetch_related(Prefetch("events", queryset=events),
                                  Prefetch("filings", queryset=filings.defer("document", "form_data"))).first()


def alert_ids_of(case: Case) -> list[str]:
    return [str(i) for i in CaseAlert.objects.filter(case=case).order_by("attached_at", "id").values_list("alert_id", flat=True)]
