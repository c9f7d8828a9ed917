"""Compliance checks (list, detail), screening hits, PEP and adverse media through a real HTTP provider
on loopback, and external screening results (POST /v1/monitoring/screening)."""

import pytest

from compliance.models import OnchainStatusUpdate
from onboarding.models import ComplianceCheck, Entity
from tests.onboarding.helpers import COMPANY, PERSON, entity_url, onboard, screened
from tests.onboarding.loopback import LoopbackServer
from webhooks.models import Event

pytestmark = pytest.mark.django_db
SCREENING_URL = "/v1/monitoring/screening"
ARTICLE = {"title": "Harbor director charged with fraud", "url": "https://news.example/a1", "source": "Example News",
           "published_at": "2026-10-01", "snippet": "...", "categories": ["fraud", "financial_crime"], "score": 0.93}


@pytest.fixture
def client(api, org, key):
    return api(key(org, role="l2_investigator"))


@pytest.fixture
def provider(settings):
    """A screening provider on loopback: PEP matches for 'Minister', articles for 'Harbor'."""
    def reply(body):
        name = body["subject"]["name"]
        if "Broken" in name:
            return 503, {"error": "down"}
        if body["check_type"] == "pep":
            matches = [{"name": name, "score": 0.97, "position": "Minister"}] if "Minister" in name else []
            return 200, {"reference": "p-1", "matches": matches}
        return 200, {"reference": "a-1", "articles": [ARTICLE] if "Harbor" in name else []}

    with LoopbackServer(reply) as server:
        settings.SCREENING_PROVIDER_URL = server.url + "/screen"
        settings.SCREENING_PROVIDER_KEY = "prov-secret"
        settings.SCREENING_PROVIDER_NAME = "loopback"
        yield server


def checks(entity, **filters):
    return ComplianceCheck.objects.filter(entity_id=entity["id"], **filters).order_by("-created_at", "-id")


class TestProviderChecks:
    def test_not_configured_is_recorded_not_passed(self, client, django_capture_on_commit_callbacks, settings):
        settings.SCREENING_PROVIDER_URL = ""
        entity = onboard(client, django_capture_on_commit_callbacks)
        for check_type in ("pep", "adverse_media"):
            check = checks(entity, check_type=check_type).get()
            assert check.result == "not_configured" and "not screened" in check.summary
        media = client.get(entity_url(entity, "adverse-media")).json()
        assert media["status"] == "not_configured" and media["articles"] == []

    def test_pep_and_adverse_media_through_the_http_provider(self, client, django_capture_on_commit_callbacks, provider):
        entity = onboard(client, django_capture_on_commit_callbacks, COMPANY, legal_name="Harbor Minister Holdings",
                         ubos=[{"name": "Ana Lima", "date_of_birth": "1980-02-03", "nationality": "BR"}])
        sent = [r["body"] for r in provider.requests]
        assert {(b["check_type"], b["subject"]["name"]) for b in sent} == {
            ("pep", "Harbor Minister Holdings"), ("pep", "Ana Lima"),
            ("adverse_media", "Harbor Minister Holdings"), ("adverse_media", "Ana Lima")}
        assert provider.requests[0]["headers"]["Authorization"] == "Bearer prov-secret"
        assert {"name": "Ana Lima", "entity_type": "individual", "date_of_birth": "1980-02-03", "country": "BR"} in [
            b["subject"] for b in sent]
        pep = checks(entity, check_type="pep").get()
        assert pep.result == "review" and pep.provider == "loopback" and pep.details["matches"][0]["position"] == "Minister"
        media = checks(entity, check_type="adverse_media").get()
        assert media.result == "review" and media.raw_response["entity"]["reference"] == "a-1"
        stored = Entity.objects.get(pk=entity["id"])
        assert stored.pep and stored.adverse_media
        event = Event.objects.get(type="adverse_media.detected")
        assert event.data["article_count"] == 1 and event.data["categories"] == ["financial_crime", "fraud"]

        body = client.get(entity_url(entity, "adverse-media")).json()
        assert body["status"] == "found" and body["article_count"] == 1 and body["articles"][0]["title"] == ARTICLE["title"]
        assert body["articles"][0]["subject"] == "entity" and body["provider"] == "loopback"

    def test_refresh_runs_a_new_check(self, client, django_capture_on_commit_callbacks, provider, api, org, other_org, key):
        entity = onboard(client, django_capture_on_commit_callbacks, legal_name="Jane Harbor")
        before = checks(entity, check_type="adverse_media").count()
        url = entity_url(entity, "adverse-media/refresh")
        assert api().post(url).status_code == 401
        assert api(key(org, role="viewer")).post(url).status_code == 403
        assert api(key(other_org)).post(url).status_code == 404
        response = api(key(org, role="l1_analyst")).post(url)
        assert response.status_code == 200 and response.json()["status"] == "found"
        assert checks(entity, check_type="adverse_media").count() == before + 1

    def test_a_failing_provider_is_an_error(self, client, django_capture_on_commit_callbacks, provider):
        entity = onboard(client, django_capture_on_commit_callbacks, legal_name="Broken Person")
        check = checks(entity, check_type="pep").get()
        assert check.result == "error" and "HTTP 503" in check.details["subjects"][0]["error"]
        assert client.get(entity_url(entity, "adverse-media")).json()["status"] == "error"


