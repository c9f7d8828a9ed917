"""Broken forms give precise errors (form-data paths, XML lines), drafts keep their preparer, and
nothing invalid is ever filed."""

import copy

import pytest

from filings.models import Case, FilingRecord, ReportDraft
from monitoring.models import Alert
from tests.filings.conftest import BASE, open_case, review, with_filer

pytestmark = pytest.mark.django_db


@pytest.fixture
def case(org, onboard, priced):
    """A case whose alert was disposed true positive: the prefilled report covers it and its four transactions."""
    with_filer(org, "US")
    case = open_case(onboard("US", entity_type="individual", legal_name="Zoë Ångström"), transactions=4)
    Alert.objects.filter(case_link__case=case).update(status="closed", disposition="true_positive")
    return case


@pytest.fixture
def form(officer, case):
    return officer.get(f"{BASE}/cases/{case.pk}/sar-draft").json()["form"]


def paths(body) -> set[str]:
    return {error["path"] for error in body["errors"]}


def test_an_unreadable_form_names_each_field(officer, case, form):
    broken = copy.deepcopy(form)
    broken["subjects"][0]["birth_date"] = "05/04/1981"
    broken["transactions"][2]["amount"] = "-5"
    broken["activity"]["categories"].append("astrology")
    broken["filer"]["favourite_colour"] = "red"
    body = officer.post(f"{BASE}/cases/{case.pk}/sar-validate", broken, format="json").json()
    assert body["valid"] is False
    assert paths(body) == {"subjects.0.birth_date", "transactions.2.amount", "activity.categories.1.typology",
                           "filer.favourite_colour"}
    assert all(error["line"] is None and error["source"] == "form" for error in body["errors"])
    preview = officer.post(f"{BASE}/cases/{case.pk}/sar-xml", broken, format="json")
    assert preview.status_code == 422
    assert {d["field"] for d in preview.json()["error"]["details"]} == paths(body)
    filed = officer.post(f"{BASE}/cases/{case.pk}/file-sar", broken, format="json")
    assert filed.status_code == 422 and not FilingRecord.objects.exists()
    assert Case.objects.get(pk=case.pk).status == "open"
    assert not ReportDraft.objects.exists()  # unreadable form data is reported, never stored


def test_business_checks_missing_narrative_and_filer_tin(officer, org, case, form):
    incomplete = copy.deepcopy(form)
    incomplete["activity"]["narrative"] = ""
    incomplete["activity"]["end_date"] = "2020-01-01"
    del incomplete["filer"]["tin"]
    body = officer.post(f"{BASE}/cases/{case.pk}/sar-validate", incomplete, format="json").json()
    assert body["valid"] is False
    assert {"activity.narrative", "filer.tin", "activity.end_date"} <= paths(body)
    messages = {error["path"]: error["message"] for error in body["errors"]}
    assert "who, what, when, where, why and how" in messages["activity.narrative"]
    filed = officer.post(f"{BASE}/cases/{case.pk}/file-sar", incomplete, format="json")
    assert filed.status_code == 422
    assert {"activity.narrative", "filer.tin"} <= {d["field"] for d in filed.json()["error"]["details"]}
    assert not FilingRecord.objects.exists()


def test_an_empty_filer_profile_is_reported_not_filed(officer, org, case):
    org.filer_profile = {}
    org.save(update_fields=["filer_profile"])
    body = officer.post(f"{BASE}/cases/{case.pk}/sar-validate", {}, format="json").json()
    assert body["valid"] is False
    assert {"filer.legal_name", "filer.tin", "filer.transmitter_control_code", "filer.address.line1"} <= paths(body)
    assert officer.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json").status_code == 422


def test_a_schema_error_carries_the_documents_line(case):
    from filings.renderers import renderer_for

    document = b"<?xml version='1.0'?>\n<fc2:EFilingBatchXML xmlns:fc2=\"www.fincen.gov/base\">\n  <fc2:Nonsense/>\n</fc2:EFilingBatchXML>"
    issues = renderer_for("SAR", "US").validate(document)
    assert {(issue.line, issue.source) for issue in issues} == {(2, "schema"), (3, "schema")}
    assert any("Nonsense" in issue.message and issue.line == 3 for issue in issues)


