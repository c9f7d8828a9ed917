"""The dashboard's selectors and page (console.dashboard, console.charts, console.views): every count
is the database's for the member's organization and mode, and the changelist each count links to
shows that many records; SAR deadlines, 314(a) work and the SAR chart are not read below
l2_investigator; another organization's work is never counted."""

from datetime import timedelta

import pytest
from django.utils import timezone

from console import charts, dashboard
from console.views import chart_library_installed
from filings.models import Case, CaseAlert, FilingRecord
from monitoring.models import Alert
from onboarding.models import Entity
from tests.console.conftest import signed_in

pytestmark = pytest.mark.django_db
OPEN_ALERTS, OPEN_CASES = ["open", "in_review"], ["open", "investigating", "under_review", "escalated", "determination"]
SEVERITIES = ("critical", "high", "medium", "low")


@pytest.fixture
def work(org, other_org, invited, populate):
    """Acme's live work and Globex's (which must never show), and Acme's l2 and l1 members."""
    l2 = invited(org, "l2_investigator")
    l1 = invited(org, "l1_analyst")
    populate(org, "live", alerts=600, cases=60, member=l2)
    populate(other_org, "live", alerts=300, cases=30, member=invited(other_org, "l2_investigator"), seed=5)
    populate(org, "test", alerts=50, cases=5, member=l2, seed=9)  # the other mode: not on the live dashboard
    return {"l2": l2, "l1": l1}


def scope_of(org, user, role, mode="live"):
    return dashboard.Scope(organization=org, mode=mode, user=user, role=role)


def test_the_queues_are_the_databases(org, work):
    scope = scope_of(org, work["l2"], "l2_investigator")
    alerts = Alert.objects.filter(organization=org, mode="live", status__in=OPEN_ALERTS)
    assert {t.label.lower(): t.count for t in dashboard.alert_queue(scope)} == {
        severity: alerts.filter(severity=severity).count() for severity in SEVERITIES}
    cases = Case.objects.filter(organization=org, mode="live", status__in=OPEN_CASES)
    assert [t.count for t in dashboard.case_queue(scope)] == [cases.filter(priority=p).count() for p in SEVERITIES]
    mine = cases.filter(assigned_to=work["l2"])
    assert [t.count for t in dashboard.my_work(scope)] == [
        mine.count(), CaseAlert.objects.filter(case__in=mine, alert__status__in=OPEN_ALERTS).count()]
    assert mine.count() > 0 and sum(t.count for t in dashboard.alert_queue(scope)) > 0
    overdue = dashboard.overdue(scope)
    late = alerts.filter(sla_due_at__lt=scope.now)
    assert [t.count for t in overdue["counts"]] == [late.count(), cases.filter(sla_due_at__lt=scope.now).count()]
    rank = ["critical", "high", "medium", "low"]
    expected = sorted(late, key=lambda a: (rank.index(a.severity), a.sla_due_at, a.pk))[:dashboard.OVERDUE_SHOWN]
    assert [a.pk for a in overdue["alerts"]] == [a.pk for a in expected]
    entities = Entity.objects.filter(organization=org, mode="live")
    assert [t.count for t in dashboard.entity_reviews(scope)] == [entities.filter(status="under_review").count(),
                                                                  entities.filter(status="pending").count()]


def test_each_count_links_to_a_list_of_as_many(org, work):
    console = signed_in(work["l2"])
    scope = scope_of(org, work["l2"], "l2_investigator")
    tallies = [*dashboard.my_work(scope), *dashboard.alert_queue(scope), *dashboard.case_queue(scope), *dashboard.overdue(scope)["counts"],
               *dashboard.entity_reviews(scope), *dashboard.fincen_314a_due(scope)["counts"]]
    for tally in tallies:
        page = console.get(tally.url)
        assert page.status_code == 200 and "?e=1" not in page.get("Location", ""), tally
        assert page.context["cl"].result_count == tally.count, (tally, page.context["cl"].result_count)


def test_sar_deadlines_are_the_cases_due_within_seven_days(org, work):
    now = timezone.now()
    soon = Case.objects.filter(organization=org, mode="live", status__in=OPEN_CASES).order_by("number")[:3]
    for days, case in zip((1, 6, 9), soon, strict=True):
        Case.objects.filter(pk=case.pk).update(report_due_at=now + timedelta(days=days))
    scope = scope_of(org, work["l2"], "l2_investigator")
    due = Case.objects.filter(organization=org, mode="live", status__in=OPEN_CASES, report_due_at__lte=scope.now + timedelta(days=7))
    shown = dashboard.sar_deadlines(scope)
    assert [c.pk for c in shown] == [c.pk for c in due.order_by("report_due_at", "number")[:dashboard.DEADLINES_SHOWN]]
    assert soon[0].pk in {c.pk for c in due} and soon[2].pk not in {c.pk for c in due}


