"""The suspicious-activity report flow through the API — sar-draft → sar-validate → sar-xml →
file-sar → histories and the stored document — for entities of each jurisdiction, with non-ASCII
names, beneficial owners and many transactions. Every document is checked against the
regulator's schema file directly (lxml / jsonschema), not only by the renderer."""

import json

import pytest
from lxml import etree

from filings.cases.attach import cases_attach_alerts
from filings.models import Case, FilingRecord
from monitoring.models import Alert, Notification
from tests.filings.conftest import BASE, EVM, ingest_fiat, ingest_transfers, make_alert, open_case, review, with_filer
from tests.filings.helpers import independent_errors
from webhooks.models import Event

pytestmark = pytest.mark.django_db

KINDS = {"US": "SAR", "CA": "STR", "AU": "SMR", "GB": "STR", "JP": "STR", "DE": "STR", "FR": "STR", "NL": "STR", "BR": "STR"}
NAMES = {"US": "Zoë Ångström", "CA": "Мария Иванова", "AU": "محمد الحسيني", "GB": "Łukasz Wiśniewski", "JP": "山田 太郎",
         "DE": "Jürgen Groß", "FR": "Élodie Lefèvre", "NL": "Ελένη Παπαδοπούλου", "BR": "João Conceição"}
SAR_FILED_FIELDS = {"sar_id", "case_id", "entity_id", "bsa_id", "filing_date", "amount_involved", "activity_start_date",
                    "activity_end_date"}


def person(jurisdiction: str) -> dict:
    return {"entity_type": "individual", "legal_name": NAMES[jurisdiction], "date_of_birth": "1981-04-05",
            "tax_id": "123-45-6789", "address": {"line1": "12 Harbour Street", "city": "Springfield", "country": jurisdiction},
            "ubos": [{"name": "Søren Kierkegaard", "nationality": "DK"}], "phone": "+1 217 555 0100", "email": "subject@example.com"}


def file_through_the_api(client, case, kind, jurisdiction):
    review(client, case, validate=False)
    draft = client.get(f"{BASE}/cases/{case.pk}/sar-draft").json()
    assert draft["kind"] == kind and draft["source"] == "stored" and draft["jurisdiction"] == jurisdiction  # the selection stored it
    assert draft["deadline"]["days_remaining"] == 30
    form = draft["form"]
    checked = client.post(f"{BASE}/cases/{case.pk}/sar-validate", form, format="json").json()
    assert checked["valid"] is True, checked["errors"]
    document = client.post(f"{BASE}/cases/{case.pk}/sar-xml", {}, format="json")
    assert document.status_code == 200 and document["X-Report-Valid"] == "true"
    assert document["Content-Type"] == ("application/xml" if kind in ("SAR", "SMR") else "application/json")
    assert independent_errors(kind, jurisdiction, document.content) == []
    filed = client.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json")
    assert filed.status_code == 200, filed.json()
    return form, document.content, filed.json()


@pytest.mark.parametrize("jurisdiction", list(KINDS))
def test_every_jurisdiction_files_a_schema_valid_report(officer, org, onboard, priced, jurisdiction):
    with_filer(org, jurisdiction if jurisdiction in ("US", "CA", "AU") else "DE")
    entity = onboard(jurisdiction, **person(jurisdiction))
    alert = make_alert(entity, transactions=40, severity="high")
    ingest_fiat(officer, entity, amounts=["12000"], event_type="wire_in")
    case = Case.objects.get(pk=cases_attach_alerts(organization=org, mode="test", alerts=[alert, *Alert.objects.filter(
        entity=entity).exclude(pk=alert.pk)])[alert.pk])
    kind = KINDS[jurisdiction]
    form, document, body = file_through_the_api(officer, case, kind, jurisdiction)
    assert {row.get("fiat_event_type") for row in form["transactions"]} == {None, "wire_in"}
    assert [s["family_name"] for s in form["subjects"]] == [NAMES[jurisdiction].split()[-1], "Kierkegaard"]
    assert body["status"] == "closed" and body["filing_status"] == "filed" and body["filing"]["kind"] == kind
    record = FilingRecord.objects.get()
    assert bytes(record.document) == document and record.jurisdiction == jurisdiction and record.case_id == case.pk
    assert independent_errors(kind, jurisdiction, bytes(record.document)) == []
    if kind != "SAR":  # FinCEN writes Latin letters; the others keep the names as written
        assert NAMES[jurisdiction].split()[-1] in document.decode()


def test_us_sar_with_a_thousand_ingested_transactions(officer, org, onboard, priced):
    with_filer(org, "US")
    entity = onboard("US", **person("US"))
    ingest_transfers(officer, to_address=EVM, count=1000)
    cases_attach_alerts(organization=org, mode="test", alerts=Alert.objects.filter(entity=entity))
    case = Case.objects.get()
    assert case.alerts.count() == Alert.objects.filter(entity=entity).count()
    form, document, body = file_through_the_api(officer, case, "SAR", "US")
    assert len(form["transactions"]) == 1000
    assert form["activity"]["amount_involved"] == f"{sum(10_000 + i for i in range(1000))}.00"
    categories = {c["typology"] for c in form["activity"]["categories"]}
    assert {"virtual_currency", "rapid_movement", "out_of_pattern"} <= categories  # one sender: no fan-in (rule 6 needs 8)
    root = etree.fromstring(document)
    assert root.get("PartyCount") == "2"
    record = FilingRecord.objects.get()
    csv = officer.get(f"{BASE}/entities/{entity.pk}/filings/{record.pk}/document", {"attachment": list(record.attachments)[0]})
    assert csv.status_code == 200 and csv.content.decode().count("\n") == 1001


