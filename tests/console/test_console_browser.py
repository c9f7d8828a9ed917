"""The console's access and dashboard in a real browser (headless Debian Chromium, as
tests/admin/test_console_browser.py drives it), at 1,400 x 1,000: an invited l2_investigator (no staff
flag) signs in with their e-mail and password and reads counts that are the database's, with the
charts drawn by the app's own Chart.js and their tables beside them; an l1_analyst sees no SAR
information and no System group; a removed member is sent back to the sign-in page and refused.
Screenshots: /tmp/console-a-*.png."""

import pytest
from django.utils import timezone

from conftest import PASSWORD
from console.views import chart_library_installed
from filings.models import Case
from monitoring.models import Alert
from organizations.services import member_remove
from tests.admin.test_console_browser import CHROMEDRIVER, CHROMIUM, submitted
from tests.console.conftest import org_admin

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="chromium and chromium-driver are not installed (make system-deps)"),
]
OPEN_ALERTS = ["open", "in_review"]
OPEN_CASES = ["open", "investigating", "under_review", "escalated", "determination"]
SEVERITIES = ("critical", "high", "medium", "low")


def sign_in(browser, live_server, user):
    from selenium.webdriver.common.by import By

    browser.get(f"{live_server.url}/admin/login/")
    browser.find_element(By.NAME, "username").send_keys(user.email)
    browser.find_element(By.NAME, "password").send_keys(PASSWORD)
    submitted(browser, browser.find_element(By.CSS_SELECTOR, "input[type=submit]"), until=lambda d: True)


def tallies(browser, panel: str) -> dict[str, int]:
    from selenium.webdriver.common.by import By

    return {link.find_element(By.CLASS_NAME, "label").text: int(link.find_element(By.CLASS_NAME, "count").text)
            for link in browser.find_elements(By.CSS_SELECTOR, f"#{panel} ul.tallies a")}


def screenshot(browser, name: str, *, full: bool = False) -> None:
    if full:
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(1400, height)
    browser.save_screenshot(f"/tmp/console-a-{name}.png")
    if full:
        browser.set_window_size(1400, 1000)


def test_an_invited_investigator_reads_the_dashboard(browser, live_server, org, invited, populate):
    from selenium.webdriver.common.by import By

    investigator = invited(org, "l2_investigator")
    populate(org, "live", alerts=400, cases=40, member=investigator)
    sign_in(browser, live_server, investigator)
    assert browser.title == "Investigations and administration | Compliance console", browser.title

    alerts = Alert.objects.filter(organization=org, mode="live", status__in=OPEN_ALERTS)
    assert tallies(browser, "panel-alert-queue") == {s.title(): alerts.filter(severity=s).count() for s in SEVERITIES}
    cases = Case.objects.filter(organization=org, mode="live", status__in=OPEN_CASES)
    assert tallies(browser, "panel-case-queue") == {p.title(): cases.filter(priority=p).count() for p in SEVERITIES}
    mine = cases.filter(assigned_to=investigator)
    assert tallies(browser, "panel-my-work")["My open cases"] == mine.count() > 0
    now = timezone.now()
    overdue = tallies(browser, "panel-overdue")
    assert overdue == {"Overdue alerts": alerts.filter(sla_due_at__lt=now).count(),
                       "Overdue cases": cases.filter(sla_due_at__lt=now).count()}
    assert overdue["Overdue alerts"] > 0
    assert browser.find_elements(By.ID, "panel-sar-deadlines") and browser.find_elements(By.ID, "panel-314a")

    # Every chart is drawn (the app serves Chart.js itself, once scripts/npm-deps console installed it) and has its table.
    keys = ["alerts-per-rule", "dispositions", "case-throughput", "case-ageing", "sar-filings"]
    drawn = chart_library_installed()
    for key in keys:
        assert browser.execute_script(f"return !!window.Chart && !!Chart.getChart(document.getElementById('canvas-{key}'))") is drawn, key
        assert browser.find_elements(By.CSS_SELECTOR, f"#chart-{key} .chart-table tbody tr"), key
    captions = browser.find_elements(By.CSS_SELECTOR, "#content-related .module caption")
    groups = [caption.get_attribute("textContent").strip() for caption in captions]
    assert groups == ["Work queues", "Customers", "Reports and filings", "Information sharing", "Configuration"], groups
    screenshot(browser, "dashboard-l2")
    screenshot(browser, "dashboard-l2-full", full=True)

    # A count opens the list of as many records.
    critical = tallies(browser, "panel-alert-queue")["Critical"]
    link = browser.find_element(By.CSS_SELECTOR, "#panel-alert-queue a.sev-critical")
    submitted(browser, link, until=lambda d: "/monitoring/alert/" in d.current_url)
    assert f"{critical} alert" in browser.find_element(By.CSS_SELECTOR, ".paginator").text
    rows = browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")
    assert rows and all("critical" in row.text for row in rows)


def test_an_l1_analyst_sees_no_sar_information_and_no_system_group(browser, live_server, org, invited, populate):
    from selenium.webdriver.common.by import By

    analyst = invited(org, "l1_analyst")
    populate(org, "live", alerts=200, cases=20, member=analyst)
    sign_in(browser, live_server, analyst)
    page = browser.find_element(By.TAG_NAME, "body").text
    assert "Open alerts by severity" in page
    for secret in ("SAR", "Suspicious-activity", "314(a) responses due", "System", "Reports and filings"):
        assert secret not in page, secret
    assert not browser.find_elements(By.ID, "panel-sar-deadlines") and not browser.find_elements(By.ID, "chart-sar-filings")
    screenshot(browser, "dashboard-l1")
    browser.get(f"{live_server.url}/admin/monitoring/alert/")  # the sidebar of every other page: the same groups
    sidebar = browser.find_element(By.ID, "nav-sidebar").get_attribute("textContent")
    assert "Work queues" in sidebar and "System" not in sidebar and "Audit log" not in sidebar


def test_a_removed_member_cannot_sign_in(browser, live_server, org, invited):
    from selenium.webdriver.common.by import By

    member = invited(org, "l2_investigator")
    sign_in(browser, live_server, member)
    assert browser.find_elements(By.CLASS_NAME, "console-dashboard")
    member_remove(principal=org_admin(org), user_id=member.pk)
    browser.get(f"{live_server.url}/admin/")
    assert "/admin/login/" in browser.current_url  # the open session no longer opens the console
    sign_in(browser, live_server, member)
    assert "/admin/login/" in browser.current_url
    error = browser.find_element(By.CSS_SELECTOR, ".errornote").text
    assert error == "Please enter the e-mail address and password of a member of an organization.", error
    screenshot(browser, "login-refused")
