"""Cases under /v1/onboarding: list, detail, assign, comment — roles, tenancy, bodies, stored state."""

import pytest

from common.models import AuditLogEntry
from filings.models import Case, CaseEvent, FilingRecord
from monitoring.models import Notification
from tests.filings.conftest import BASE, make_alert, open_case, review, with_filer
from webhooks.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def entity(onboard):
    return onboard()


@pytest.fixture
def case(entity):
    return open_case(entity, transactions=3)


def cases_url(entity, rest=""):
    return f"{BASE}/entities/{entity.pk}/cases{rest}"


class TestList:
    def test_lists_the_entitys_cases_with_status_filter_and_limits(self, officer, entity, case):
        body = officer.get(cases_url(entity)).json()
        assert body["total"] == 1 and body["limit"] == 20 and body["has_more"] is False
        listed = body["data"][0]
        assert listed["id"] == str(case.pk) and listed["reference"] == "CASE-000001" and listed["alert_count"] == 1
        assert listed["status"] == "open" and listed["allowed_transitions"] == ["investigating", "closed"]
        assert listed["deadline"]["basis"].startswith("31 CFR 1020.320(b)(3)") and listed["deadline"]["days_remaining"] == 30
        assert officer.get(cases_url(entity, "?status=closed")).json()["total"] == 0
        assert officer.get(cases_url(entity, "?status=open")).json()["total"] == 1
        assert officer.get(cases_url(entity, "?status=bogus")).status_code == 422
        assert officer.get(cases_url(entity, "?limit=100")).status_code == 200
        assert officer.get(cases_url(entity, "?limit=101")).status_code == 422
        assert officer.get(cases_url(entity, "?offset=-1")).status_code == 422

    def test_anonymous_other_tenant_other_mode(self, api, key, org, other_org, entity, case):
        assert api().get(cases_url(entity)).status_code == 401
        assert api(key(other_org)).get(cases_url(entity)).status_code == 404
        assert api(key(other_org)).get(cases_url(entity, f"/{case.pk}")).status_code == 404
        assert api(key(org, mode="live")).get(cases_url(entity, f"/{case.pk}")).status_code == 404
        assert api(key(org, role="viewer")).get(cases_url(entity)).status_code == 200


class TestDetail:
    def test_alerts_transactions_and_timeline(self, officer, entity, case):
        officer.post(f"{BASE}/cases/{case.pk}/comment", {"body": "Looked at the wallets."}, format="json")
        body = officer.get(cases_url(entity, f"/{case.pk}")).json()
        assert [a["id"] for a in body["alerts"]] == [str(a.pk) for a in case.alerts.all()]
        assert body["transaction_count"] == 3 and len(body["transactions"]) == 3 and body["fiat_event_count"] == 0
        assert [t["direction"] for t in body["transactions"]] == ["in", "in", "in"]
        assert [e["kind"] for e in body["events"]] == ["created", "comment"]
        assert body["events"][1]["body"] == "Looked at the wallets." and body["events"][1]["actor"].startswith("api_key:")
        assert body["filings"] == []

    def test_reports_are_kept_from_analysts_and_viewers(self, api, key, org, officer, priced, onboard):
        """The existence of a SAR is confidential (31 CFR 1020.320(e)): below l2_investigator, as for the
        filing histories (403), the case shows no filing records, no draft or filing steps, no filing status."""
        with_filer(org, "US")
        entity = onboard("US", legal_name="Zoë Ångström", entity_type="individual")
        case = open_case(entity, transactions=2)
        review(officer, case)
        assert officer.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json").status_code == 200
        record = FilingRecord.objects.get(case=case)
        investigator = officer.get(cases_url(entity, f"/{case.pk}")).json()
        assert [f["id"] for f in investigator["filings"]] == [str(record.pk)] and investigator["filing_status"] == "filed"
        assert "report_filed" in [e["kind"] for e in investigator["events"]]
        for role in ("viewer", "l1_analyst"):
            reader = api(key(org, role=role))
            assert reader.get(f"{BASE}/entities/{entity.pk}/sar-history").status_code == 403
            body = reader.get(cases_url(entity, f"/{case.pk}")).json()
            assert body["filings"] == [] and body["filing_status"] is None, role
            assert not {"report_filed", "draft_saved"} & {e["kind"] for e in body["events"]}, role
            assert str(record.pk) not in str(body) and record.tracking_id not in str(body)  # not in the reason or the notes either
            assert not any("SAR" in (e["body"] or "") for e in body["events"]), role
            alerts = reader.get(f"/v1/onboarding/entities/{entity.pk}/alerts").json()
            assert alerts["data"] and record.tracking_id not in str(alerts) and "SAR" not in str(alerts), role
            assert reader.get(cases_url(entity)).json()["data"][0]["filing_status"] is None
        assert Case.objects.get(pk=case.pk).filing_status == "filed"  # stored as it was: only the reading changes

    def test_case_of_another_entity_is_404(self, officer, onboard, case):
        other = onboard()
        assert officer.get(cases_url(other, f"/{case.pk}")).status_code == 404


