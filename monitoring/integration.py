"""Monitoring's contributions to onboarding's seams (onboarding/interfaces, onboarding.risk):
transaction statistics and counterparties (peer groups, related entities), the alert-history and
behaviour risk factors, alerts in the activity feed and the compliance report, and the alert and
transfer searchers. Registered once, in MonitoringConfig.ready()."""

from collections import Counter, defaultdict
from datetime import timedelta
from decimal import Decimal

from django.db.models import Count, F, Q, Sum
from django.utils import timezone

from monitoring.choices import AlertStatus, Disposition, Severity
from monitoring.models import Alert, FiatEvent, Transaction
from onboarding.interfaces.activity import ActivityItem, register_activity_source
from onboarding.interfaces.monitoring_data import Statistics, set_monitoring_data
from onboarding.interfaces.reports import ReportRow, register_report_section
from onboarding.interfaces.search import SearchResult, register_searcher
from onboarding.risk import FactorResult, RiskFactor, register_risk_factor

FINDINGS_WINDOW = timedelta(days=365)
BEHAVIOUR_WINDOW = timedelta(days=30)


def _tx_key(chain_id: int, address: str) -> str:
    return f"{chain_id}:{address}"


def _name_key(name: str) -> str:
    return "name:" + " ".join(name.lower().split())


class MonitoringData:
    """Statistics and counterparties from stored transactions and fiat events."""

    available = True

    def activity_statistics(self, entity_ids: list, *, since) -> dict:
        totals: dict = defaultdict(lambda: [Decimal(0), 0])
        queries = (
            Transaction.objects.filter(from_entity_id__in=entity_ids, timestamp__gte=since).values("from_entity_id"),
            # a transfer between two of the entity's own wallets counts once (on the sending side)
            Transaction.objects.filter(to_entity_id__in=entity_ids, timestamp__gte=since).exclude(
                from_entity_id=F("to_entity_id")).values("to_entity_id"),
            FiatEvent.objects.filter(entity_id__in=entity_ids, timestamp__gte=since).values("entity_id"),
        )
        for query in queries:
            for row in query.annotate(volume=Sum("usd_value"), n=Count("pk")).order_by():
                entity_id = next(value for name, value in row.items() if name.endswith("entity_id"))
                totals[entity_id][0] += row["volume"] or Decimal(0)
                totals[entity_id][1] += row["n"]
        return {entity_id: Statistics(volume_usd=volume, count=count) for entity_id, (volume, count) in totals.items()}

    def counterparties(self, entity) -> dict[str, int]:
        counts: Counter = Counter()
        for chain_id, address, n in (Transaction.objects.filter(from_entity=entity).exclude(to_entity=entity)
                                     .values_list("chain_id", "to_address").annotate(n=Count("pk")).order_by()):
            counts[_tx_key(chain_id, address)] += n
        for chain_id, address, n in (Transaction.objects.filter(to_entity=entity).exclude(from_entity=entity)
                                     .values_list("chain_id", "from_address").annotate(n=Count("pk")).order_by()):
            counts[_tx_key(chain_id, address)] += n
        for name, n in (FiatEvent.objects.filter(entity=entity).exclude(counterparty_name="")
                        .values_list("counterparty_name").annotate(n=Count("pk")).order_by()):
            counts[_name_key(name)] += n
        return dict(counts)

    def entities_by_counterparty(self, keys: set[str], *, organization, mode) -> dict:
        addresses = {key.split(":", 1)[1] for key in keys if not key.startswith("name:")}
        found: dict = defaultdict(set)
        scope = Transaction.objects.filter(organization=organization, mode=mode)
        for entity_id, chain_id, address in scope.filter(to_address__in=addresses, from_entity__isnull=False).values_list(
                "from_entity_id", "chain_id", "to_address").distinct():
            if _tx_key(chain_id, address) in keys:
                found[entity_id].add(_tx_key(chain_id, address))
        for entity_id, chain_id, address in scope.filter(from_address__in=addresses, to_entity__isnull=False).values_list(
                "to_entity_id", "chain_id", "from_address").distinct():
            if _tx_key(chain_id, address) in keys:
                found[entity_id].add(_tx_key(chain_id, address))
        names = [key for key in keys if key.startswith("name:")]
        if names:
            fiat = FiatEvent.objects.filter(organization=organization, mode=mode).exclude(counterparty_name="")
            for entity_id, name in fiat.values_list("entity_id", "counterparty_name").distinct():
                if _name_key(name) in names:
                    found[entity_id].add(_name_key(name))
        return dict(found)


