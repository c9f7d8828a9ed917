"""The dashboard's charts, as data (console.views renders each as a chart and, beside it, its table):
one organization in one mode (console.dashboard.Scope). Each selector returns a `Chart`: labels (the
x axis), named series of numbers, and the rows of its accessible table."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Count
from django.db.models.functions import TruncMonth, TruncWeek
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

    def as_json(self) -> dict:
        return {"key": self.key, "title": self.title, "kind": self.kind, "labels": self.labels, "series": self.series,
                "stacked": self.stacked}


def _weeks(now: datetime) -> list[date]:
    """The Mondays of the weeks in the window, oldest first."""
    last = (now - timedelta(days=now.weekday())).date()
    first = (now - WINDOW - timedelta(days=(now - WINDOW).weekday())).date()
    return [first + timedelta(weeks=n) for n in range((last - first).days // 7 + 1)]


def _day(value) -> date:
    return value.date() if isinstance(value, datetime) else value


def alerts_per_rule_per_week(scope) -> Chart:
    since = scope.now - WINDOW
    rows = (scope_alerts(scope).filter(created_at__gte=since).annotate(week=TruncWeek("created_at"))
            .values_list("rule_code", "week").annotate(n=Count("id")).order_by())
    weeks = _weeks(scope.now)
    index = {week: position for position, week in enumerate(weeks)}
    per_rule: dict[str, list[int]] = {}
    for rule, week, count in rows:
        per_rule.setdefault(rule, [0] * len(weeks))[index[_day(week)]] += count
    busiest = sorted(per_rule, key=lambda rule: (-sum(per_rule[rule]), rule))
    series = {rule: per_rule[rule] for rule in busiest[:TOP_RULES]}
    if busiest[TOP_RULES:]:
        series["other rules"] = [sum(per_rule[rule][i] for rule in busiest[TOP_RULES:]) for i in range(len(weeks))]
    labels = [week.isoformat() for week in weeks]
    return Chart("alerts-per-rule", "Alerts per rule per week (90 days)", "bar", labels, series, stacked=True,
                 columns=["week of", *series, "total"],
                 rows=[[label, *(values[i] for values in series.values()), sum(values[i] for values in series.values())]
                       for i, label in enumerate(labels)],
                 note=f"The {TOP_RULES} busiest rules; the others are summed." if busiest[TOP_RULES:] else "")


def dispositions_per_rule(scope) -> Chart:
    """Closed alerts of the window by rule and disposition; the false-positive rate first (the rules
    worth tuning), each rule linked to its page, where its backtest runs."""
    rows = (scope_alerts(scope).filter(status=AlertStatus.CLOSED, created_at__gte=scope.now - WINDOW)
            .values_list("rule_code", "disposition").annotate(n=Count("id")).order_by())
    mix: dict[str, dict[str, int]] = {}
    for rule, disposition, count in rows:
        mix.setdefault(rule, {})[disposition or "none"] = count
    def fp_rate(rule):
        return mix[rule].get(Disposition.FALSE_POSITIVE, 0) / sum(mix[rule].values())
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
    since = scope.now - WINDOW
    weeks = _weeks(scope.now)
    index = {week: position for position, week in enumerate(weeks)}
    series = {"opened": [0] * len(weeks), "closed": [0] * len(weeks)}
    for name, field_name, chosen in (("opened", "created_at", cases), ("closed", "closed_at", cases.filter(status=CaseStatus.CLOSED))):
        for week, count in (chosen.filter(**{f"{field_name}__gte": since}).annotate(week=TruncWeek(field_name))
                            .values_list("week").annotate(n=Count("id")).order_by()):
            series[name][index[_day(week)]] += count
    labels = [week.isoformat() for week in weeks]
    return Chart("case-throughput", "Cases opened and closed per week (90 days)", "line", labels, series,
                 columns=["week of", "opened", "closed"],
                 rows=[[label, series["opened"][i], series["closed"][i]] for i, label in enumerate(labels)])


def case_ageing(scope) -> Chart:
    """Open cases by how long they have been open."""
    open_cases = Case.objects.filter(organization=scope.organization, mode=scope.mode).exclude(status=CaseStatus.CLOSED)
    counts, lower = [], None
    for days, _label in AGE_BUCKETS:
        bucket = open_cases
        if lower is not None:
            bucket = bucket.filter(created_at__lte=scope.now - timedelta(days=lower))
        if days is not None:
            bucket = bucket.filter(created_at__gt=scope.now - timedelta(days=days))
        counts.append(bucket.count())
        lower = days
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
        counts[_day(month_start)] = counts.get(_day(month_start), 0) + count
    labels = [month.strftime("%Y-%m") for month in months]
    values = [counts[month] for month in months]
    return Chart("sar-filings", "Suspicious-activity reports filed per month", "bar", labels, {"filed": values},
                 columns=["month", "reports filed"], rows=[[label, value] for label, value in zip(labels, values, strict=True)])


def scope_alerts(scope):
    return Alert.objects.filter(organization=scope.organization, mode=scope.mode)


def charts(scope) -> list[Chart]:
    built = [alerts_per_rule_per_week(scope), dispositions_per_rule(scope), case_throughput(scope), case_ageing(scope),
             sar_filings_per_month(scope)]
    return [chart for chart in built if chart is not None]
