"""What a SAR covers and no filing without review (issue 27, items 2 and 3): by default only the
case's alerts disposed true positive or inconclusive, and their transactions; the investigator's
selection kept on the filing; filing from determination only, with a validated draft; four eyes
on by default in live mode, off in test mode, turned off by an admin with an audit entry."""

from decimal import Decimal

import pytest

from common.models import AuditLogEntry
from filings.cases.attach import cases_attach_alerts
from filings.models import Case, FilingRecord, ReportDraft
from monitoring.models import Alert
from tests.filings.conftest import BASE, make_alert, open_case, review, with_filer
from webhooks.models import Event

pytestmark = pytest.mark.django_db

PAYROLL = "Payroll from a known client"


def dispose(client, alert, disposition, notes):
    response = client.post(f"{BASE}/entities/{alert.entity_id}/alerts/{alert.pk}/disposition",
                           {"disposition": disposition, "notes": notes}, format="json")
    assert response.status_code == 200, response.json()


@pytest.fixture
def mixed(officer, org, onboard, priced):
    """A case of three alerts: structuring confirmed (2 transfers), payroll closed as a false positive
    (3 transfers), and a mixer alert still open (1 transfer)."""
    with_filer(org, "US")
    entity = onboard("US", legal_name="Zoë Ångström", entity_type="individual")
    confirmed = make_alert(entity, rule_code="structuring_below_threshold", transactions=2)
    payroll = make_alert(entity, rule_code="volume_spike", transactions=3)
    still_open = make_alert(entity, rule_code="mixer_exposure", transactions=1)
    case = Case.objects.get(pk=cases_attach_alerts(organization=org, mode="test", alerts=[confirmed, payroll, still_open])[confirmed.pk])
    dispose(officer, confirmed, "true_positive", "Deposits just under 10,000 USD, sent on within hours.")
    dispose(officer, payroll, "false_positive", PAYROLL)
    return case, confirmed, payroll, still_open


def references(alert) -> set[str]:
    return {str(pk) for pk in alert.transactions.values_list("pk", flat=True)}


def test_a_false_positive_alert_and_its_transfers_are_left_out_by_default(officer, mixed):
    case, confirmed, payroll, still_open = mixed
    body = officer.get(f"{BASE}/cases/{case.pk}/sar-draft").json()
    form, coverage = body["form"], body["coverage"]
    assert [item["alert_id"] for item in coverage["included"]] == [str(confirmed.pk)]
    assert coverage["included"][0]["reason"] == "Disposed true positive."
    excluded = {item["alert_id"]: item for item in coverage["excluded"]}
    assert excluded[str(payroll.pk)]["reason"] == "Closed as false positive: not suspicious activity to report."
    assert excluded[str(payroll.pk)]["disposition"] == "false_positive" and excluded[str(payroll.pk)]["transactions"] == 3
    assert "only when the investigator selects it" in excluded[str(still_open.pk)]["reason"]
    assert form["activity"]["alert_references"] == [str(confirmed.pk)]
    assert {row["reference"] for row in form["transactions"]} == references(confirmed)
    values = [tx.usd_value for tx in confirmed.transactions.all()]
    assert form["activity"]["amount_involved"] == format(sum(values, Decimal(0)).quantize(Decimal("0.01")), "f") == "2001.00"
    days = sorted(tx.timestamp.date().isoformat() for tx in confirmed.transactions.all())
    assert (form["activity"]["start_date"], form["activity"]["end_date"]) == (days[0], days[-1])
    assert PAYROLL not in str(form) and payroll.rule_name not in form["activity"]["narrative"]
    assert not ReportDraft.objects.exists()  # reading the draft stores nothing


def test_the_investigators_selection_is_kept_on_the_filing(api, key, officer, org, mixed):
    case, confirmed, payroll, still_open = mixed
    url = f"{BASE}/cases/{case.pk}/sar-selection"
    refused = officer.post(url, {"include": [str(still_open.pk), str(make_alert(case.entity).pk)]}, format="json")
    assert refused.status_code == 422 and refused.json()["error"]["details"][0]["field"] == "include"
    assert not ReportDraft.objects.exists() and not AuditLogEntry.objects.filter(action="report.selection_changed").exists()
    selected = officer.post(url, {"include": [str(still_open.pk)]}, format="json")
    assert selected.status_code == 200, selected.json()
    coverage = selected.json()["coverage"]
    assert [item["alert_id"] for item in coverage["included"]] == [str(confirmed.pk), str(still_open.pk)]
    assert coverage["included"][1]["reason"] == "Selected by the investigator (open)."
    assert coverage["included"][1]["selected_by_investigator"] is True
    assert [item["alert_id"] for item in coverage["excluded"]] == [str(payroll.pk)]
    form = selected.json()["form"]
    assert form["activity"]["alert_references"] == [str(confirmed.pk), str(still_open.pk)]
    assert {row["reference"] for row in form["transactions"]} == references(confirmed) | references(still_open)
    assert form["activity"]["amount_involved"] == "3001.00"
    draft = ReportDraft.objects.get()
    assert draft.selection == {str(still_open.pk): True} and draft.form_data == form
    assert AuditLogEntry.objects.get(action="report.selection_changed").after["selection"] == {str(still_open.pk): True}

    review(officer, case, include_open=False)
    filed = officer.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json")
    assert filed.status_code == 200, filed.json()
    record = FilingRecord.objects.get()
    assert record.amount == Decimal("3001.00") and record.form_data["activity"]["alert_references"] == form["activity"]["alert_references"]
    assert [item["alert_id"] for item in record.selection["included"]] == [str(confirmed.pk), str(still_open.pk)]
    assert record.selection["excluded"][0]["reason"].startswith("Closed as false positive")
    assert record.selection["choices"] == {str(still_open.pk): True}
    assert filed.json()["filing"]["selection"] == record.selection
    dispositions = dict(Alert.objects.filter(case_link__case=case).values_list("pk", "disposition"))
    assert dispositions == {confirmed.pk: "true_positive", payroll.pk: "false_positive", still_open.pk: "true_positive"}