# --- Risk factors ------------------------------------------------------------------------------

SEVERITY_POINTS = {Severity.CRITICAL: 0.5, Severity.HIGH: 0.25, Severity.MEDIUM: 0.1, Severity.LOW: 0.03}


# Both factors below gather their inputs for all the entities scored together (onboarding.risk:
# a batch's recomputation reads them in five grouped queries; a single entity through the same reads).


def _alert_inputs(ids) -> tuple[dict, dict]:
    """Per entity: open alerts counted by severity, and the severities of last year's true positives."""
    alerts = Alert.objects.filter(entity_id__in=ids)
    open_by_entity: dict = defaultdict(Counter)
    for entity_id, severity, n in (alerts.exclude(status=AlertStatus.CLOSED).values_list("entity_id", "severity")
                                   .annotate(n=Count("pk")).order_by()):
        open_by_entity[entity_id][severity] += n
    confirmed: dict = defaultdict(list)
    since = timezone.now() - FINDINGS_WINDOW
    for entity_id, severity in alerts.filter(disposition=Disposition.TRUE_POSITIVE, disposed_at__gte=since).values_list(
            "entity_id", "severity"):
        confirmed[entity_id].append(severity)
    return open_by_entity, confirmed


def _statistics(ids) -> dict:
    return MonitoringData().activity_statistics(list(ids), since=timezone.now() - BEHAVIOUR_WINDOW)


# A confirmed finding (an alert disposed true positive in the last year) puts the customer at least
# in the tier of its severity, whatever the other factors say: an examiner expects the rating of a
# customer with confirmed suspicious activity to show it (FFIEC BSA/AML manual, customer risk
# rating updated on suspicious activity), and alert history alone weighs 10 of 100.
CONFIRMED_FLOORS = {Severity.CRITICAL: 75, Severity.HIGH: 50, Severity.MEDIUM: 25}


def alert_history(entity, inputs: tuple[dict, dict]) -> FactorResult:
    """Open alerts weigh by severity; a true positive of the last year weighs most, and sets a floor
    by its severity (CONFIRMED_FLOORS: critical, high and medium tiers; none for a low one)."""
    open_by_entity, confirmed_by_entity = inputs
    open_by_severity, confirmed = open_by_entity.get(entity.pk, Counter()), confirmed_by_entity.get(entity.pk, [])
    if not open_by_severity and not confirmed:
        return FactorResult(0.0, "No open alerts and no confirmed findings in the last year.")
    # summed in severity order: the same float whatever order the rows came in
    severity = sum(SEVERITY_POINTS[s] * n for s, n in sorted(open_by_severity.items())) + 0.4 * len(confirmed)
    parts = [f"{n} open {s}" for s, n in sorted(open_by_severity.items())]
    if confirmed:
        parts.append(f"{len(confirmed)} confirmed (true positive) in the last year")
    floor = max((CONFIRMED_FLOORS.get(found, 0) for found in confirmed), default=0) or None
    return FactorResult(min(severity, 1.0), "; ".join(parts).capitalize() + ".", floor)


