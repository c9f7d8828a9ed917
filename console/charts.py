"""The dashboard's charts, as data (console.views renders each as a chart and, beside it, its table):
one organization in one mode (console.dashboard.Scope). Each selector returns a `Chart`: labels (the
x axis), named series of numbers, and the rows of its accessible table."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db import NotSupportedError
from django.db.models import Count, F, Func, IntegerField, Q
from django.db.models.functions import TruncMonth
from django.urls import reverse

from common.confidentiality import SAR_KINDS
from filings.choices import CaseStatus
from filings.models import Case, FilingRecord
from monitoring.choices import AlertStatus, Disposition
from monitoring.models import Alert

WINDOW = timedelta(days=90)
TOP_RULES = 8  # the chart names the busiest rules; the rest are summed as "other rules"
AGE_BUCKETS = ((7, "0–7 days"), (30, "8–30 days"), (90, "31–90 days"), (None, "over 90 days"))
SAR_MONTHS = 12


@dataclass
class Chart:
    key: str
    title: str
    kind: str  # Chart.js type: bar, line
    labels: list[str]
    series: dict[str, list[float]]
    columns: list[str] = field(default_factory=list)  # the table's header
    rows: list[list] = field(default_factory=list)  # the table's rows (cells: text, numbers or {"text", "url"})
    stacked: bool = False
    note: str = ""

    @property
    def wide(self) -> bool:
        """A table of more than four columns goes under its chart, at full width, rather than beside it."""
        return len(self.columns) > 4

    def as_json(self) -> dict:
        return {"key": self.key, "title": self.title, "kind": self.kind, "labels": self.labels, "series": self.series,
                "stacked": self.stacked}


def _weeks(now: datetime) -> list[datetime]:
    """The Mondays (00:00 UTC) that start the weeks of the window, oldest first."""
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    last = midnight - timedelta(days=now.weekday())
    return [last - timedelta(weeks=n) for n in range(WINDOW.days // 7 + 1, -1, -1)]


class WeekOfWindow(Func):
    """The week of the window a datetime falls in, computed natively by each database from the datetime's
    UTC day: 0 for the week that starts on `first` (a Monday; the weeks start at midnight UTC, so a day
    falls in one week). SQLite reads the day from the first ten characters of the stored text (Django
    stores a datetime there as UTC text, 'YYYY-MM-DD HH:MM:SS[.ffffff]'); a per-row truncation through
    Django (TruncDate, TruncWeek) would call a Python function on every row there."""

    output_field = IntegerField()

    def __init__(self, field_name: str, first: date):
        super().__init__(F(field_name))
        self.first = first

    def as_sql(self, compiler, connection, **extra_context):
        raise NotSupportedError(f"WeekOfWindow is written for SQLite and PostgreSQL, not {connection.vendor}")

    def as_sqlite(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"CAST((julianday(substr({sql}, 1, 10)) - julianday(%s)) / 7 AS INTEGER)", (*params, self.first.isoformat())

    def as_postgresql(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"((({sql} AT TIME ZONE 'UTC')::date - %s::date) / 7)", (*params, self.first)


def _per_week(queryset, field_name: str, weeks: list[datetime], *by: str) -> dict[tuple, list[int]]:
    """The rows of `queryset` from the window's first week on, counted per week of `field_name`, for each
    combination of the `by` fields: one GROUP BY with the week computed in SQL, and COUNT(*) so that an
    index holding the fields is read alone (Alert has one for the alert charts)."""
    counted: dict[tuple, list[int]] = {}
    rows = (queryset.filter(**{f"{field_name}__gte": weeks[0]}).annotate(week=WeekOfWindow(field_name, weeks[0].date()))
            .values_list(*by, "week").annotate(n=Count("*")).order_by())
    for *key, week, count in rows:
        counted.setdefault(tuple(key), [0] * len(weeks))[min(week, len(weeks) - 1)] += count  # the current week is open-ended
    return counted


def _week_labels(weeks: list[datetime]) -> list[str]:
    return [week.date().isoformat() for week in weeks]


def alert_tallies(scope) -> list[dict]:
    """The window's alerts by rule, status and disposition, with a count per week: the one read both
    alert charts are drawn from."""
    weeks = _weeks(scope.now)
    alerts = Alert.objects.filter(organization=scope.organization, mode=scope.mode)
    by = ("rule_code", "status", "disposition")
    return [{**dict(zip(by, key, strict=True)), "weeks": counts, "week_starts": weeks}
            for key, counts in _per_week(alerts, "created_at", weeks, *by).items()]


def alerts_per_rule_per_week(scope, tallies: list[dict] | None = None) -> Chart:
    tallies = alert_tallies(scope) if tallies is None else tallies
    weeks = _weeks(scope.now)
    per_rule: dict[str, list[int]] = {}
    for row in tallies:
        counts = per_rule.setdefault(row["rule_code"], [0] * len(weeks))
        for i, count in enumerate(row["weeks"]):
            counts[i] += count
    busiest = sorted(per_rule, key=lambda rule: (-sum(per_rule[rule]), rule))
    series = {rule: per_rule[rule] for rule in busiest[:TOP_RULES]}
    if busiest[TOP_RULES:]:
        series["other rules"] = [sum(per_rule[rule][i] for rule in busiest[TOP_RULES:]) for i in range(len(weeks))]
    labels = _week_labels(weeks)
    return Chart("alerts-per-rule", "Alerts per rule per week (90 days)", "bar", labels, series, stacked=True,
                 columns=["week of", *series, "total"],
                 rows=[[label, *(values[i] for values in series.values()), sum(values[i] for values in series.values())]
                       for i, label in enumerate(labels)],
                 note=f"The {TOP_RULES} busiest rules; the others are summed." if busiest[TOP_RULES:] else "")


def dispositions_per_rule(scope, tallies: list[dict] | None = None) -> Chart:
    """Closed alerts of the window by rule and disposition; the false-positive rate first (the rules
    worth tuning), each rule linked to its page, where its backtest runs."""
    tallies = alert_tallies(scope) if tallies is None else tallies
    mix: dict[str, dict[str, int]] = {}
    for row in tallies:
        if row["status"] == AlertStatus.CLOSED:
            rule = mix.setdefault(row["rule_code"], {})
            rule[row["disposition"] or "none"] = rule.get(row["disposition"] or "none", 0) + sum(row["weeks"])

    def fp_rate(rule):
        return mix[rule].get(Disposition.FALSE_POSITIVE, 0) / (sum(mix[rule].values()) or 1)

    rules = sorted(mix, key=lambda rule: (-fp_rate(rule), -sum(mix[rule].values()), rule))[:TOP_RULES * 2]
    dispositions = [Disposition.FALSE_POSITIVE, Disposition.INCONCLUSIVE, Disposition.TRUE_POSITIVE]
    series = {disposition.label: [mix[rule].get(disposition.value, 0) for rule in rules] for disposition in dispositions}
    table = []
    for rule in rules:
        backtest = reverse("admin:monitoring_rulesetting_rule", args=[scope.organization.pk, rule])
        table.append([{"text": rule, "url": backtest}, *(mix[rule].get(d.value, 0) for d in dispositions), sum(mix[rule].values()),
                      f"{fp_rate(rule):.0%}"])
    return Chart("dispositions", "Disposition mix per rule, false-positive rate first (closed alerts, 90 days)", "bar", rules, series,
                 stacked=True, columns=["rule (its page runs the backtest)", *series, "closed", "false-positive rate"], rows=table)


def case_throughput(scope) -> Chart:
    """Cases opened and closed per week over the window."""
    cases = Case.objects.filter(organization=scope.organization, mode=scope.mode)
    weeks = _weeks(scope.now)
    none = [0] * len(weeks)
    series = {"opened": _per_week(cases, "created_at", weeks).get((), none),
              "closed": _per_week(cases.filter(status=CaseStatus.CLOSED), "closed_at", weeks).get((), none)}
    labels = _week_labels(weeks)
    return Chart("case-throughput", "Cases opened and closed per week (90 days)", "line", labels, series,
                 columns=["week of", "opened", "closed"],
                 rows=[[label, series["opened"][i], series["closed"][i]] for i, label in enumerate(labels)])


def case_ageing(scope) -> Chart:
    """Open cases by how long they have been open (from when the case was opened)."""
    open_cases = Case.objects.filter(organization=scope.organization, mode=scope.mode).exclude(status=CaseStatus.CLOSED)
    buckets, lower = {}, None
    for i, (days, _label) in enumerate(AGE_BUCKETS):
        bounds = {**({"created_at__lte": scope.now - timedelta(days=lower)} if lower is not None else {}),
                  **({"created_at__gt": scope.now - timedelta(days=days)} if days is not None else {})}
        buckets[f"b{i}"] = Count("id", filter=Q(**bounds))
        lower = days
    counted = open_cases.aggregate(**buckets)
    counts = [counted[f"b{i}"] for i in range(len(AGE_BUCKETS))]
    labels = [label for _days, label in AGE_BUCKETS]
    return Chart("case-ageing", "Open cases by age", "bar", labels, {"open cases": counts}, columns=["open for", "cases"],
                 rows=[[label, count] for label, count in zip(labels, counts, strict=True)])


def sar_filings_per_month(scope) -> Chart | None:
    """SARs (and STRs, SMRs) filed per month over a year; None below SAR_ROLE."""
    if not scope.sar_cleared:
        return None
    latest = scope.now.year * 12 + scope.now.month - 1
    months = [date(n // 12, n % 12 + 1, 1) for n in range(latest - SAR_MONTHS + 1, latest + 1)]
    first = months[0]
    counts = dict.fromkeys(months, 0)
    for month_start, count in (FilingRecord.objects.filter(organization=scope.organization, mode=scope.mode, kind__in=SAR_KINDS,
                                                           filing_date__gte=first)
                               .annotate(month=TruncMonth("filing_date")).values_list("month").annotate(n=Count("id")).order_by()):
        counts[month_start] = counts.get(month_start, 0) + count
    labels = [month.strftime("%Y-%m") for month in months]
    values = [counts[month] for month in months]
    return Chart("sar-filings", "Suspicious-activity reports filed per month", "bar", labels, {"filed": values},
                 columns=["month", "reports filed"], rows=[[label, value] for label, value in zip(labels, values, strict=True)])


def charts(scope) -> list[Chart]:
    tallies = alert_tallies(scope)
    built = [alerts_per_rule_per_week(scope, tallies), dispositions_per_rule(scope, tallies), case_throughput(scope), case_ageing(scope),
             sar_filings_per_month(scope)]
    return [chart for chart in built if chart is not None]