def test_below_l2_investigator_no_sar_information_is_read(org, work):
    scope = scope_of(org, work["l1"], "l1_analyst")
    assert dashboard.sar_deadlines(scope) is None and dashboard.fincen_314a_due(scope) is None
    assert "sar-filings" not in [chart.key for chart in charts.charts(scope)]
    assert "sar-filings" in [chart.key for chart in charts.charts(scope_of(org, work["l2"], "l2_investigator"))]
    body = signed_in(work["l1"]).get("/admin/").content.decode()
    for secret in ("SAR", "Suspicious-activity", "314(a) responses due", "panel-314a", "panel-sar-deadlines", "chart-sar-filings",
                   "/admin/filings/filingrecord/",
                   '<span class="section">System</span>', '<span class="section">Reports and filings</span>'):
        assert secret not in body, secret
    assert "Open alerts by severity" in body and "chart-alerts-per-rule" in body


def test_the_charts_add_up_to_the_database(org, work):
    scope = scope_of(org, work["l2"], "l2_investigator")
    built = {chart.key: chart for chart in charts.charts(scope)}
    since = charts._weeks(scope.now)[0]
    alerts = Alert.objects.filter(organization=org, mode="live", created_at__gte=since)
    per_rule = built["alerts-per-rule"]
    assert sum(sum(values) for values in per_rule.series.values()) == alerts.count()
    assert sum(row[-1] for row in per_rule.rows) == alerts.count()
    mix = built["dispositions"]
    for row in mix.rows:
        closed = alerts.filter(rule_code=row[0]["text"], status="closed")
        false_positive = closed.filter(disposition="false_positive").count()
        assert row[1:5] == [false_positive, closed.filter(disposition="inconclusive").count(),
                            closed.filter(disposition="true_positive").count(), closed.count()]
        assert row[5] == f"{false_positive / closed.count():.0%}"
        assert row[0]["url"] == f"/admin/monitoring/rulesetting/{org.pk}/{row[0]['text']}/edit/"
    rates = [int(row[5].rstrip("%")) for row in mix.rows]
    assert rates == sorted(rates, reverse=True)  # the rules worth tuning first
    cases = Case.objects.filter(organization=org, mode="live")
    assert sum(built["case-throughput"].series["opened"]) == cases.filter(created_at__gte=since).count()
    assert sum(built["case-throughput"].series["closed"]) == cases.filter(status="closed", closed_at__gte=since).count()
    assert sum(built["case-ageing"].series["open cases"]) == cases.filter(status__in=OPEN_CASES).count()
    first_month = timezone.now().date().replace(day=1) - timedelta(days=330)
    filed = FilingRecord.objects.filter(organization=org, mode="live", kind="SAR", filing_date__gte=first_month.replace(day=1))
    assert sum(built["sar-filings"].series["filed"]) == filed.count() > 0


def test_the_backtest_link_opens_the_rules_page(org, work):
    console = signed_in(work["l2"])
    row = charts.dispositions_per_rule(scope_of(org, work["l2"], "l2_investigator")).rows[0]
    page = console.get(row[0]["url"])
    assert page.status_code == 200 and "backtest" in page.content.decode().lower()


def test_the_dashboard_page_shows_the_counts_and_one_table_per_chart(org, work):
    body = signed_in(work["l2"]).get("/admin/").content.decode()
    scope = scope_of(org, work["l2"], "l2_investigator")
    for tally in dashboard.alert_queue(scope):
        link = tally.url.replace("&", "&amp;")
        assert f'href="{link}" class="sev-{tally.label.lower()}"><span class="count">{tally.count}</span>' in body
    drawn = chart_library_installed()  # scripts/npm-deps console (make test installs it; a machine without node does not)
    for chart in charts.charts(scope):
        assert f'id="chart-{chart.key}"' in body and (f'id="canvas-{chart.key}"' in body) is drawn
    assert body.count('<div class="chart-table" tabindex="0"') == 5
    assert ('src="/static/console/lib/chart.js/chart.umd.min.js"' in body) is drawn  # served by the app itself
    assert '<span class="section">Reports and filings</span>' in body and '<span class="section">System</span>' not in body


def test_another_organization_is_not_offered(org, other_org, work):
    console = signed_in(work["l2"])
    page = console.get(f"/admin/?organization={other_org.pk}")
    assert page.context["dashboard"]["scope"].organization == org  # not a member of Globex: their own dashboard instead
    assert "Globex" not in page.content.decode()


