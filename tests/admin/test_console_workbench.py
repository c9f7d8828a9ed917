# ruff: noqa: F811  (the test takes the imported fixture browser by name)
"""The console as a workbench, in headless Chromium (as tests/admin/test_console_browser.py): an
investigator works the queue from the keyboard, reads an alert's evidence table, disposes it, opens its
case (51 transfers, 25 a page), follows the counterparty graph to a customer, assigns the case, moves
it to determination and opens the SAR flow; axe-core finds no serious or critical violation on the
index, the queue, an alert, a case and an entity. Screenshots at 1,400 × 1,000: /tmp/console-b-*.png."""

import os
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from filings.models import Case
from monitoring.models import AddressTag, Alert, AssetPrice
from onboarding.models import Entity
from organizations.models import Membership
from tests.admin.test_console_browser import CHROMEDRIVER, CHROMIUM, PASSWORD, _stale, browser, submitted  # noqa: F401  (browser: a fixture)

AXE = Path(__file__).resolve().parents[1] / "browser" / "node_modules" / "axe-core" / "axe.min.js"
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="chromium and chromium-driver are not installed (make system-deps)"),
]
NOVA, ORION = "0x52908400098527886e0f7030069857d2e4169ee7", "0x" + "0c" * 20
LISTED, MIXER = "0x" + "dd" * 20, "0x" + "a1" * 20
SENDERS = [ORION, MIXER, *("0x" + f"{n:02x}" * 20 for n in range(0x10, 0x18))]  # ten senders, five transfers each


@pytest.fixture
def investigator(org, make_user):
    """An ordinary l2_investigator member of the organization: no staff flag, no permission of its own (the
    console grants by membership and role)."""
    user = make_user("investigator@acme.example", password=PASSWORD)
    assert not user.is_staff and not user.user_permissions.exists()
    Membership.objects.create(organization=org, user=user, role="l2_investigator")
    return user


@pytest.fixture
def workload(api, org, key):
    """Nova Traders receives 50 transfers of 100 USDC from ten senders within half an hour (one of them
    Orion Metals, a customer; one a mixer) and one of 500 from an address tagged as sanctioned: a
    critical alert, velocity and fan-in alerts, one case with 51 transfers."""
    client = api(key(org, role="admin", mode="live"))
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    AddressTag.objects.create(organization=org, address=LISTED, category="sanctions", source="test")
    AddressTag.objects.create(organization=org, address=MIXER, category="mixer", source="test")
    ids = {}
    for name, wallet in (("Nova Traders LLC", NOVA), ("Orion Metals Inc", ORION)):
        made = client.post("/v1/onboarding/entities", {"legal_name": name, "entity_type": "business", "jurisdiction": "US",
                                                       "wallets": [{"chain_id": 1, "address": wallet}]}, format="json")
        assert made.status_code == 201, made.json()
        ids[name] = made.json()["id"]
    start = timezone.now() - timedelta(hours=3)
    transfers = [{"chain_id": 1, "tx_hash": "0x" + f"{i + 1:064x}", "from_address": SENDERS[i % 10], "to_address": NOVA, "amount": "100",
                  "asset": "USDC", "timestamp": (start + timedelta(seconds=30 * i)).isoformat()} for i in range(50)]
    transfers.append({"chain_id": 1, "tx_hash": "0x" + "ff" * 32, "from_address": LISTED, "to_address": NOVA, "amount": "500",
                      "asset": "USDC", "timestamp": (start + timedelta(minutes=40)).isoformat()})
    sent = client.post("/v1/monitoring/transfers/batch", {"transactions": transfers}, format="json")
    assert sent.status_code == 200 and sent.json()["alerts_triggered"] >= 3, sent.json()
    return {"nova": Entity.objects.get(pk=ids["Nova Traders LLC"]), "orion": Entity.objects.get(pk=ids["Orion Metals Inc"])}


def sign_in(driver, server, user):
    from selenium.webdriver.common.by import By

    driver.get(f"{server.url}/admin/login/")
    driver.find_element(By.NAME, "username").send_keys(user.email)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    submitted(driver, driver.find_element(By.CSS_SELECTOR, "input[type=submit]"), until=lambda d: "Log in" not in d.title)


def navigated(driver, action, *, until):
    """Do `action` (a key press, a click on the graph), then wait for the page it leads to (as `submitted`)."""
    from selenium.webdriver.support.ui import WebDriverWait

    old = driver.find_element("tag name", "html")
    action()
    WebDriverWait(driver, 15).until(lambda driver: _stale(old) and until(driver))


def graph_ready(driver):
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 15).until(lambda d: d.execute_script(
        "var s = document.querySelector('.counterparty-graph'); return s && ['ready', 'failed'].includes(s.dataset.state)"))
    return driver.execute_script("var s = document.querySelector('.counterparty-graph'); "
                                  "return [s.dataset.state, s.querySelector('.graph-cut').textContent, s.cy ? s.cy.nodes().length : 0]")