class TestCheckList:
    def test_list_filters_and_detail(self, client, django_capture_on_commit_callbacks, settings):
        settings.SCREENING_PROVIDER_URL = ""
        entity = onboard(client, django_capture_on_commit_callbacks)
        listed = client.get(entity_url(entity, "compliance-checks")).json()
        assert listed["total"] == 3 and listed["limit"] == 50
        assert {c["check_type"] for c in listed["data"]} == {"sanctions", "pep", "adverse_media"}
        assert "raw_response" not in listed["data"][0]
        only = client.get(entity_url(entity, "compliance-checks"), {"check_type": "pep", "result": "not_configured"}).json()
        assert [c["check_type"] for c in only["data"]] == ["pep"]
        detail = client.get(entity_url(entity, f"compliance-checks/{only['data'][0]['id']}")).json()
        assert detail["details"] == {"reason": "not_configured"} and "raw_response" in detail

    @pytest.mark.parametrize("query", [{"limit": 501}, {"limit": 0}, {"check_type": "dna"}, {"result": "maybe"}, {"offset": -1}])
    def test_bad_queries_are_422(self, client, query):
        entity = client.post("/v1/onboarding/entities", PERSON, format="json").json()
        assert client.get(entity_url(entity, "compliance-checks"), query).status_code == 422

    def test_roles_and_tenancy(self, client, api, org, other_org, key):
        entity = client.post("/v1/onboarding/entities", PERSON, format="json").json()
        url = entity_url(entity, "compliance-checks")
        assert api().get(url).status_code == 401
        assert api(key(other_org)).get(url).status_code == 404
        assert api(key(org, mode="live")).get(url).status_code == 404
        assert api(key(org, role="viewer")).get(url).status_code == 200
        assert client.get(entity_url(entity, "compliance-checks/00000000-0000-0000-0000-000000000000")).status_code == 404
        assert client.get(entity_url(entity, "screening-hits")).json()["data"] == []


