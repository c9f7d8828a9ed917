"""The readable alert and case pages (issue 28, item 5), as the server renders them: the evidence as a
table, transactions 25 a page with shortened addresses, repeated timeline steps collapsed, and only the
actions the case's state and the reader's role allow."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from filings.models import Case, CaseAlert, CaseEvent
from monitoring.alerts.evidence import evidence_table
from monitoring.models import Alert, Transaction
from monitoring.rules import get_rule
from onboarding.models import Entity

pytestmark = pytest.mark.django_db
WALLET = "0x52908400098527886e0f7030069857d2e4169ee7"


def defaults(code: str) -> dict:
    rule = get_rule(code)
    return rule.params_json(rule.effective_params({}))


class TestEvidenceTable:
    def test_a_count_is_held_against_the_minimum_of_the_window_the_hit_names(self):
        table = evidence_table({"parameters": defaults("high_velocity"), "measured": {"window_hours": 24, "count": 130}})
        assert table.headline == ["130 transfers within 24 h ≥ 100"]
        assert [(row.measure, row.measured, row.condition, row.met) for row in table.rows] == [
            ("count", "130", "≥ 100 (long_min_count)", True), ("window", "24 h", "", None)]

    def test_a_value_against_its_threshold_and_a_window_from_the_parameters(self):
        assert evidence_table({"parameters": defaults("large_transfer"), "measured": {"usd_value": "25000.00"}}).headline == [
            "25000.00 USD ≥ 10000"]
        edges = [{"id": "t1", "from": "1:0x01", "to": "1:0xab", "usd": "5000.00", "at": "2026-01-01T00:00:00Z"},
                 {"id": "t2", "from": "1:0x02", "to": "1:0xab", "usd": "6000.00", "at": "2026-01-01T01:00:00Z"}]
        table = evidence_table({"parameters": defaults("fan_in"), "measured": {
            "distinct_senders": 12, "senders": ["1:0x01", "1:0x02"], "inflow_usd": "11000.00", "transfers": edges}}, unit="transfers")
        assert table.headline == ["12 distinct senders within 72 h ≥ 8", "11000.00 inflow (USD) within 72 h ≥ 10000"]
        rows = [(row.measure, row.measured, row.condition, row.met) for row in table.rows]
        assert ("senders", "1:0x01, 1:0x02", "", None) in rows  # a list of accounts is listed, held against nothing
        assert ("transfers", "1:0x01 → 1:0xab (5000.00 USD); 1:0x02 → 1:0xab (6000.00 USD)", "", None) in rows
        assert table.settings == [("min_outflow_pct", "80"), ("max_senders", "200")]  # window_hours is in the headline

    def test_values_without_a_parameter_and_a_skip(self):
        table = evidence_table({"measured": {"counterparty": "1:0xdd", "listed_on": "OFAC SDN"}})
        assert table.headline == [] and [row.measure for row in table.rows] == ["counterparty", "listed on"]
        assert evidence_table({"reason": "no USD price for XYZ"}).note == "no USD price for XYZ"


@pytest.fixture
def case(org):
    """A case of one alert with 51 transfers and six identical disposition steps on its timeline."""
    now = timezone.now()
    entity = Entity.objects.create(organization=org, mode="live", legal_name="Nova Traders LLC", entity_type="business", jurisdiction="US")
    alert = Alert.objects.create(organization=org, mode="live", entity=entity, rule_number=5, rule_code="high_velocity",
                                 rule_name="High velocity", severity="medium", description="d", first_triggered_at=now,
                                 last_triggered_at=now, sla_due_at=now + timedelta(days=3),
                                 evidence={"parameters": defaults("high_velocity"), "measured": {"window_hours": 1, "count": 21}})
    alert.transactions.set(Transaction.objects.bulk_create(
        Transaction(organization=org, mode="live", chain_id=1, tx_hash=f"0x{i + 1:064x}", from_address=f"0x{i + 1:040x}",
                    to_address=WALLET, amount="100", asset="USDC", usd_value=Decimal(100), timestamp=now - timedelta(minutes=60 - i),
                    to_entity=entity) for i in range(51)))
    case = Case.objects.create(organization=org, mode="live", number=7, entity=entity, detected_at=now, sla_started_at=now,
                               sla_due_at=now + timedelta(days=30))
    CaseAlert.objects.create(case=case, alert=alert)
    for _ in range(6):
        CaseEvent.objects.create(organization=org, mode="live", case=case, kind="alert_disposed", actor_label="officer@acme.example",
                                 body="Confirmed by the determination of CASE-000007.")
    CaseEvent.objects.create(organization=org, mode="live", case=case, kind="comment", actor_label="officer@acme.example", body="Done.")
    return case


def page_of(console, case, **query) -> str:
    response = console.get(f"/admin/filings/case/{case.pk}/change/", query)
    assert response.status_code == 200
    return response.content.decode()


def rows_of(html: str, section: str) -> list[str]:
    body = html.split(f'id="{section}"', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr>.*?</tr>", body, re.S)


class TestCasePage:
    def test_transactions_come_25_a_page_with_shortened_addresses(self, staff, org, case):
        console = staff(org, "l2_investigator")
        html = page_of(console, case)
        assert "Transactions (51) · page 1 of 3" in html and len(rows_of(html, "transactions")) == 25
        assert f'<code title="{WALLET}">0x5290…9ee7</code>' in html and f'data-copy="{WALLET}"' in html
        assert WALLET not in html.replace(f'title="{WALLET}"', "").replace(f'data-copy="{WALLET}"', "").replace(
            f"Copy the address {WALLET}", "")  # the full address only on hover and in the copy button
        last = page_of(console, case, tx_page=3)
        assert "page 3 of 3" in last and len(rows_of(last, "transactions")) == 1
        assert len(rows_of(page_of(console, case, tx_page="x"), "transactions")) == 25  # not a number: the first page

    def test_repeated_timeline_steps_are_one_row_with_a_count(self, staff, org, case):
        html = page_of(staff(org, "l2_investigator"), case)
        timeline = html.split("<h2>Timeline</h2>", 1)[1]
        assert timeline.count("Confirmed by the determination of CASE-000007.") == 1 and "× 6" in timeline
        assert "Done." in timeline

    def test_a_closed_case_offers_no_assignment_and_no_split(self, staff, org, case):
        console = staff(org, "l3_officer")
        assert 'value="assign"' in page_of(console, case)
        Case.objects.filter(pk=case.pk).update(status="closed", closed_at=timezone.now())
        html = page_of(console, case)
        assert 'value="assign"' not in html and 'value="split"' not in html
        assert "The case is closed: reopen it to assign it or split its alerts." in html
        assert 'value="status"' in html and '<option value="investigating">' in html  # an officer may reopen it

    def test_only_what_the_role_allows_is_offered(self, staff, org, case):
        Case.objects.filter(pk=case.pk).update(status="closed", closed_at=timezone.now())
        investigator = page_of(staff(org, "l2_investigator"), case)
        assert 'value="status"' not in investigator  # reopening is an officer's
        analyst = page_of(staff(org, "l1_analyst"), case)
        assert 'value="assign"' not in analyst and 'value="status"' not in analyst and 'value="comment"' in analyst

    def test_the_graph_is_on_the_page_highlighting_the_case(self, staff, org, case):
        html = page_of(staff(org, "l2_investigator"), case)
        assert f'data-endpoint="/v1/onboarding/entities/{case.entity_id}/counterparty-graph"' in html
        assert f'data-highlight="case_id={case.pk}"' in html and 'data-mode="live"' in html


class TestAlertPage:
    def test_the_evidence_is_a_table_and_transactions_are_paged(self, staff, org, case):
        alert = case.alerts.get()
        response = staff(org, "l1_analyst").get(f"/admin/monitoring/alert/{alert.pk}/change/", {"tx_page": 2})
        html = response.content.decode()
        assert response.status_code == 200 and "21 transfers within 1 h ≥ 20" in html and '"parameters"' not in html
        assert "≥ 20 (short_min_count)" in html
        assert "Transactions (51) · page 2 of 3" in html and len(rows_of(html, "transactions")) == 25
        assert f'data-highlight="alert_id={alert.pk}"' in html
