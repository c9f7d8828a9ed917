"""Compliance status: per entity, per wallet (EVM case-insensitive), and batches with one result per
item in order; constant query counts; roles and tenancy."""

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from onboarding.models import Entity, Wallet
from tests.onboarding.helpers import PERSON, entity_url, screened

pytestmark = pytest.mark.django_db
EVM = "0x52908400098527886E0F7030069857D2E4169EE7"
BATCH = "/v1/compliance/batch/status"
# No on-chain update was written for these wallets (tests/compliance/onchain/test_status_surface.py has the others).
NOT_PUBLISHED = {"state": "not_published", "flagged": None, "version": None, "tx_hash": None, "published_at": None,
                 "confirmed_at": None}


@pytest.fixture
def client(api, org, key):
    return api(key(org, role="l2_investigator"))


@pytest.fixture
def entity(client):
    body = {**PERSON, "wallets": [{"chain_id": 1, "address": EVM, "label": "main"}, {"chain_id": 0, "address": "Acct-7"}]}
    response = client.post("/v1/onboarding/entities", body, format="json")
    assert response.status_code == 201
    return response.json()


def wallet_url(chain_id, address):
    return f"/v1/compliance/status/wallet/{chain_id}/{address}"


class TestEntityStatus:
    def test_pending_entity_is_not_compliant(self, client, entity):
        body = client.get(f"/v1/compliance/status/{entity['id']}").json()
        assert body["entity_id"] == entity["id"] and body["status"] == "pending" and body["compliant"] is False
        assert body["flags"] == {"sanctioned": False, "pep": False, "adverse_media": False, "high_risk": False, "suspended": False}
        assert body["risk_tier"] == "low" and body["updated_at"]
        assert body["wallets"] == [
            {"chain_id": 1, "address": EVM.lower(), "flagged": False, "status": "active", "onchain": NOT_PUBLISHED},
            {"chain_id": 0, "address": "Acct-7", "flagged": False, "status": "active", "onchain": NOT_PUBLISHED}]

    def test_approved_then_suspended(self, client, entity):
        screened(entity)
        client.post(entity_url(entity, "approve"), {}, format="json")
        assert client.get(f"/v1/compliance/status/{entity['id']}").json()["compliant"] is True
        client.post(entity_url(entity, "suspend"), {"reason": "court order"}, format="json")
        body = client.get(f"/v1/compliance/status/{entity['id']}").json()
        assert body["compliant"] is False and body["flags"]["suspended"] is True and body["status"] == "suspended"

    def test_auth_tenancy_and_unknown(self, client, api, org, other_org, key, entity):
        url = f"/v1/compliance/status/{entity['id']}"
        assert api().get(url).status_code == 401
        assert api(key(org, role="viewer")).get(url).status_code == 200
        assert api(key(other_org)).get(url).status_code == 404
        assert api(key(org, mode="live")).get(url).status_code == 404
        assert client.get(f"/v1/compliance/status/{uuid.uuid4()}").status_code == 404
        assert client.get("/v1/compliance/status/not-a-uuid").status_code == 404


class TestWalletStatus:
    def test_evm_lookup_is_case_insensitive_and_lists_that_wallet(self, client, entity):
        for address in (EVM, EVM.lower(), "0x" + EVM[2:].upper()):
            response = client.get(wallet_url(1, address))
            assert response.status_code == 200, address
            body = response.json()
            assert body["entity_id"] == entity["id"] and body["wallets"] == [
                {"chain_id": 1, "address": EVM.lower(), "flagged": False, "status": "active", "onchain": NOT_PUBLISHED}]

    def test_offchain_identifiers_are_exact(self, client, entity):
        assert client.get(wallet_url(0, "Acct-7")).status_code == 200
        assert client.get(wallet_url(0, "acct-7")).status_code == 404

    def test_a_flagged_wallet_is_not_compliant(self, client, entity):
        screened(entity)
        client.post(entity_url(entity, "approve"), {}, format="json")
        Wallet.objects.filter(address=EVM.lower()).update(flagged=True)
        assert client.get(wallet_url(1, EVM)).json()["compliant"] is False
        assert client.get(wallet_url(0, "Acct-7")).json()["compliant"] is True

    def test_unknown_malformed_and_other_tenants(self, client, api, other_org, key, entity):
        assert client.get(wallet_url(1, "0x" + "1" * 40)).status_code == 404
        assert client.get(wallet_url(137, EVM)).status_code == 404
        response = client.get(wallet_url(1, "0x1234"))
        assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "address"
        assert api(key(other_org)).get(wallet_url(1, EVM)).status_code == 404
        assert api().get(wallet_url(1, EVM)).status_code == 401
        assert client.get(wallet_url(0, "acct%00x")).status_code == 422
        assert client.get(wallet_url(2**64, EVM)).status_code == 422
        typo = client.get(wallet_url(1, EVM.replace("EE7", "eE7")))  # the case pattern breaks the EIP-55 checksum
        assert typo.status_code == 422 and "checksum" in typo.json()["error"]["details"][0]["message"]

    def test_one_query(self, client, entity, django_assert_max_num_queries):
        client.get(wallet_url(1, EVM))  # warm the key cache
        with CaptureQueriesContext(connection) as queries:
            assert client.get(wallet_url(1, EVM)).status_code == 200
        lookups = [q["sql"] for q in queries.captured_queries if "onboarding_wallet" in q["sql"]]
        assert len(lookups) == 1