class TestExternalScreening:
    def body(self, entity, **overrides):
        return {"entity_id": entity["id"], "check_type": "sanctions", "provider": "ClientCo", "result": "fail", "score": 0.98,
                "details": {"list": "EU"}, **overrides}

    def test_stored_without_touching_status_by_default(self, client):
        entity = client.post("/v1/onboarding/entities", {**PERSON, "wallets": [{"chain_id": 1, "address": "0x" + "ab" * 20}]},
                             format="json").json()
        response = client.post(SCREENING_URL, self.body(entity), format="json")
        assert response.status_code == 200
        body = response.json()
        assert body == {"id": body["id"], "entity_id": entity["id"], "check_type": "sanctions", "result": "fail",
                        "compliance_status_updated": False}
        check = ComplianceCheck.objects.get(pk=body["id"])
        assert check.external and not check.counts_toward_status and check.raw_response["details"] == {"list": "EU"}
        assert not Entity.objects.get(pk=entity["id"]).sanctioned and not OnchainStatusUpdate.objects.exists()

    def test_update_compliance_status_recomputes_flags_and_writes_onchain_rows(self, client):
        entity = client.post("/v1/onboarding/entities", {**PERSON, "wallets": [
            {"chain_id": 1, "address": "0x" + "ab" * 20}, {"chain_id": 0, "address": "acct-1"}]}, format="json").json()
        response = client.post(SCREENING_URL, self.body(entity, update_compliance_status=True), format="json")
        assert response.json()["compliance_status_updated"] is True
        stored = Entity.objects.get(pk=entity["id"])
        assert stored.sanctioned and stored.status == "under_review" and stored.risk_tier == "critical"
        rows = OnchainStatusUpdate.objects.filter(entity=stored).order_by("created_at", "id")
        assert [(r.chain_id, r.address, r.flagged, r.status) for r in rows] == [
            (1, "0x" + "ab" * 20, True, "pending"), (0, "acct-1", True, "pending")]
        status = client.get(f"/v1/compliance/status/{entity['id']}").json()
        assert status["flags"]["sanctioned"] and not status["compliant"]
        cleared = client.post(SCREENING_URL, self.body(entity, result="pass", score=0.1, update_compliance_status=True), format="json")
        assert cleared.status_code == 200 and not Entity.objects.get(pk=entity["id"]).sanctioned

    @pytest.mark.parametrize("result", ["review", "fail"])
    def test_approval_waits_for_a_decision_on_the_providers_finding(self, client, result):
        """The provider's possible match (review) or match (fail), counted toward the status, holds the
        approval as a built-in match does; the reviewed outcome recorded as pass lets it through."""
        entity = client.post("/v1/onboarding/entities", PERSON, format="json").json()
        screened(entity)
        client.post(SCREENING_URL, self.body(entity, result=result, update_compliance_status=True), format="json")
        refused = client.post(entity_url(entity, "approve"), {}, format="json")
        assert refused.status_code == 409
        message = refused.json()["error"]["message"]
        assert message.startswith("Your provider's sanctions screening (ClientCo, ") and f"({result})" in message and "reject" in message
        assert Entity.objects.get(pk=entity["id"]).status == "under_review"
        assert client.get(f"/v1/compliance/status/{entity['id']}").json()["compliant"] is False
        client.post(SCREENING_URL, self.body(entity, result="pass", score=0.1, update_compliance_status=True), format="json")
        approved = client.post(entity_url(entity, "approve"), {}, format="json")
        assert approved.status_code == 200 and approved.json()["status"] == "active"
        assert client.get(f"/v1/compliance/status/{entity['id']}").json()["compliant"] is True

    @pytest.mark.parametrize("change, field", [
        ({"check_type": "dna"}, "check_type"), ({"result": "not_configured"}, "result"), ({"score": 1.5}, "score"),
        ({"entity_id": "nope"}, "entity_id"), ({"provider": ""}, "provider"), ({"details": [1]}, "details"),
        ({"extra": 1}, "extra"), ({"update_compliance_status": "maybe"}, "update_compliance_status"),
        ({"details": {"note": "a\x00b"}}, "details"),
    ])
    def test_bad_input_is_422(self, client, change, field):
        entity = client.post("/v1/onboarding/entities", PERSON, format="json").json()
        response = client.post(SCREENING_URL, self.body(entity, **change), format="json")
        assert response.status_code == 422 and field in {d["field"] for d in response.json()["error"]["details"]}
        assert not ComplianceCheck.objects.filter(external=True).exists()

    def test_roles_and_tenancy(self, client, api, org, other_org, key):
        entity = client.post("/v1/onboarding/entities", PERSON, format="json").json()
        assert api().post(SCREENING_URL, self.body(entity), format="json").status_code == 401
        assert api(key(org, role="viewer")).post(SCREENING_URL, self.body(entity), format="json").status_code == 403
        assert api(key(other_org)).post(SCREENING_URL, self.body(entity), format="json").status_code == 404
        assert api(key(org, role="l1_analyst")).post(SCREENING_URL, self.body(entity), format="json").status_code == 200
