"""The console: the case queue, the case page and its actions, the report flow with its confirm
page (four-eyes included), merge and open-by-hand, and read-only filing records with downloads."""

import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from filings.models import Case, CaseEvent, FilingRecord
from organizations.models import Membership
from tests.filings.conftest import ingest_fiat, make_alert, open_case, review, with_filer
from webhooks.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def case(org, onboard, priced):
    with_filer(org, "US")
    return open_case(onboard("US", legal_name="Zoë Ångström", entity_type="individual"), transactions=3)


def page(client, case, rest=""):
    return client.get(f"/admin/filings/case/{case.pk}/change/{rest}")


def staff_member(make_user, org, role, email):
    user = make_user(email)
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    Membership.objects.create(organization=org, user=user, role=role)
    client = Client()
    client.force_login(user)
    return user, client


def form_json(response) -> dict:
    text = re.search(r'<textarea name="form_data"[^>]*>(.*?)</textarea>', response.content.decode(), re.S).group(1)
    import html

    return json.loads(html.unescape(text))


class TestQueue:
    def test_default_queue_filters_and_overdue(self, admin_client, org, onboard, case, admin_user):
        closed = open_case(onboard("US"))
        Case.objects.filter(pk=closed.pk).update(status="closed")
        Case.objects.filter(pk=case.pk).update(sla_due_at=timezone.now() - timedelta(hours=1))
        queue = admin_client.get("/admin/filings/case/").content.decode()
        assert case.reference in queue and "(overdue)" in queue and closed.reference not in queue
        assert closed.reference in admin_client.get("/admin/filings/case/?queue=closed").content.decode()
        assert case.reference in admin_client.get("/admin/filings/case/?queue=overdue").content.decode()
        assert case.reference in admin_client.get("/admin/filings/case/?queue=unassigned").content.decode()
        assert case.reference not in admin_client.get("/admin/filings/case/?queue=mine").content.decode()
        Case.objects.filter(pk=case.pk).update(assigned_to=admin_user)
        assert case.reference in admin_client.get("/admin/filings/case/?queue=mine").content.decode()
        assert case.reference in admin_client.get("/admin/filings/case/?status=open&queue=all").content.decode()

    def test_the_soonest_due_comes_first(self, admin_client, onboard, case):
        """Not the newest first: a case opened later but due sooner (overdue) leads the queue."""
        later = open_case(onboard("US"))
        Case.objects.filter(pk=later.pk).update(sla_due_at=timezone.now() + timedelta(days=20))
        Case.objects.filter(pk=case.pk).update(sla_due_at=timezone.now() - timedelta(hours=1))
        queue = admin_client.get("/admin/filings/case/").content.decode()
        assert queue.index(case.reference) < queue.index(later.reference)

    def test_staff_see_only_their_organizations(self, make_user, other_org, case):
        _, outsider = staff_member(make_user, other_org, "admin", "outsider@globex.example")
        assert case.reference not in outsider.get("/admin/filings/case/?queue=all").content.decode()
        assert page(outsider, case).status_code == 404