def behaviour(entity, statistics: dict) -> FactorResult:
    """30-day volume against what the customer declared at onboarding."""
    stats = statistics.get(entity.pk)
    if stats is None or not stats.count:
        return FactorResult(0.0, "No activity in the last 30 days.")
    declared = entity.expected_monthly_volume_usd
    if not declared:
        events = f"{stats.count} event{'' if stats.count == 1 else 's'}"
        return FactorResult(0.2, f"{events}, {stats.volume_usd:,.2f} USD in 30 days; no expected volume declared.")
    ratio = stats.volume_usd / declared
    severity = 0.0 if ratio <= 1 else 0.4 if ratio <= 2 else 0.7 if ratio <= 5 else 1.0
    return FactorResult(severity, f"30-day volume {stats.volume_usd:,.2f} USD is {ratio:.1f}× the declared {declared:,.2f} USD.")


# --- Activity, reports, search -----------------------------------------------------------------

def alert_activity(entity, limit: int) -> list[ActivityItem]:
    items = []
    for alert in Alert.objects.filter(entity=entity).order_by("-created_at")[:limit]:
        items.append(ActivityItem(alert.created_at, "alert.created", f"{alert.severity} alert: {alert.rule_name}",
                                  {"alert_id": str(alert.pk), "rule_code": alert.rule_code}))
        if alert.disposed_at:
            items.append(ActivityItem(alert.disposed_at, "alert.disposition_set", f"alert closed as {alert.disposition}",
                                      {"alert_id": str(alert.pk), "disposition": alert.disposition}))
    return items


def alert_report_rows(entity, *, start, end, reader) -> list[ReportRow]:
    alerts = Alert.objects.filter(entity=entity).order_by("created_at")
    if start:
        alerts = alerts.filter(created_at__gte=start)
    if end:
        alerts = alerts.filter(created_at__lte=end)
    return [ReportRow(alert.created_at, "alerts", alert.rule_code, alert.description, reference=str(alert.pk),
                      actor=alert.disposed_by_label, extra={"severity": alert.severity, "status": alert.status,
                                                            "disposition": alert.disposition, "hits": alert.hit_count})
            for alert in alerts]


def search_alerts(*, organization, mode: str, q: str, limit: int) -> list[SearchResult]:
    term = q.strip()
    alerts = Alert.objects.filter(organization=organization, mode=mode).select_related("entity")
    match = Q(rule_code__icontains=term) | Q(rule_name__icontains=term) | Q(entity__legal_name__icontains=term)
    if _looks_like_uuid(term):
        match |= Q(pk=term)
    return [SearchResult("alert", str(a.pk), f"{a.rule_name} ({a.severity})", a.entity.legal_name, a.status,
                         [name for name, value in (("rule", a.rule_code), ("rule_name", a.rule_name),
                                                   ("entity", a.entity.legal_name)) if term.lower() in value.lower()] or ["id"])
            for a in alerts.filter(match).order_by("-created_at")[:limit]]


def search_transfers(*, organization, mode: str, q: str, limit: int) -> list[SearchResult]:
    term = q.strip()
    lowered = term.lower()
    transfers = Transaction.objects.filter(organization=organization, mode=mode).filter(
        Q(tx_hash__in={term, lowered}) | Q(reference=term) | Q(from_address=lowered) | Q(to_address=lowered))
    return [SearchResult("transfer", str(tx.pk), f"{tx.amount} {tx.asset}".strip(), f"{tx.from_address} → {tx.to_address}",
                         "monitored" if tx.monitored else "stored",
                         [name for name, value in (("tx_hash", tx.tx_hash), ("reference", tx.reference),
                                                   ("from_address", tx.from_address), ("to_address", tx.to_address))
                          if value in (term, lowered)])
            for tx in transfers.order_by("-timestamp")[:limit]]


def _looks_like_uuid(text: str) -> bool:
    import uuid

    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def register() -> None:
    set_monitoring_data(MonitoringData())
    register_risk_factor(RiskFactor("alert_history", "Alert history", 10, alert_history, gather=_alert_inputs))
    register_risk_factor(RiskFactor("behaviour", "Transaction behaviour", 10, behaviour, gather=_statistics))
    register_activity_source("alerts", alert_activity)
    register_report_section("alerts", alert_report_rows)
    register_searcher("alert", search_alerts)
    register_searcher("transfer", search_transfers)