def screenshot(driver, name: str) -> int:
    """Save /tmp/console-b-<name>.png (the window, 1,400 × 1,000) and -full.png (the whole page at
    1,400 px), and answer the page's full height."""
    driver.save_screenshot(f"/tmp/console-b-{name}.png")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1400, height + 140)  # the window's own bars
    driver.save_screenshot(f"/tmp/console-b-{name}-full.png")
    driver.set_window_size(1400, 1000)
    return height


def in_view(driver, column: str) -> bool:
    """The list's column is inside the window and the list needs no horizontal scrollbar."""
    return driver.execute_script(
        "var th = document.querySelector('#result_list thead ' + arguments[0]), box = th.getBoundingClientRect(),"
        " list = document.querySelector('#changelist .results');"
        " return box.right <= window.innerWidth && list.scrollWidth <= list.clientWidth", column)


def serious_violations(driver) -> list[str]:
    """axe-core's serious and critical violations on the page shown (axe injected from tests/browser)."""
    if not AXE.exists():
        if os.environ.get("CI"):
            pytest.fail("axe-core is not installed (scripts/npm-deps tests/browser)")
        pytest.skip("axe-core is not installed (scripts/npm-deps tests/browser)")
    driver.execute_script(AXE.read_text())
    found = driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(function (r) { done(r.violations.map(function (v) {"
        "  return [v.impact, v.id, v.help, v.nodes.slice(0, 3).map(function (n) { return n.target.join(' '); }).join(' | ')]; })); });")
    return [" · ".join(item) for item in found if item[0] in ("serious", "critical")]


def test_a_days_work(browser, live_server, investigator, workload):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    browser.set_script_timeout(30)
    # Every alert of the workload is past its SLA, the critical one the longest.
    critical = Alert.objects.get(entity=workload["nova"], rule_code="sanctioned_counterparty")
    Alert.objects.filter(entity=workload["nova"]).update(sla_due_at=timezone.now() - timedelta(hours=1))
    Alert.objects.filter(pk=critical.pk).update(sla_due_at=timezone.now() - timedelta(hours=5))
    sign_in(browser, live_server, investigator)
    assert not serious_violations(browser), serious_violations(browser)  # the index
    screenshot(browser, "index")

    # The dashboard: its counts are the database's, and the most urgent overdue alert opens from it.
    open_alerts = Alert.objects.filter(organization=workload["nova"].organization, mode="live").exclude(status="closed")
    severities = {tally.find_element(By.CSS_SELECTOR, ".label").text.lower(): int(tally.find_element(By.CSS_SELECTOR, ".count").text)
                  for tally in browser.find_elements(By.CSS_SELECTOR, "#panel-alert-queue .tallies a")}
    assert severities == {level: open_alerts.filter(severity=level).count() for level in severities} and severities["critical"] == 1
    overdue = browser.find_elements(By.CSS_SELECTOR, "#panel-overdue tbody a")
    assert len(overdue) == min(5, open_alerts.count()) and "Sanctioned counterparty" in overdue[0].text, [a.text for a in overdue]
    navigated(browser, overdue[0].click, until=lambda d: f"/monitoring/alert/{critical.pk}/" in d.current_url)

    # The same alert from the queue: the most severe first; j moves the visible focus to it, Enter opens it.
    browser.get(f"{live_server.url}/admin/monitoring/alert/")
    screenshot(browser, "queue")
    assert not serious_violations(browser), serious_violations(browser)
    assert in_view(browser, "th.column-sla")  # the SLA column is in view at 1,400 px, no horizontal scrolling
    browser.find_element(By.TAG_NAME, "body").send_keys("j")
    focused = browser.find_element(By.CSS_SELECTOR, "#result_list tbody tr.kb-focus")
    assert "critical" in focused.text and "Sanctioned counterparty" in focused.text, focused.text
    assert browser.execute_script("return document.activeElement === arguments[0]", focused)
    assert browser.execute_script("return getComputedStyle(arguments[0]).outlineStyle", focused) == "solid"  # the focus is visible
    navigated(browser, lambda: focused.send_keys(Keys.ENTER), until=lambda d: str(critical.pk) in d.current_url)

    # The alert's evidence is a table, not JSON.
    evidence = browser.find_element(By.CSS_SELECTOR, ".evidence-table").text
    assert "counterparty" in evidence and "{" not in evidence, evidence
    assert graph_ready(browser)[0] == "ready"
    screenshot(browser, "alert")
    assert not serious_violations(browser), serious_violations(browser)

    # Dispose it, then to its case.
    dispose = browser.find_element(By.CSS_SELECTOR, ".object-tools a[href$='/dispose/']")
    submitted(browser, dispose, until=lambda d: "/dispose/" in d.current_url)
    Select(browser.find_element(By.NAME, "disposition")).select_by_value("true_positive")
    browser.find_element(By.NAME, "notes").send_keys("Funds from an OFAC-listed address: escalated.")
    submitted(browser, browser.find_element(By.NAME, "apply"), until=lambda d: d.find_elements(By.CSS_SELECTOR, "ul.messagelist"))
    critical.refresh_from_db()
    assert (critical.status, critical.disposition, critical.disposed_by) == ("closed", "true_positive", investigator)
    case = Case.objects.get(alert_links__alert=critical)
    submitted(browser, browser.find_element(By.LINK_TEXT, str(case)), until=lambda d: "/filings/case/" in d.current_url)

    # The case page: 51 transfers, 25 a page, addresses shortened with the full one on hover.
    assert "Transactions (51) · page 1 of 3" in browser.find_element(By.ID, "transactions-title").text
    rows = browser.find_elements(By.CSS_SELECTOR, "#transactions tbody tr")
    assert len(rows) == 25
    sender, receiver = rows[0].find_elements(By.CSS_SELECTOR, ".address code")[:2]
    assert (sender.get_attribute("title"), sender.text) == (ORION, "0x0c0c…0c0c")
    assert (receiver.get_attribute("title"), receiver.text) == (NOVA, "0x5290…9ee7")
    assert rows[0].find_element(By.CSS_SELECTOR, ".copy-address").get_attribute("data-copy") == ORION
    state, cut, drawn = graph_ready(browser)
    assert state == "ready" and "51 highlighted transfers" in cut and drawn >= 11, (state, cut, drawn)
    height = screenshot(browser, "case")
    assert not serious_violations(browser), serious_violations(browser)
    browser.execute_script("window.scrollTo(0, 0)")
    print(f"case page height at 1,400 px: {height}")

    # Follow the graph: a click on Orion's node opens Orion's page.
    canvas = browser.find_element(By.CSS_SELECTOR, ".graph-canvas")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    x, y, width, high = browser.execute_script(
        "var s = document.querySelector('.counterparty-graph'), p = s.cy.getElementById(arguments[0]).renderedPosition(),"
        " r = s.querySelector('.graph-canvas').getBoundingClientRect(); return [p.x, p.y, r.width, r.height]",
        f"entity:{workload['orion'].pk}")
    click = ActionChains(browser).move_to_element_with_offset(canvas, int(x - width / 2), int(y - high / 2)).click()
    navigated(browser, click.perform, until=lambda d: str(workload["orion"].pk) in d.current_url)
    assert "Orion Metals Inc" in browser.find_element(By.ID, "content").text
    assert graph_ready(browser)[0] == "ready"
    screenshot(browser, "entity")
    assert not serious_violations(browser), serious_violations(browser)

    # Back to the case: assign it, move it on to determination, open the SAR flow.
    browser.get(f"{live_server.url}/admin/filings/case/{case.pk}/change/")
    Select(browser.find_element(By.NAME, "assignee")).select_by_value(str(investigator.pk))
    submitted(browser, browser.find_element(By.CSS_SELECTOR, "input[value=Assign]"), until=lambda d: "Assigned." in d.page_source)
    for status in ("investigating", "determination"):
        Select(browser.find_element(By.NAME, "status")).select_by_value(status)
        submitted(browser, browser.find_element(By.CSS_SELECTOR, "input[value='Change status']"),
                  until=lambda d, status=status: f"Moved to {status}." in d.page_source)
    case.refresh_from_db()
    assert (case.assigned_to, case.status) == (investigator, "determination")
    report = browser.find_element(By.PARTIAL_LINK_TEXT, "Suspicious-activity report")
    submitted(browser, report, until=lambda d: "/report/" in d.current_url)
    assert "Nova Traders LLC" in browser.title and browser.find_element(By.NAME, "form_data")
    screenshot(browser, "sar")

    # The cases list at 1,400 px: the SLA and filing columns in view; j and Enter open the case.
    browser.get(f"{live_server.url}/admin/filings/case/")
    screenshot(browser, "cases")
    assert in_view(browser, "th.column-sla") and in_view(browser, "th.column-filing_status_shown")
    assert not serious_violations(browser), serious_violations(browser)
    browser.find_element(By.TAG_NAME, "body").send_keys("j")
    row = browser.find_element(By.CSS_SELECTOR, "#result_list tbody tr.kb-focus")
    assert case.reference in row.text and "Determination" in row.text
    navigated(browser, lambda: row.send_keys(Keys.ENTER), until=lambda d: str(case.pk) in d.current_url)