class TestCasePage:
    def test_shows_alerts_transactions_timeline(self, admin_client, case):
        body = page(admin_client, case).content.decode()
        alert = case.alerts.get()
        assert alert.rule_name in body and str(alert.transactions.first().tx_hash)[:10] in body
        assert "Timeline" in body and "created" in body and "Zoë Ångström" in body

    def test_assign_status_comment_through_the_services(self, admin_client, org, member, case):
        investigator, _ = member(org, "l2_investigator")
        url = f"/admin/filings/case/{case.pk}/change/"
        admin_client.post(url, {"do": "assign", "assignee": str(investigator.pk)})
        admin_client.post(url, {"do": "comment", "body": "Spoke to the relationship manager."})
        admin_client.post(url, {"do": "status", "status": "investigating", "reason": ""})
        case.refresh_from_db()
        assert case.assigned_to == investigator and case.status == "investigating"
        assert {"case.assigned", "case.status_changed"} <= set(Event.objects.values_list("type", flat=True))
        assert CaseEvent.objects.filter(case=case, kind="comment", body="Spoke to the relationship manager.").exists()
        refused = admin_client.post(url, {"do": "status", "status": "closed", "reason": ""}, follow=True)
        assert "Give a reason" in refused.content.decode() and Case.objects.get(pk=case.pk).status == "investigating"
        illegal = admin_client.post(url, {"do": "status", "status": "open"}, follow=True)
        assert "Select a valid choice" in illegal.content.decode()

    def test_split_and_merge(self, admin_client, org, case):
        second = make_alert(case.entity, severity="high")
        from filings.cases.attach import cases_attach_alerts

        cases_attach_alerts(organization=org, mode="test", alerts=[second])
        admin_client.post(f"/admin/filings/case/{case.pk}/change/", {"do": "split", "alerts": [str(second.pk)], "reason": "Separate"})
        new = Case.objects.exclude(pk=case.pk).get()
        assert list(new.alerts.all()) == [second]
        confirm = admin_client.post("/admin/filings/case/?queue=all", {"action": "merge", "_selected_action": [case.pk, new.pk]})
        assert b"Merge cases" in confirm.content
        admin_client.post("/admin/filings/case/?queue=all", {"action": "merge", "_selected_action": [case.pk, new.pk],
                                                              "apply": "1", "target": str(case.pk), "reason": "Same"})
        new.refresh_from_db()
        assert new.status == "closed" and new.merged_into_id == case.pk and case.alerts.count() == 2

    def test_open_a_case_by_hand(self, admin_client, org, case):
        form = admin_client.get("/admin/filings/case/add/")
        assert form.status_code == 200 and b"Open a case by hand" in form.content
        admin_client.post("/admin/filings/case/add/", {"organization": str(org.pk), "mode": "test", "entity_id": str(case.entity_id),
                                                       "alert_ids": "", "title": "Referral", "reason": "Law enforcement request"})
        manual = Case.objects.get(origin="manual")
        assert manual.title == "Referral" and manual.number == 2


    def test_malformed_ids_are_answered_not_a_500(self, admin_client, org, case):
        admin_client.raise_request_exception = False
        for alert_ids in ("not-an-id", f"{case.alerts.get().pk}, 12"):
            response = admin_client.post("/admin/filings/case/add/", {
                "organization": str(org.pk), "mode": "test", "entity_id": str(case.entity_id), "alert_ids": alert_ids,
                "title": "Referral", "reason": "Law enforcement request"})
            assert response.status_code == 200 and "Not alert ids" in response.content.decode()
        assert list(Case.objects.values_list("pk", flat=True)) == [case.pk] and case.alerts.count() == 1
        assert admin_client.get("/admin/filings/case/not-a-case/change/").status_code == 404
        assert admin_client.post("/admin/filings/case/not-a-case/change/", {"do": "comment", "body": "x"}).status_code == 404
        assert not CaseEvent.objects.filter(kind="comment").exists()