class TestAssign:
    def test_assigns_a_member_notifies_and_emits(self, api, key, org, member, case):
        investigator, _ = member(org, "l2_investigator")
        client = api(key(org, role="l2_investigator"))
        response = client.post(f"{BASE}/cases/{case.pk}/assign", {"assignee_id": str(investigator.pk)}, format="json")
        assert response.status_code == 200, response.json()
        body = response.json()
        assert body["assigned_to"] == str(investigator.pk) and body["assigned_to_email"] == investigator.email
        event = Event.objects.get(type="case.assigned")
        assert set(event.data) == {"case_id", "entity_id", "assigned_to", "previous_assignee", "assigned_by", "assigned_at"}
        assert event.data["assigned_to"] == str(investigator.pk) and event.data["previous_assignee"] is None
        notification = Notification.objects.get(type="case_assigned")
        assert notification.case_id == case.pk and notification.entity_id == case.entity_id
        assert CaseEvent.objects.filter(case=case, kind="assigned").count() == 1
        assert AuditLogEntry.objects.filter(action="case.assigned", object_id=str(case.pk)).exists()
        again = client.post(f"{BASE}/cases/{case.pk}/assign", {"assignee_id": str(investigator.pk)}, format="json")
        assert again.status_code == 200 and Event.objects.filter(type="case.assigned").count() == 1

    def test_refusals(self, api, key, org, other_org, member, make_user, case):
        outsider, _ = member(other_org, "l3_officer")
        viewer, _ = member(org, "viewer")
        client = api(key(org, role="admin"))
        url = f"{BASE}/cases/{case.pk}/assign"
        assert api(key(org, role="l1_analyst")).post(url, {"assignee_id": str(viewer.pk)}, format="json").status_code == 403
        for who in (outsider, make_user()):
            response = client.post(url, {"assignee_id": str(who.pk)}, format="json")
            assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "assignee_id"
        assert client.post(url, {"assignee_id": str(viewer.pk)}, format="json").status_code == 422  # too low to investigate
        assert client.post(url, {"assignee_id": "nope"}, format="json").status_code == 422
        assert client.post(url, {"assignee_id": str(viewer.pk), "extra": 1}, format="json").status_code == 422
        assert client.post(url, [1], format="json").status_code == 400
        assert api(key(other_org, role="admin")).post(url, {"assignee_id": str(outsider.pk)}, format="json").status_code == 404
        assert Case.objects.get(pk=case.pk).assigned_to_id is None


class TestComment:
    def test_comment_is_a_case_event(self, api, key, org, case):
        response = api(key(org, role="l1_analyst")).post(f"{BASE}/cases/{case.pk}/comment", {"body": " Called the customer. "},
                                                        format="json")
        assert response.status_code == 200
        body = response.json()
        assert body["kind"] == "comment" and body["body"] == "Called the customer." and body["case_id"] == str(case.pk)
        assert set(body) == {"id", "case_id", "kind", "actor", "actor_id", "body", "data", "created_at"}

    def test_refusals(self, api, key, org, other_org, case):
        url = f"{BASE}/cases/{case.pk}/comment"
        assert api(key(org, role="viewer")).post(url, {"body": "x"}, format="json").status_code == 403
        assert api(key(org)).post(url, {"body": "   "}, format="json").status_code == 422
        assert api(key(org)).post(url, {}, format="json").status_code == 422
        assert api(key(org)).post(url, {"body": "x" * 10_001}, format="json").status_code == 422
        assert api(key(other_org)).post(url, {"body": "x"}, format="json").status_code == 404
        assert not CaseEvent.objects.filter(kind="comment").exists()


def test_unknown_case_ids_are_404(officer):
    for rest in ("assign", "status", "comment", "sar-draft", "ai-summary"):
        method = officer.get if rest in ("sar-draft", "ai-summary") else officer.post
        assert method(f"{BASE}/cases/00000000-0000-0000-0000-000000000000/{rest}", {}, format="json").status_code in (404, 422)
    assert officer.get(f"{BASE}/cases/not-a-uuid/sar-draft").status_code == 404


def test_alerts_of_two_entities_open_two_cases(org, onboard):
    from filings.cases.attach import cases_attach_alerts

    first, second = onboard(), onboard()
    alerts = [make_alert(first), make_alert(second), make_alert(first)]
    attached = cases_attach_alerts(organization=org, mode="test", alerts=alerts)
    assert len(set(attached.values())) == 2 and Case.objects.count() == 2
    assert sorted(Case.objects.values_list("number", flat=True)) == [1, 2]
    assert Event.objects.filter(type="case.created").count() == 2
    assert cases_attach_alerts(organization=org, mode="test", alerts=alerts) == {}  # idempotent
