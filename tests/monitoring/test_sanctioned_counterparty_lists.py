# ruff: noqa: F811  (the tests take the imported fixtures client and entity by name)
"""Rule 2 (sanctioned_counterparty) reads the digital addresses of the loaded lists of category
`sanctions` that the organization screens against: not a PEP dataset's wallets, not a sanctions list
the organization turned off. The small lists are loaded inside the test's transaction."""

import pytest

from monitoring.configuration.selectors import lists_summary, org_lists
from monitoring.engine.lists import batch_lists
from monitoring.models import Alert
from onboarding.models import ScreeningListSetting
from onboarding.models.sanctions import ListCategory
from onboarding.sanctions.loader import sanctions_list_load
from onboarding.sanctions.records import ParsedDigitalAddress, ParsedEntry, ParsedList, ParsedName, ParseReport
from onboarding.selectors import screening_sources_forget
from tests.monitoring.api_fixtures import EVM, client, entity  # noqa: F401  (fixtures, used by name)

pytestmark = pytest.mark.django_db

ON = "0x" + "a1" * 20  # on a sanctions list the organization screens against
OFF = "0x" + "b2" * 20  # on a sanctions list it turned off
PEP = "0x" + "c3" * 20  # on a PEP dataset it screens against
SOURCES = {"os_test_sanctions_on": ON, "os_test_sanctions_off": OFF, "os_test_peps": PEP}


def load(source: str, address: str, category: str) -> None:
    name = f"Person {source}"
    entry = ParsedEntry(uid=f"{source}-1", kind="individual", primary_name=name, names=[ParsedName(name, "primary")],
                        digital_addresses=[ParsedDigitalAddress("ETH", address, address)])
    parsed = ParsedList(source=source, content_hash=f"{source}-test", entries=[entry], report=ParseReport(),
                        source_files=[f"{source}.test"], version="test-1")
    sanctions_list_load(parsed, category=category, allow_shrink=True)


@pytest.fixture
def lists(org):
    load("os_test_sanctions_on", ON, ListCategory.SANCTIONS)
    load("os_test_sanctions_off", OFF, ListCategory.SANCTIONS)
    load("os_test_peps", PEP, ListCategory.PEP)
    ScreeningListSetting.objects.bulk_create([
        ScreeningListSetting(organization=org, source="os_test_sanctions_on", enabled=True),
        ScreeningListSetting(organization=org, source="os_test_sanctions_off", enabled=False),
        ScreeningListSetting(organization=org, source="os_test_peps", enabled=True),
    ])
    screening_sources_forget(org)
    yield
    screening_sources_forget(org)


def send(client, i: int, to: str) -> list[str]:
    """A transfer from the customer's wallet to `to`, monitored; the rules that alerted on it."""
    response = client.post("/v1/monitoring/transfers", {
        "from_address": EVM, "to_address": to, "amount": "50", "asset": "USDC", "chain_id": 1,
        "timestamp": f"2026-03-01T1{i}:00:00Z", "tx_hash": f"0x{i}"}, format="json")
    assert response.status_code == 200, response.content
    return list(Alert.objects.filter(transactions__id=response.json()["id"]).values_list("rule_code", flat=True))


def test_only_the_enabled_sanctions_lists_addresses_raise_rule_2(client, org, entity, lists):
    assert "sanctioned_counterparty" not in send(client, 1, PEP)  # a PEP's wallet is no sanctioned counterparty
    assert "sanctioned_counterparty" not in send(client, 2, OFF)  # the organization does not screen against that list
    assert "sanctioned_counterparty" in send(client, 3, ON)
    alert = Alert.objects.get(rule_code="sanctioned_counterparty")
    assert alert.severity == "critical"


def test_the_engine_reads_agree_and_the_summary_counts_the_same_lists(org, other_org, lists):
    batch, full = batch_lists(org, set(SOURCES.values())), org_lists(org)
    for lists_read in (batch, full):
        assert lists_read.sanctions_source(1, ON) == "os_test_sanctions_on"
        assert lists_read.sanctions_source(1, OFF) is None and lists_read.sanctions_source(1, PEP) is None
    summary = lists_summary(org)
    assert summary["sanctions_addresses"]["by_list"].get("os_test_sanctions_on") == 1
    assert not {"os_test_sanctions_off", "os_test_peps"} & set(summary["sanctions_addresses"]["by_list"])
    # Another organization without settings screens the default lists only: none of these.
    assert batch_lists(other_org, set(SOURCES.values())).sanctions_source(1, ON) is None


def test_turning_a_list_on_or_off_reaches_the_next_batch(org, lists):
    assert batch_lists(org, {OFF}).sanctions_source(1, OFF) is None
    ScreeningListSetting.objects.filter(organization=org, source="os_test_sanctions_off").update(enabled=True)
    screening_sources_forget(org)  # as the service does (screening_list_set); other processes: within SOURCES_CACHE_SECONDS
    assert batch_lists(org, {OFF}).sanctions_source(1, OFF) == "os_test_sanctions_off"
    assert org_lists(org).sanctions_source(1, OFF) == "os_test_sanctions_off"