class TestReportFlow:
    def test_draft_preview_validate_confirm_file(self, admin_client, officer, case):
        review(officer, case, validate=False)
        url = f"/admin/filings/case/{case.pk}/report/"
        draft = admin_client.get(url)
        assert draft.status_code == 200 and b"SAR to FinCEN" in draft.content
        data = form_json(draft)
        preview = admin_client.post(url, {"form_data": json.dumps(data), "do": "preview"})
        assert b"EFilingBatchXML" in preview.content and b"Valid." in preview.content
        broken = {**data, "activity": {**data["activity"], "narrative": ""}}
        invalid = admin_client.post(url, {"form_data": json.dumps(broken), "do": "validate"}).content.decode()
        assert "Not valid" in invalid and "activity.narrative" in invalid
        refuse = admin_client.post(url, {"form_data": json.dumps(broken), "do": "file"}).content.decode()
        assert "cannot be filed" in refuse and "Yes, file it" not in refuse
        confirm = admin_client.post(url, {"form_data": json.dumps(data), "do": "file"}).content.decode()
        assert "Yes, file it" in confirm and "Zoë Ångström" in confirm
        assert not FilingRecord.objects.exists()
        done = admin_client.post(url, {"form_data": json.dumps(data), "do": "confirm"}, follow=True)
        record = FilingRecord.objects.get()
        assert record.tracking_id in done.content.decode() and Case.objects.get(pk=case.pk).filing_status == "filed"
        assert admin_client.post(url, {"form_data": "{not json", "do": "validate"}).status_code == 200

    def test_four_eyes_in_the_console(self, make_user, officer, org, case):
        org.four_eyes_filing = True
        org.save(update_fields=["four_eyes_filing"])
        review(officer, case, include_open=False, validate=False)  # to determination
        alice, alice_client = staff_member(make_user, org, "l3_officer", "alice@acme.example")
        _, bob_client = staff_member(make_user, org, "l3_officer", "bob@acme.example")
        url = f"/admin/filings/case/{case.pk}/report/"
        alice_client.post(url, {"do": "select", "include": [str(case.alerts.get().pk)]})  # Alice prepares what it covers
        data = form_json(alice_client.get(url))
        alice_client.post(url, {"form_data": json.dumps(data), "do": "validate"})
        refused = alice_client.post(url, {"form_data": json.dumps(data), "do": "confirm"}, follow=True).content.decode()
        assert "you prepared this report" in refused and not FilingRecord.objects.exists()
        stored = form_json(bob_client.get(url))
        bob_client.post(url, {"form_data": json.dumps(stored), "do": "confirm"})
        record = FilingRecord.objects.get()
        assert record.prepared_by == alice and record.filed_by_label == "bob@acme.example"
        assert record.selection["choices"] == {str(case.alerts.get().pk): True}  # the console's selection, kept on the filing

    def test_a_viewer_cannot_prepare(self, make_user, org, case):
        _, viewer = staff_member(make_user, org, "viewer", "viewer@acme.example")
        response = viewer.get(f"/admin/filings/case/{case.pk}/report/", follow=True)
        assert "l2_investigator" in response.content.decode()

    def test_filings_are_kept_from_analysts_and_viewers(self, make_user, officer, org, case):
        """As in the API (histories and filings need l2_investigator: a SAR's existence is confidential),
        a viewer or analyst on the console neither lists nor downloads filing records, nor sees them on the case."""
        review(officer, case)
        officer.post(f"/v1/onboarding/cases/{case.pk}/file-sar", {}, format="json")
        record = FilingRecord.objects.get()
        record_url = f"/admin/filings/filingrecord/{record.pk}/"
        _, investigator = staff_member(make_user, org, "l2_investigator", "dana@acme.example")
        assert record.tracking_id in investigator.get("/admin/filings/filingrecord/").content.decode()
        assert investigator.get(f"{record_url}download/").content == bytes(record.document)
        assert record_url in page(investigator, case).content.decode()
        filed_cell = re.compile(r'field-filing_status\w*">filed<', re.IGNORECASE)
        assert filed_cell.search(investigator.get("/admin/filings/case/?queue=all").content.decode())
        for role in ("viewer", "l1_analyst"):
            _, reader = staff_member(make_user, org, role, f"{role}@acme.example")
            assert record.tracking_id not in reader.get("/admin/filings/filingrecord/").content.decode()
            assert reader.get(f"{record_url}download/").status_code == 404
            assert reader.get(f"{record_url}change/").status_code == 403  # cleared nowhere: not even the list
            case_page = page(reader, case).content.decode()
            assert record_url not in case_page and "report_filed" not in case_page and "filing status" not in case_page.lower()
            queue = reader.get("/admin/filings/case/?queue=all").content.decode()
            assert case.reference in queue and not filed_cell.search(queue)
            assert case.reference not in reader.get("/admin/filings/case/?queue=all&filing_status=filed").content.decode()

    def test_large_transaction_report_from_the_case(self, admin_client, officer, org, onboard, priced):
        with_filer(org, "US")
        entity = onboard("US")
        ingest_fiat(officer, entity, amounts=["12000"], event_type="wire_in")
        from filings.cases.attach import cases_attach_alerts
        from monitoring.models import Alert

        alert = Alert.objects.get(entity=entity, rule_code="large_fiat_transaction")
        cases_attach_alerts(organization=org, mode="test", alerts=Alert.objects.filter(entity=entity))  # idempotent
        case = Case.objects.get(alert_links__alert=alert)  # monitoring attached it when the alert opened
        assert f"/ctr/{alert.pk}/" in page(admin_client, case).content.decode()
        url = f"/admin/filings/case/{case.pk}/ctr/{alert.pk}/"
        data = form_json(admin_client.get(url))
        admin_client.post(url, {"form_data": json.dumps(data), "do": "confirm"})
        record = FilingRecord.objects.get()
        assert record.kind == "CTR" and record.alert_id == alert.pk
        assert Case.objects.get(pk=case.pk).status == "open"  # a CTR does not decide the case


class TestFilingRecords:
    def test_read_only_with_downloads(self, admin_client, officer, case):
        review(officer, case)
        officer.post(f"/v1/onboarding/cases/{case.pk}/file-sar", {}, format="json")
        record = FilingRecord.objects.get()
        listing = admin_client.get("/admin/filings/filingrecord/").content.decode()
        assert record.tracking_id in listing
        detail = admin_client.get(f"/admin/filings/filingrecord/{record.pk}/change/").content.decode()
        assert record.filename in detail and "Save" not in detail
        assert "did not apply; the organization&#x27;s setting: default" in detail and "covered: " in detail  # four eyes, coverage
        document = admin_client.get(f"/admin/filings/filingrecord/{record.pk}/download/")
        assert document.status_code == 200 and document.content == bytes(record.document)
        assert document["Content-Type"] == "application/xml"
        name = next(iter(record.attachments))
        csv = admin_client.get(f"/admin/filings/filingrecord/{record.pk}/download/{name}/")
        assert csv.status_code == 200 and csv.content.startswith(b"reference,")
        assert admin_client.get(f"/admin/filings/filingrecord/{record.pk}/download/nope.csv/").status_code == 404
        assert admin_client.post(f"/admin/filings/filingrecord/{record.pk}/delete/").status_code == 403
