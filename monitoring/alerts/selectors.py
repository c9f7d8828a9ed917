"""Alert, transfer and fiat-event reads, scoped to one organization and mode, ordered, related rows loaded."""

from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from monitoring.choices import AlertStatus
from monitoring.models import Alert, AlertHit, FiatEvent, Transaction


def with_transaction_count(alerts: QuerySet[Alert]) -> QuerySet[Alert]:
    """Adds `transaction_count` and `orphaned` (a transfer of the alert is in a block a chain reorganisation orphaned),
    which every customer view of an alert shows (list, detail, transfer, case). Subqueries rather than a joined Count:
    prefetched through a transfer, the join would count only that transfer."""
    through = Alert.transactions.through.objects.filter(alert_id=OuterRef("pk"))
    links = through.order_by().values("alert_id").annotate(n=Count("transaction_id")).values("n")
    return alerts.annotate(transaction_count=Coalesce(Subquery(links), 0), orphaned=Exists(through.filter(transaction__orphaned=True)))


def alerts_of(*, organization, mode: str) -> QuerySet[Alert]:
    return Alert.objects.filter(organization=organization, mode=mode).select_related("case_link").order_by("-created_at", "-id")


def alerts_of_entity(*, organization, mode: str, entity_id, severity: str | None = None, status: str | None = None) -> QuerySet[Alert]:
    alerts = alerts_of(organization=organization, mode=mode).filter(entity_id=entity_id)
    if severity:
        alerts = alerts.filter(severity=severity)
    if status:
        alerts = alerts.filter(status=status)
    return with_transaction_count(alerts)


def alerts_filtered(*, organization, mode: str, rule: str | None = None, severity: str | None = None, status: str | None = None,
                    disposition: str | None = None, from_date=None, to_date=None) -> QuerySet[Alert]:
    """The organization's alerts across entities, newest first. `rule`: a rule code; `disposition`:
    one of the dispositions, or "none" for the undisposed; the period bounds the alert's first
    trigger (both ends included)."""
    alerts = alerts_of(organization=organization, mode=mode)
    if rule:
        alerts = alerts.filter(rule_code=rule)
    if severity:
        alerts = alerts.filter(severity=severity)
    if status:
        alerts = alerts.filter(status=status)
    if disposition:
        alerts = alerts.filter(disposition="" if disposition == "none" else disposition)
    if from_date:
        alerts = alerts.filter(first_triggered_at__gte=from_date)
    if to_date:
        alerts = alerts.filter(first_triggered_at__lte=to_date)
    return with_transaction_count(alerts)


def alert_detail(*, organization, mode: str, entity_id, alert_id) -> Alert | None:
    return (
        with_transaction_count(alerts_of(organization=organization, mode=mode).filter(entity_id=entity_id, pk=alert_id))
        .prefetch_related(Prefetch("transactions", queryset=Transaction.objects.order_by("timestamp", "id").only("id")),
                          Prefetch("fiat_events", queryset=FiatEvent.objects.order_by("timestamp", "id").only("id")),
                          Prefetch("hits", queryset=AlertHit.objects.order_by("triggered_at", "created_at")))
        .first()
    )


def disposition_rates(*, organization, mode: str, rule_code: str, excluding=None) -> dict[str, int]:
    """How this organization disposed this rule's closed alerts, but the alert `excluding` (an id):
    {disposition: count}."""
    closed = Alert.objects.filter(organization=organization, mode=mode, rule_code=rule_code, status=AlertStatus.CLOSED)
    if excluding is not None:
        closed = closed.exclude(pk=excluding)
    rows = closed.values("disposition").annotate(n=Count("pk")).order_by()
    return {row["disposition"]: row["n"] for row in rows}


def transfers_of_entity(*, organization, mode: str, entity_id, chain_id: int | None = None, from_date=None,
                        to_date=None) -> QuerySet[Transaction]:
    """The entity's transfers, with those a chain reorganisation orphaned (their customer columns are cleared: they
    are out of every rule's history, but the customer still sees them, marked `orphaned`)."""
    sides = Q(from_entity_id=entity_id) | Q(to_entity_id=entity_id)
    orphans = _orphaned_of(organization, mode, entity_id)
    if orphans:
        sides |= Q(pk__in=orphans)
    transfers = Transaction.objects.filter(sides, organization=organization, mode=mode).select_related("indexed")
    if chain_id is not None:
        transfers = transfers.filter(chain_id=chain_id)
    return _newest_first_between(transfers, from_date, to_date)


def _orphaned_of(organization, mode: str, entity_id) -> list:
    """The ids of the entity's orphaned transfers (few: the partial index `transaction_orphaned`), whose customers are
    kept on their IndexedTransfer row."""
    return list(Transaction.objects.filter(organization=organization, mode=mode, orphaned=True)
                .filter(Q(indexed__from_entity_id=entity_id) | Q(indexed__to_entity_id=entity_id)).values_list("pk", flat=True))


def _alerts_of_event() -> Prefetch:
    """An event's alerts as a customer sees them (their case, their transaction count), in two queries."""
    return Prefetch("alerts", queryset=with_transaction_count(Alert.objects.select_related("case_link").order_by("created_at", "id")))


def transfer_detail(*, organization, mode: str, entity_id, transfer_id) -> Transaction | None:
    return (transfers_of_entity(organization=organization, mode=mode, entity_id=entity_id).filter(pk=transfer_id)
            .prefetch_related(_alerts_of_event()).first())


def fiat_events_of_entity(*, organization, mode: str, entity_id, event_type: str | None = None, from_date=None,
                          to_date=None) -> QuerySet[FiatEvent]:
    events = FiatEvent.objects.filter(organization=organization, mode=mode, entity_id=entity_id)
    if event_type:
        events = events.filter(event_type=event_type)
    return _newest_first_between(events, from_date, to_date)


def _newest_first_between(events: QuerySet, from_date, to_date) -> QuerySet:
    """Events (transfers or fiat events) with from_date ≤ time ≤ to_date where given, newest first."""
    if from_date:
        events = events.filter(timestamp__gte=from_date)
    if to_date:
        events = events.filter(timestamp__lte=to_date)
    return events.order_by("-timestamp", "-id")


def fiat_event_detail(*, organization, mode: str, entity_id, event_id) -> FiatEvent | None:
    return (fiat_events_of_entity(organization=organization, mode=mode, entity_id=entity_id).filter(pk=event_id)
            .prefetch_related(_alerts_of_event()).first())
