"""Peer group, related entities, activity feed, audit trail and the global search."""

import pytest

from onboarding.interfaces import search as search_registry
from onboarding.interfaces.search import SearchResult, register_searcher
from tests.onboarding.helpers import COMPANY, PERSON, entity_url, onboard, screened

pytestmark = pytest.mark.django_db
URL = "/v1/onboarding/entities"


@pytest.fixture
def client(api, org, key):
    return api(key(org, role="l2_investigator"))


def create(client, body=COMPANY, **overrides):
    response = client.post(URL, {**body, **overrides}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


class TestPeerGroup:
    def test_null_without_peers(self, client):
        entity = create(client)
        response = client.get(entity_url(entity, "peer-group"))
        assert response.status_code == 200 and response.json() is None

    def test_peers_share_type_industry_and_jurisdiction(self, client):
        entity = create(client)
        create(client, legal_name="Peer One", industry="Software")
        create(client, legal_name="Peer Two")
        create(client, legal_name="Elsewhere", jurisdiction="GB")
        create(client, PERSON, legal_name="A Person", jurisdiction="US", industry="software")
        body = client.get(entity_url(entity, "peer-group")).json()
        assert body["peer_count"] == 2 and body["criteria"] == {"entity_type": "business", "industry": "software", "jurisdiction": "US"}
        assert body["risk_score"]["entity"] == entity["risk_score"] and body["risk_score"]["peer_mean"] is not None
        assert body["volume_usd"] is None and body["transaction_count"] is None and body["window_days"] == 30


class TestRelated:
    def test_reasons(self, client):
        owner = {"name": "Ana Lima", "date_of_birth": "1980-02-03", "nationality": "BR"}
        entity = create(client, tax_id="12-3456789", ubos=[owner])
        same_owner = create(client, legal_name="Lima Ventures", industry="retail", ubos=[{**owner, "name": "LIMA, Ana"}])
        same_tax = create(client, legal_name="Tax Twin", industry="retail", tax_id="123456789")
        cluster = create(client, legal_name="Cluster Co")
        create(client, legal_name="Unrelated", jurisdiction="FR", industry="retail",
               ubos=[{**owner, "date_of_birth": "1981-02-03"}])
        related = client.get(entity_url(entity, "related")).json()
        reasons = {r["entity_id"]: [x["type"] for x in r["reasons"]] for r in related}
        assert reasons == {same_tax["id"]: ["shared_tax_id"], same_owner["id"]: ["shared_ubo"], cluster["id"]: ["jurisdiction_cluster"]}
        assert [r["entity_id"] for r in related] == [same_tax["id"], same_owner["id"], cluster["id"]]


class TestActivityAndAudit:
    def test_feed_is_chronological_and_limited(self, client, django_capture_on_commit_callbacks):
        entity = onboard(client, django_capture_on_commit_callbacks, wallets=[{"chain_id": 0, "address": "acct-9"}])
        screened(entity)
        client.post(entity_url(entity, "approve"), {"notes": "ok"}, format="json")
        feed = client.get(entity_url(entity, "activity")).json()
        types = [item["type"] for item in feed]
        assert types[0] in ("entity.created", "wallet.added", "risk.changed") and "status.changed" in types
        assert "check.recorded" in types and [i["at"] for i in feed] == sorted(i["at"] for i in feed)
        last_two = client.get(entity_url(entity, "activity"), {"limit": 2}).json()
        assert [i["at"] for i in last_two] == [i["at"] for i in feed[-2:]]
        assert client.get(entity_url(entity, "activity"), {"limit": 201}).status_code == 422

    def test_audit_trail(self, client, api, other_org, key):
        entity = create(client)
        client.post(entity_url(entity, "reject"), {"reason": "incomplete KYB"}, format="json")
        audit = client.get(entity_url(entity, "audit")).json()
        actions = [row["action"] for row in audit]
        assert "entity.created" in actions and actions.index("entity.reject") < actions.index("entity.created")  # newest first
        reject = next(row for row in audit if row["action"] == "entity.reject")
        assert reject["before"]["status"] == "pending" and reject["after"]["status"] == "rejected" and reject["actor_type"] == "api_key"
        assert api().get(entity_url(entity, "audit")).status_code == 401
        assert api(key(other_org)).get(entity_url(entity, "audit")).status_code == 404
        assert client.get(entity_url(entity, "audit"), {"limit": 501}).status_code == 422


class TestSearch:
    def test_finds_entities_by_name_reference_and_wallet(self, client):
        harbor = create(client, external_id="cust-42", wallets=[{"chain_id": 1, "address": "0x" + "cd" * 20}])
        create(client, legal_name="Harbor Lights Inc")
        create(client, legal_name="Zephyr")
        by_name = client.get("/v1/onboarding/search", {"q": "harbor"}).json()
        titles = [r["title"] for r in by_name["results"]]
        assert by_name["types"][0] == "entity" and titles == ["Harbor Lights Inc", "Blue Harbor Trading LLC"]  # prefix first
        assert client.get("/v1/onboarding/search", {"q": "Harbor Lights Inc"}).json()["results"][0]["title"] == "Harbor Lights Inc"
        assert client.get("/v1/onboarding/search", {"q": "cust-42"}).json()["results"][0]["id"] == harbor["id"]
        assert client.get("/v1/onboarding/search", {"q": "0x" + "CD" * 20}).json()["results"][0]["id"] == harbor["id"]
        assert len(client.get("/v1/onboarding/search", {"q": "ar", "limit": 1}).json()["results"]) == 1

    def test_other_types_join_through_the_registry(self, client, monkeypatch):
        monkeypatch.setattr(search_registry, "_searchers", dict(search_registry._searchers))
        register_searcher("alert", lambda **kw: [SearchResult("alert", "a-1", f"Alert about {kw['q']}")])
        body = client.get("/v1/onboarding/search", {"q": "zz"}).json()
        assert body["types"][0] == "entity" and "alert" in body["types"]
        assert [r["id"] for r in body["results"] if r["type"] == "alert"] == ["a-1"]

    @pytest.mark.parametrize("query", [{}, {"q": "a"}, {"q": "x" * 201}, {"q": "ab", "limit": 21}, {"q": "ab", "limit": 0}])
    def test_bad_queries(self, client, query):
        assert client.get("/v1/onboarding/search", query).status_code == 422

    def test_tenancy_and_auth(self, client, api, other_org, key):
        create(client)
        assert api().get("/v1/onboarding/search", {"q": "harbor"}).status_code == 401
        assert api(key(other_org)).get("/v1/onboarding/search", {"q": "harbor"}).json()["results"] == []