@pytest.mark.parametrize("jurisdiction", ["CA", "AU", "GB"])
def test_a_thousand_transactions_elsewhere(officer, org, onboard, priced, jurisdiction):
    with_filer(org, jurisdiction if jurisdiction != "GB" else "DE")
    case = open_case(onboard(jurisdiction, **person(jurisdiction)), transactions=1000, severity="critical")
    form, document, _ = file_through_the_api(officer, case, KINDS[jurisdiction], jurisdiction)
    assert len(form["transactions"]) == 1000 and all("local_value" in row for row in form["transactions"]) == (jurisdiction != "GB")


def test_filing_effects_payload_notification_histories(officer, org, onboard, priced):
    with_filer(org, "US")
    entity = onboard("US", **person("US"))
    case = open_case(entity, transactions=3)
    _, document, body = file_through_the_api(officer, case, "SAR", "US")
    record = FilingRecord.objects.get()
    event = Event.objects.get(type="sar.filed")
    assert set(event.data) == SAR_FILED_FIELDS
    assert event.data == {"sar_id": str(record.pk), "case_id": str(case.pk), "entity_id": str(entity.pk), "bsa_id": record.tracking_id,
                          "filing_date": record.filing_date.isoformat(), "amount_involved": 3003,
                          "activity_start_date": record.activity_start_date.isoformat(),
                          "activity_end_date": record.activity_end_date.isoformat()}
    changed = [(e.data["previous_status"], e.data["new_status"])
               for e in Event.objects.filter(type="case.status_changed").order_by("created_at")]
    assert changed == [("open", "investigating"), ("investigating", "determination"), ("determination", "closed")]
    assert Notification.objects.filter(type="sar_filed", case_id=case.pk).count() == 1
    assert set(Alert.objects.filter(case_link__case=case).values_list("disposition", flat=True)) == {"true_positive"}
    assert body["filing"]["tracking_id"] == record.tracking_id and body["filing"]["prepared_by"].startswith("api_key:")
    for history, total in (("sar-history", 1), ("filing-history", 1), ("ctr-history", 0)):
        listed = officer.get(f"{BASE}/entities/{entity.pk}/{history}").json()
        assert listed["total"] == total, history
    listed = officer.get(f"{BASE}/entities/{entity.pk}/filing-history").json()["data"][0]
    assert listed["id"] == str(record.pk) and listed["attachment_names"] == ["CASE-000001-transactions.csv"]
    download = officer.get(f"{BASE}/entities/{entity.pk}/filings/{record.pk}/document")
    assert download.status_code == 200 and download.content == document and "attachment" in download["Content-Disposition"]
    detail = officer.get(f"{BASE}/entities/{entity.pk}/cases/{case.pk}").json()
    disposed = Alert.objects.filter(case_link__case=case).count()  # every alert of the case was open, and filing disposed it
    assert [e["kind"] for e in detail["events"]][-2 - disposed:] == ["status_changed", "report_filed"] + ["alert_disposed"] * disposed
    assert detail["events"][-1]["body"] == f"Confirmed by the determination of {case.reference}."
    assert detail["filings"][0]["tracking_id"] == record.tracking_id
    again = officer.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json")
    assert again.status_code == 409 and FilingRecord.objects.count() == 1


def test_reopened_case_files_a_continuing_report(officer, org, onboard, priced):
    with_filer(org, "US")
    case = open_case(onboard("US", **person("US")), transactions=2)
    file_through_the_api(officer, case, "SAR", "US")
    reopened = officer.post(f"{BASE}/cases/{case.pk}/status", {"status": "investigating", "reason": "Activity continues."},
                            format="json").json()
    assert reopened["deadline"]["basis"].startswith("continuing activity") and reopened["deadline"]["days_remaining"] == 120
    draft = officer.get(f"{BASE}/cases/{case.pk}/sar-draft").json()["form"]
    draft["amendment"] = {"type": "continuing", "prior_report_id": FilingRecord.objects.get().tracking_id}
    review(officer, case, form=draft)
    filed = officer.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json")
    assert filed.status_code == 200, filed.json()
    assert FilingRecord.objects.filter(case=case).count() == 2
    assert json.loads(json.dumps(filed.json()["filing"]))["amendment_type"] == "continuing"


def test_tenancy_and_roles(api, key, org, other_org, onboard, priced):
    with_filer(org, "US")
    case = open_case(onboard("US", **person("US")), transactions=1)
    entity = case.entity
    foreign = api(key(other_org))
    for method, path in (("get", "sar-draft"), ("post", "sar-xml"), ("post", "sar-validate"), ("post", "file-sar"),
                         ("get", "ai-summary"), ("post", "ai-sar-narrative")):
        assert getattr(foreign, method)(f"{BASE}/cases/{case.pk}/{path}", format="json").status_code == 404, path
    for path in ("sar-history", "filing-history", "ctr-history"):
        assert foreign.get(f"{BASE}/entities/{entity.pk}/{path}").status_code == 404
        assert api(key(org, role="l1_analyst")).get(f"{BASE}/entities/{entity.pk}/{path}").status_code == 403
    analyst, investigator = api(key(org, role="l1_analyst")), api(key(org, role="l2_investigator"))
    assert analyst.get(f"{BASE}/cases/{case.pk}/sar-draft").status_code == 403
    assert analyst.get(f"{BASE}/cases/{case.pk}/ai-summary").status_code == 200
    assert analyst.post(f"{BASE}/cases/{case.pk}/ai-sar-narrative").status_code == 403
    assert investigator.post(f"{BASE}/cases/{case.pk}/sar-validate", {}, format="json").status_code == 200
    refused = investigator.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json")
    assert refused.status_code == 403 and not FilingRecord.objects.exists()
    review(investigator, case)
    assert api(key(org, role="l3_officer")).post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json").status_code == 200