class TestBatch:
    def test_one_result_per_item_in_order(self, client, entity):
        missing = str(uuid.uuid4())
        body = {"wallets": [{"chain_id": 1, "address": EVM.upper().replace("0X", "0x")}, {"chain_id": 5, "address": EVM},
                            {"chain_id": 0, "address": "Acct-7"}],
                "entity_ids": [missing, entity["id"]]}
        response = client.post(BATCH, body, format="json")
        assert response.status_code == 200
        results = response.json()
        assert [r["found"] for r in results] == [True, False, True, False, True]
        assert results[0]["query"] == {"chain_id": 1, "address": EVM.upper().replace("0X", "0x")}
        assert results[0]["entity_id"] == entity["id"] and len(results[0]["wallets"]) == 1
        assert results[1]["entity_id"] is None and results[1]["error"] and results[1]["wallets"] == []
        assert results[3]["query"] == {"entity_id": missing}
        assert results[4]["entity_id"] == entity["id"] and len(results[4]["wallets"]) == 2

    def test_an_address_the_single_look_up_refuses_is_an_item_error(self, client, entity):
        """As GET …/status/wallet/… answers 422 for them (a mixed-case typo failing its checksum, a
        malformed EVM address), their batch items say why instead of being found or 'not registered'."""
        body = {"wallets": [{"chain_id": 1, "address": EVM.replace("EE7", "eE7")}, {"chain_id": 1, "address": "0xzz"},
                            {"chain_id": 1, "address": EVM}]}
        results = client.post(BATCH, body, format="json").json()
        assert [r["found"] for r in results] == [False, False, True]
        assert "checksum" in results[0]["error"] and results[0]["entity_id"] is None
        assert results[1]["error"] == "address: An EVM address is 0x followed by 40 hexadecimal characters."

    def test_a_thousand_items_take_a_constant_number_of_queries(self, client, entity):
        other = Entity.objects.get(pk=entity["id"])
        Wallet.objects.bulk_create([Wallet(organization=other.organization, mode=other.mode, entity=other, chain_id=1,
                                           address=f"0x{index:040x}") for index in range(600)])
        wallets = [{"chain_id": 1, "address": f"0x{index:040x}"} for index in range(0, 1800, 2)]
        body = {"wallets": wallets[:900], "entity_ids": [entity["id"]] * 50 + [str(uuid.uuid4()) for _ in range(50)]}
        client.post(BATCH, {"wallets": [{"chain_id": 1, "address": EVM}]}, format="json")  # warm the key cache
        with CaptureQueriesContext(connection) as queries:
            response = client.post(BATCH, body, format="json")
        assert response.status_code == 200 and len(response.json()) == 1000
        assert sum(r["found"] for r in response.json()) == 300 + 50
        domain = [q for q in queries.captured_queries if "onboarding_" in q["sql"]]
        assert len(domain) == 3

    @pytest.mark.parametrize("body, field", [
        ({}, "wallets"),
        ({"wallets": [{"chain_id": 1, "address": EVM}] * 1001}, "wallets"),
        ({"wallets": [{"chain_id": 1, "address": EVM}] * 600, "entity_ids": [str(uuid.uuid4())] * 401}, "wallets"),
        ({"wallets": [{"chain_id": -1, "address": EVM}]}, "wallets.0.chain_id"),
        ({"wallets": [{"address": EVM}]}, "wallets.0.chain_id"),
        ({"entity_ids": ["nope"]}, "entity_ids.0"),
        ({"wallets": "x"}, "wallets"),
        ({"wallets": [], "other": 1}, "other"),
        ({"wallets": [{"chain_id": 0, "address": "a\x00b"}]}, "wallets.0.address"),
        ({"wallets": [{"chain_id": 2**64, "address": "a"}]}, "wallets.0.chain_id"),
        ({"wallets": [{"chain_id": True, "address": "a"}]}, "wallets.0.chain_id"),
        ({"wallets": ["x"]}, "wallets.0"),
    ])
    def test_bad_input(self, client, body, field):
        response = client.post(BATCH, body, format="json")
        assert response.status_code == 422
        assert field in {d["field"] for d in response.json()["error"]["details"]}

    def test_auth_and_tenancy(self, api, org, other_org, key, entity):
        body = {"wallets": [{"chain_id": 1, "address": EVM}], "entity_ids": [entity["id"]]}
        assert api().post(BATCH, body, format="json").status_code == 401
        assert [r["found"] for r in api(key(other_org)).post(BATCH, body, format="json").json()] == [False, False]
        assert [r["found"] for r in api(key(org, role="viewer")).post(BATCH, body, format="json").json()] == [True, True]