def test_filing_is_refused_until_the_case_reaches_determination(officer, org, onboard, priced):
    with_filer(org, "US")
    case = open_case(onboard("US"), transactions=2)
    url = f"{BASE}/cases/{case.pk}"
    officer.post(f"{url}/sar-selection", {"include": [str(case.alerts.get().pk)]}, format="json")
    assert officer.post(f"{url}/sar-validate", {}, format="json").json()["valid"] is True  # a validated draft, the case open
    for status in ("open", "investigating"):
        if status == "investigating":
            officer.post(f"{url}/status", {"status": "investigating"}, format="json")
        refused = officer.post(f"{url}/file-sar", {}, format="json")
        error = refused.json()["error"]
        assert refused.status_code == 409 and error["code"] == "REVIEW_REQUIRED", error
        assert error["message"].startswith(f"{case.reference} cannot be filed yet: The case is {status}; a report is filed from "
                                           "determination only")
        assert [d["field"] for d in error["details"]] == ["status"] and error["details"][0]["required"] == ["determination"]
        stored = Case.objects.get(pk=case.pk)
        assert (stored.status, stored.filing_status) == (status, "draft")
        assert not FilingRecord.objects.exists() and not Event.objects.filter(type="sar.filed").exists()
    officer.post(f"{url}/status", {"status": "determination"}, format="json")
    form = officer.get(f"{url}/sar-draft").json()["form"]
    form["activity"]["action_taken"] = "Account frozen."
    unvalidated = officer.post(f"{url}/file-sar", form, format="json")
    assert unvalidated.status_code == 409 and [d["field"] for d in unvalidated.json()["error"]["details"]] == ["draft"]
    assert "differs from the stored draft" in unvalidated.json()["error"]["message"]
    assert not FilingRecord.objects.exists() and ReportDraft.objects.get().form_data != form
    assert officer.post(f"{url}/file-sar", {}, format="json").status_code == 200
    assert Case.objects.get(pk=case.pk).status == "closed"


@pytest.fixture
def live(api, key, org, onboard, priced):
    """A live-mode case and two live-mode officer keys; the organization's four_eyes_filing left at its default."""
    with_filer(org, "US")
    preparer, other = api(key(org, role="l3_officer", mode="live")), api(key(org, role="l3_officer", mode="live"))
    case = open_case(onboard("US", client=preparer), transactions=2)
    assert case.mode == "live" and org.four_eyes_filing is None
    return case, preparer, other


def test_live_mode_refuses_the_preparer_as_filer_by_default(live):
    case, preparer, other = live
    review(preparer, case)
    refused = preparer.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "FOUR_EYES"
    assert not FilingRecord.objects.exists() and Case.objects.get(pk=case.pk).status == "determination"
    filed = other.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json")
    assert filed.status_code == 200, filed.json()
    record = FilingRecord.objects.get()
    assert (record.four_eyes_required, record.four_eyes_setting) == (True, "default") and record.prepared_by_actor != record.filed_by_actor
    assert (filed.json()["filing"]["four_eyes_required"], filed.json()["filing"]["four_eyes_setting"]) == (True, "default")
    assert filed.json()["filing"]["filed_by"].startswith("api_key:") and filed.json()["filing"]["filed_by"].endswith(" (l3_officer live)")
    assert record.filed_by is None and record.filed_by_label == filed.json()["filing"]["filed_by"]  # a key acted: the key, with its name


def test_test_mode_lets_the_preparer_file_by_default(officer, org, onboard, priced):
    with_filer(org, "US")
    case = open_case(onboard("US"), transactions=1)
    review(officer, case)
    filed = officer.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json")
    assert filed.status_code == 200, filed.json()
    record = FilingRecord.objects.get()
    assert record.prepared_by_actor == record.filed_by_actor and (record.four_eyes_required, record.four_eyes_setting) == (False, "default")
    assert filed.json()["filing"]["four_eyes_required"] is False


def test_an_admin_turns_four_eyes_off_audited_and_shown_on_the_filing(api, key, member, org, live):
    case, preparer, _ = live
    _, analyst_token = member(org, "l3_officer")
    refused = api(analyst_token).patch("/v1/organizations/me", {"four_eyes_filing": False}, format="json")
    assert refused.status_code == 403
    org.refresh_from_db()
    assert org.four_eyes_filing is None and not AuditLogEntry.objects.filter(action="organization.four_eyes_changed").exists()
    admin, admin_token = member(org, "admin")
    turned = api(admin_token).patch("/v1/organizations/me", {"four_eyes_filing": False}, format="json")
    assert turned.status_code == 200, turned.json()
    assert turned.json()["four_eyes_filing"] is False and turned.json()["four_eyes"] == {"setting": "off", "live": False, "test": False}
    entry = AuditLogEntry.objects.get(action="organization.four_eyes_changed")
    assert entry.actor_label == admin.email and entry.before == {"four_eyes_filing": None}
    assert entry.after == {"four_eyes_filing": False, "setting": "off", "live": False, "test": False}
    review(preparer, case)
    filed = preparer.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json")
    assert filed.status_code == 200, filed.json()
    record = FilingRecord.objects.get()
    assert record.prepared_by_actor == record.filed_by_actor and (record.four_eyes_required, record.four_eyes_setting) == (False, "off")
    assert (filed.json()["filing"]["four_eyes_required"], filed.json()["filing"]["four_eyes_setting"]) == (False, "off")