def test_drafts_keep_their_preparer_until_the_data_changes(api, key, org, member, case, form):
    alice, alice_token = member(org, "l2_investigator", email="alice@acme.example")
    bob, bob_token = member(org, "l3_officer", email="bob@acme.example")
    alice_client, bob_client = api(alice_token, HTTP_X_MODE="test"), api(bob_token, HTTP_X_MODE="test")
    assert alice_client.post(f"{BASE}/cases/{case.pk}/sar-validate", form, format="json").json()["valid"] is True
    draft = ReportDraft.objects.get()
    assert draft.prepared_by == alice and draft.valid is True and draft.validated_at
    assert Case.objects.get(pk=case.pk).filing_status == "draft"
    bob_client.post(f"{BASE}/cases/{case.pk}/sar-validate", form, format="json")  # unchanged: still Alice's
    bob_client.post(f"{BASE}/cases/{case.pk}/sar-xml", {}, format="json")
    assert ReportDraft.objects.get().prepared_by == alice
    stored = bob_client.get(f"{BASE}/cases/{case.pk}/sar-draft").json()
    assert stored["source"] == "stored" and stored["prepared_by"] == "alice@acme.example" and stored["form"] == form
    form["activity"]["action_taken"] = "Account frozen."
    bob_client.post(f"{BASE}/cases/{case.pk}/sar-xml", form, format="json")
    assert ReportDraft.objects.get().prepared_by == bob
    fresh = bob_client.get(f"{BASE}/cases/{case.pk}/sar-draft?refresh=true").json()
    assert fresh["source"] == "prefilled" and "action_taken" not in fresh["form"]["activity"]


def test_file_sar_from_a_status_that_cannot_close_is_409(officer, case):
    Case.objects.filter(pk=case.pk).update(status="under_review")
    response = officer.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json")
    error = response.json()["error"]
    assert response.status_code == 409 and error["code"] == "REVIEW_REQUIRED" and "The case is under_review" in error["message"]
    assert not FilingRecord.objects.exists()


def test_non_object_bodies(officer, case):
    assert officer.post(f"{BASE}/cases/{case.pk}/sar-validate", "[1, 2]", content_type="application/json").status_code == 400
    assert officer.post(f"{BASE}/cases/{case.pk}/sar-xml", "{not json", content_type="application/json").status_code == 400
    form_encoded = officer.post(f"{BASE}/cases/{case.pk}/sar-validate", {"a": "b"}, format="multipart")
    assert form_encoded.status_code == 415 and "Content-Type: application/json" in form_encoded.json()["error"]["message"]
    weird = officer.post(f"{BASE}/cases/{case.pk}/sar-validate", {"subjects": "everyone", "transactions": {"a": 1}}, format="json")
    assert weird.status_code == 200 and weird.json()["valid"] is False


@pytest.mark.parametrize(("jurisdiction", "field", "value"), [
    ("AU", "numberOfUnits", b">115792089237316195423570985008687907853269984665640564039457.5840079131<"),
    ("CA", "details/amount", b'"115792089237316195423570985008687907853269984665640564039457.5840079131"'),
])
def test_a_uint256_amount_is_a_schema_error_not_a_500(officer, org, onboard, priced, jurisdiction, field, value):
    with_filer(org, jurisdiction)
    case = open_case(onboard(jurisdiction, entity_type="individual", legal_name="Zoë Ångström"), transactions=2)
    form = review(officer, case, validate=False)
    form["transactions"][0].update(amount="115792089237316195423570985008687907853269984665640564039457.584007913129639935",
                                   currency="ETH")
    validated = officer.post(f"{BASE}/cases/{case.pk}/sar-validate", form, format="json")
    assert validated.status_code == 200 and validated.json()["valid"] is False
    assert any(field in error["path"] or field in error["message"] for error in validated.json()["errors"])
    preview = officer.post(f"{BASE}/cases/{case.pk}/sar-xml", form, format="json")
    assert preview.status_code == 200 and preview["X-Report-Valid"] == "false"
    assert value in preview.content
