"""Cases and filings in onboarding's search, entity activity feed and compliance report."""

import pytest

from tests.filings.conftest import BASE, open_case, review, with_filer

pytestmark = pytest.mark.django_db


@pytest.fixture
def filed(officer, org, onboard, priced):
    with_filer(org, "US")
    case = open_case(onboard("US", legal_name="Harbour Lights Ltd"), transactions=2)
    review(officer, case)
    assert officer.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json").status_code == 200
    return case


def test_search_finds_cases_by_reference_and_entity(officer, api, key, other_org, filed, monkeypatch):
    from filings.integrations import search_cases
    from onboarding.interfaces import search as registry

    monkeypatch.setattr(registry, "_searchers", dict(registry._searchers))
    registry.register_searcher("case", search_cases)
    for q in ("CASE-000001", "case-1", "Harbour Lights"):
        results = officer.get(f"{BASE}/search", {"q": q}).json()
        found = [r for r in (results.get("results") or results.get("data") or []) if r["type"] == "case"]
        assert found and found[0]["id"] == str(filed.pk) and found[0]["title"] == "CASE-000001", (q, results)
    foreign = api(key(other_org)).get(f"{BASE}/search", {"q": "CASE-000001"}).json()
    assert not [r for r in (foreign.get("results") or foreign.get("data") or []) if r["type"] == "case"]


def test_activity_shows_case_steps_but_not_the_filing(officer, filed):
    body = officer.get(f"{BASE}/entities/{filed.entity_id}/activity").json()
    items = body if isinstance(body, list) else body.get("data") or body.get("items")
    types = [item["type"] for item in items]
    assert "case.created" in types and "case.status_changed" in types
    assert not any("filed" in item["type"] or "SAR" in str(item) for item in items)


def test_compliance_report_lists_cases_and_filings(officer, filed):
    report = officer.get(f"{BASE}/entities/{filed.entity_id}/compliance-report")
    text = report.content.decode()
    assert report.status_code == 200 and "CASE-000001" in text and "SAR-US-" in text
