"""The investigator console in a real browser: headless Chromium (Debian's chromium and
chromium-driver, scripts/debian-packages.txt) against the app served on loopback. An investigator
signs in, finds the alert in the queue, reads it, is refused a disposition without a reason, closes
it with one, and reads the entity page; what the pages show and what is stored are both checked."""

import shutil

import pytest

from monitoring.models import Alert, AssetPrice
from organizations.models import Membership

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="chromium and chromium-driver are not installed (make system-deps)"),
]
EVM = "0x52908400098527886e0f7030069857d2e4169ee7"
PASSWORD = "Console-check 2026!"


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(5)
    yield driver
    driver.quit()


@pytest.fixture
def investigator(org, make_user):
    user = make_user("investigator@acme.example", password=PASSWORD)
    user.is_staff = user.is_superuser = True
    user.save()
    Membership.objects.create(organization=org, user=user, role="l2_investigator")
    return user


@pytest.fixture
def alert(api, org, key):
    client = api(key(org, role="admin"))
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    entity = client.post("/v1/onboarding/entities", {"legal_name": "Nova Traders LLC", "entity_type": "business", "jurisdiction": "US",
                                                     "wallets": [{"chain_id": 1, "address": EVM}]}, format="json")
    assert entity.status_code == 201, entity.json()
    sent = client.post("/v1/monitoring/transfers", {"chain_id": 1, "from_address": "0x" + "be" * 20, "to_address": EVM,
                                                    "amount": "25000", "asset": "USDC", "timestamp": "2026-11-01T10:00:00Z"}, format="json")
    assert sent.status_code == 200 and sent.json()["alerts_triggered"] >= 1, sent.json()
    return Alert.objects.get(rule_code="large_transfer")


def submitted(browser, button, *, until):
    """Click a button that submits a form, then wait until the page that answers satisfies `until`."""
    from selenium.webdriver.support.ui import WebDriverWait

    old = browser.find_element("tag name", "html")
    button.click()
    WebDriverWait(browser, 15).until(lambda driver: _stale(old) and until(driver))


def _stale(element) -> bool:
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        # Chromium 156 sometimes reports the old page's node this way instead of as stale.
        if "does not belong to the document" in str(error.msg) or "No node with given id" in str(error.msg):
            return True
        raise
    return False


def test_an_investigator_closes_an_alert_in_the_console(browser, live_server, investigator, alert):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(f"{live_server.url}/admin/login/")
    browser.find_element(By.NAME, "username").send_keys(investigator.email)
    browser.find_element(By.NAME, "password").send_keys(PASSWORD)
    submitted(browser, browser.find_element(By.CSS_SELECTOR, "input[type=submit]"), until=lambda d: "Log in" not in d.title)
    assert browser.title == "Investigations and administration | Compliance console", browser.title  # signed in: the index

    # The queue lists the alert; its row opens the alert's page.
    browser.get(f"{live_server.url}/admin/monitoring/alert/")
    row = next(r for r in browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr") if "Nova Traders LLC" in r.text
               and "Large transfer" in r.text)
    submitted(browser, row.find_element(By.CSS_SELECTOR, "th a, td a"), until=lambda d: str(alert.pk) in d.current_url)
    page = browser.find_element(By.ID, "content").text
    assert "Nova Traders LLC" in page and "25000" in page.replace(",", "")

    # A disposition without a reason: the browser itself keeps the form (the notes are required), and
    # nothing is stored; the server's own refusal is tested in tests/monitoring/test_alerts_admin.py.
    dispose_link = browser.find_element(By.CSS_SELECTOR, ".object-tools a[href$='/dispose/']")
    submitted(browser, dispose_link, until=lambda d: "/dispose/" in d.current_url)
    Select(browser.find_element(By.NAME, "disposition")).select_by_value("false_positive")
    notes = browser.find_element(By.NAME, "notes")
    browser.find_element(By.NAME, "apply").click()
    assert browser.execute_script("return arguments[0].validity.valueMissing", notes) is True
    assert "/dispose/" in browser.current_url
    alert.refresh_from_db()
    assert alert.status == "open"

    notes.send_keys("Known client: the invoice for this payment is on file.")
    submitted(browser, browser.find_element(By.NAME, "apply"), until=lambda d: d.find_elements(By.CSS_SELECTOR, "ul.messagelist"))
    assert "1 alert closed as false positive." in browser.find_element(By.CSS_SELECTOR, "ul.messagelist").text
    assert str(alert.pk) in browser.current_url
    alert.refresh_from_db()
    assert (alert.status, alert.disposition, alert.disposition_notes) == (
        "closed", "false_positive", "Known client: the invoice for this payment is on file.")
    assert alert.disposed_by == investigator and alert.disposed_at is not None

    # The entity page is read-only (no Save button) and links the entity's alerts, the closed one among them.
    entity_link = browser.find_element(By.PARTIAL_LINK_TEXT, "Nova Traders LLC")
    submitted(browser, entity_link, until=lambda d: "/onboarding/entity/" in d.current_url)
    still_open = Alert.objects.filter(entity_id=alert.entity_id).exclude(status="closed").count()
    assert f"{still_open} open alert(s), all alerts" in browser.find_element(By.ID, "content").text
    assert not browser.find_elements(By.NAME, "_save")
    submitted(browser, browser.find_element(By.PARTIAL_LINK_TEXT, "all alerts"), until=lambda d: "/monitoring/alert/" in d.current_url)
    rows = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")]
    assert len(rows) == Alert.objects.filter(entity_id=alert.entity_id).count()
    assert any("Large transfer" in row and "closed" in row.lower() for row in rows), rows