def test_the_mode_is_chosen(org, work):
    console = signed_in(work["l2"])
    test = console.get("/admin/?mode=test").context["dashboard"]
    assert test["scope"].mode == "test"
    open_test = Alert.objects.filter(organization=org, mode="test", status__in=OPEN_ALERTS).count()
    assert sum(t.count for t in test["alert_queue"]) == open_test


def test_without_the_chart_library_the_tables_still_show(org, work, settings, tmp_path):
    """No node at `make run` (scripts/npm-deps console not run): no script, no canvas, a sentence, every table."""
    settings.STATICFILES_DIRS = []  # what config.settings leaves when console/node_modules/chart.js is missing
    settings.STATIC_ROOT = tmp_path  # nothing collected either
    body = signed_in(work["l2"]).get("/admin/").content.decode()
    assert "chart.umd.min.js" not in body and "<canvas" not in body and "console/charts.js" not in body
    assert "<code>scripts/npm-deps console</code>); their numbers are in the tables." in body
    assert body.count('<div class="chart-table" tabindex="0"') == 5 and "Alerts per rule per week (90 days)" in body


def test_the_sources_panel_shows_list_age_and_chain_lag(org, work):
    """Each loaded list's age (stale past 30 days) and, once a chain is enabled, its indexer's last block,
    its lag behind the head in blocks and seconds, and minutes since its last run; a disabled chain is not shown."""
    from compliance.models import Chain
    from monitoring.models import ChainCursor
    from onboarding.models import SanctionsList

    now = timezone.now()
    SanctionsList.objects.create(source="ofac_sdn", loaded_at=now - timedelta(days=40), checked_at=now - timedelta(days=40),
                                 published_at=now - timedelta(days=40), content_hash="0" * 64)
    Chain.objects.update(enabled=False)  # the seeded chains (compliance migrations)
    enabled = Chain.objects.create(chain_id=990001, name="Local", enabled=True)
    ChainCursor.objects.create(chain=enabled, last_block=1234, last_run_at=now - timedelta(minutes=7),
                               last_block_time=now - timedelta(minutes=8), head=1300, head_time=now - timedelta(minutes=7))
    ChainCursor.objects.create(chain=Chain.objects.create(chain_id=990002, name="Off", enabled=False), last_block=1)
    panel = signed_in(work["l2"]).get("/admin/").content.decode()
    panel = panel[panel.index('id="panel-sources"'):]
    panel = panel[:panel.index("</section>")]
    assert "OFAC Specially Designated Nationals" in panel and "40 days old (stale)" in panel
    assert "Local (990001)" in panel and "Off (990002)" not in panel
    assert "block 1234, 66 blocks (60 s) behind, 7 min ago" in panel  # to the head: the indexer follows it (docs/indexer.md)


def test_each_week_of_the_charts_is_the_databases(org, work):
    """Week by week (not only in sum): the days the database counts fall in the right week, an alert at a
    week's first microsecond in that week and one at the microsecond before in the week before."""
    scope = scope_of(org, work["l2"], "l2_investigator")
    weeks = charts._weeks(scope.now)
    entity = Entity.objects.filter(organization=org, mode="live").first()
    for n, at in enumerate([weeks[5], weeks[5] - timedelta(microseconds=1), weeks[0], weeks[-1] + timedelta(hours=23)]):
        Alert.objects.filter(pk=Alert.objects.create(
            organization=org, mode="live", entity=entity, rule_number=99, rule_code=f"edge_{n}", rule_name="Edge", severity="low",
            description="edge", status="closed", disposition="false_positive", first_triggered_at=at, last_triggered_at=at,
            sla_due_at=at).pk).update(created_at=at)
    built = {chart.key: chart for chart in charts.charts(scope)}
    alerts = Alert.objects.filter(organization=org, mode="live")
    cases = Case.objects.filter(organization=org, mode="live")
    for i, start in enumerate(weeks):
        bounds = {"created_at__gte": start, **({"created_at__lt": weeks[i + 1]} if i + 1 < len(weeks) else {})}
        assert built["alerts-per-rule"].rows[i][-1] == alerts.filter(**bounds).count(), start
        assert built["case-throughput"].series["opened"][i] == cases.filter(**bounds).count(), start
        closed = {"closed_at__gte": start, **({"closed_at__lt": weeks[i + 1]} if i + 1 < len(weeks) else {})}
        assert built["case-throughput"].series["closed"][i] == cases.filter(status="closed", **closed).count(), start
    placed = {row["rule_code"]: row["weeks"].index(1) for row in charts.alert_tallies(scope) if row["rule_code"].startswith("edge_")}
    assert placed == {"edge_0": 5, "edge_1": 4, "edge_2": 0, "edge_3": len(weeks) - 1}
