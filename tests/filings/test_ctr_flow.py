"""Large-transaction reports from rule-24 alerts: ctr-draft → ctr-validate → ctr-xml → file-ctr →
ctr-history, for US (CTR), CA (LCTR) and AU (TTR), schema-checked directly; 404 where there is none."""

import pytest

from filings.models import FilingRecord, ReportDraft
from monitoring.models import Alert
from tests.filings.conftest import BASE, ingest_fiat, with_filer
from tests.filings.helpers import independent_errors
from webhooks.models import Event

pytestmark = pytest.mark.django_db

LARGE = {"US": ("CTR", "USD", "application/xml"), "CA": ("LCTR", "CAD", "application/json"), "AU": ("TTR", "AUD", "application/xml")}
CTR_FILED_FIELDS = {"filing_id", "kind", "jurisdiction", "entity_id", "alert_id", "bsa_id", "filing_date", "amount_involved", "currency"}


def rule24(officer, onboard, jurisdiction, currency, **fields):
    entity = onboard(jurisdiction, entity_type="individual", legal_name="Jürgen Groß", **fields)
    # A Saturday: both deposits post to Monday's business day and aggregate (31 CFR 1010.313).
    ingest_fiat(officer, entity, amounts=["6000", "7000.25"], event_type="check_deposit", currency=currency, day="2026-03-07")
    return entity, Alert.objects.get(entity=entity, rule_code="large_fiat_transaction")


def url(entity, rest):
    return f"{BASE}/entities/{entity.pk}/{rest}"


@pytest.mark.parametrize("jurisdiction", list(LARGE))
def test_large_transaction_report_through_the_api(officer, org, onboard, priced, jurisdiction):
    kind, currency, content_type = LARGE[jurisdiction]
    with_filer(org, jurisdiction)
    entity, alert = rule24(officer, onboard, jurisdiction, currency)
    draft = officer.get(url(entity, f"ctr-draft/{alert.pk}")).json()
    assert (draft["kind"], draft["alert_id"], draft["source"]) == (kind, str(alert.pk), "prefilled")
    form = draft["form"]
    assert [row["business_date"] for row in form["transactions"]] == ["2026-03-09", "2026-03-09"]
    assert form["aggregation_basis"] == "conductor" and form["alert_references"] == [str(alert.pk)]
    checked = officer.post(url(entity, "ctr-validate"), form, format="json").json()
    assert checked["valid"] is True, checked["errors"]
    document = officer.post(url(entity, f"ctr-xml?alert_id={alert.pk}"), {}, format="json")
    assert document.status_code == 200 and document["Content-Type"] == content_type
    assert independent_errors(kind, jurisdiction, document.content) == []
    filed = officer.post(url(entity, "file-ctr"), form, format="json")
    assert filed.status_code == 200, filed.json()
    body = filed.json()
    assert (body["kind"], body["currency"], body["amount"], body["alert_id"]) == (kind, currency, "13000.25", str(alert.pk))
    assert body["activity_start_date"] == body["activity_end_date"] == "2026-03-09"
    record = FilingRecord.objects.get()
    assert independent_errors(kind, jurisdiction, bytes(record.document)) == [] and record.family == "large_transaction"
    event = Event.objects.get(type="ctr.filed")
    assert set(event.data) == CTR_FILED_FIELDS
    assert event.data["kind"] == kind and event.data["amount_involved"] == 13000.25 and event.data["alert_id"] == str(alert.pk)
    assert officer.get(url(entity, "ctr-history")).json()["total"] == 1
    assert officer.get(url(entity, "sar-history")).json()["total"] == 0
    assert officer.get(url(entity, "filing-history")).json()["data"][0]["kind"] == kind
    again = officer.post(url(entity, "file-ctr"), form, format="json")
    assert again.status_code == 409 and "correction" in again.json()["error"]["message"]
    correction = {**form, "amendment": {"type": "correction", "prior_report_id": record.tracking_id}}
    assert officer.post(url(entity, "file-ctr"), correction, format="json").status_code == 200


@pytest.mark.parametrize("jurisdiction", ["GB", "JP", "DE", "FR", "NL", "BR"])
def test_no_large_transaction_report_is_404(officer, onboard, priced, jurisdiction):
    entity, alert = rule24(officer, onboard, jurisdiction, "USD")
    assert officer.get(url(entity, f"ctr-draft/{alert.pk}")).status_code == 404
    for rest in ("ctr-xml", "ctr-validate", "file-ctr"):
        assert officer.post(url(entity, rest), {"transactions": []}, format="json").status_code == 404, rest
    assert officer.get(url(entity, "ctr-history")).json()["total"] == 0


def test_draft_needs_a_rule_24_alert_of_the_entity(officer, onboard, priced):
    entity, alert = rule24(officer, onboard, "US", "USD")
    other = Alert.objects.exclude(rule_code="large_fiat_transaction").filter(entity=entity).first()
    assert officer.get(url(entity, f"ctr-draft/{other.pk}")).status_code == 404
    stranger, _ = rule24(officer, onboard, "US", "USD")
    assert officer.get(url(stranger, f"ctr-draft/{alert.pk}")).status_code == 404


def test_broken_ctr_form_and_empty_body(officer, org, onboard, priced):
    with_filer(org, "US")
    entity, alert = rule24(officer, onboard, "US", "USD")
    form = officer.get(url(entity, f"ctr-draft/{alert.pk}")).json()["form"]
    form["transactions"][1]["timestamp"] = "yesterday"
    form["subjects"][0].pop("family_name"), form["subjects"][0].pop("given_name")
    body = officer.post(url(entity, "ctr-validate"), form, format="json").json()
    assert body["valid"] is False and {e["path"] for e in body["errors"]} == {"transactions.1.timestamp"}
    del form["transactions"][1]
    form["transactions"][0]["timestamp"] = "2026-03-07T14:00:00Z"
    body = officer.post(url(entity, "ctr-validate"), form, format="json").json()
    assert {e["path"] for e in body["errors"]} == {"subjects.0.family_name"}
    refused = officer.post(url(entity, "file-ctr"), form, format="json")
    assert refused.status_code == 422 and not FilingRecord.objects.exists()
    assert officer.post(url(entity, "ctr-xml"), {}, format="json").status_code == 422
    assert officer.post(url(entity, "file-ctr"), {}, format="json").status_code == 422


def test_roles_tenancy_and_four_eyes(api, key, org, other_org, member, onboard, priced, officer):
    with_filer(org, "US")
    entity, alert = rule24(officer, onboard, "US", "USD")
    form = officer.get(url(entity, f"ctr-draft/{alert.pk}")).json()["form"]
    assert api(key(other_org)).get(url(entity, f"ctr-draft/{alert.pk}")).status_code == 404
    assert api(key(org, role="l1_analyst")).get(url(entity, f"ctr-draft/{alert.pk}")).status_code == 403
    assert api(key(org, role="l2_investigator")).post(url(entity, "file-ctr"), form, format="json").status_code == 403
    org.four_eyes_filing = True
    org.save(update_fields=["four_eyes_filing"])
    preparer = api(key(org, role="l2_investigator"))
    preparer.post(url(entity, "ctr-validate"), form, format="json")
    assert ReportDraft.objects.get(alert=alert).kind == "CTR"
    assert officer.post(url(entity, f"file-ctr?alert_id={alert.pk}"), {}, format="json").status_code == 200
    record = FilingRecord.objects.get()
    assert record.prepared_by_actor != record.filed_by_actor
