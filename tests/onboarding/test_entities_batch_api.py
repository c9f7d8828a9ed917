"""POST /v1/onboarding/entities/batch: up to 1,000 entities with their wallets, all or nothing,
every item's problems reported together; each entity screened as a single onboarding is."""

import pytest

from common.models import AuditLogEntry
from onboarding.models import BeneficialOwner, Entity, Wallet
from tests.onboarding.test_entities_api import BUSINESS, EVM, URL

pytestmark = pytest.mark.django_db
BATCH = f"{URL}/batch"


def person(n: int, **extra) -> dict:
    return {"legal_name": f"Person {n}", "entity_type": "individual", "jurisdiction": "US", "external_id": f"p-{n}",
            "wallets": [{"chain_id": 0, "address": f"acct-{n}"}], **extra}


@pytest.fixture
def client(api, org, key):
    return api(key(org, role="l1_analyst"))


class TestBatch:
    def test_creates_every_entity_with_wallets_owners_audit_risk_and_screening(self, client, org, django_capture_on_commit_callbacks):
        items = [BUSINESS, *[person(n) for n in range(3)]]
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            response = client.post(BATCH, {"entities": items}, format="json")
        body = response.json()
        assert response.status_code == 201, body
        assert body["created"] == 4 and [row["external_id"] for row in body["data"]] == ["cust-1", "p-0", "p-1", "p-2"]
        first = body["data"][0]
        assert first["status"] == "pending" and first["risk_tier"] and [w["address"] for w in first["wallets"]] == [EVM.lower(), "acct-778"]
        stored = Entity.objects.filter(organization=org, mode="test")
        assert stored.count() == 4 and Wallet.objects.filter(organization=org).count() == 5
        assert BeneficialOwner.objects.filter(entity__external_id="cust-1").count() == 1
        assert all(entity.risk_score is not None for entity in stored)
        assert AuditLogEntry.objects.filter(action="entity.created").count() == 4
        screened = [callback for callback in callbacks if "screen_entity" in repr(callback)]
        assert len(screened) == 4  # one screening per entity, as a single onboarding enqueues

    def test_all_or_nothing_with_every_items_errors(self, client, org):
        client.post(URL, {**BUSINESS, "wallets": [{"chain_id": 0, "address": "acct-taken"}]}, format="json")
        items = [
            person(0),
            person(1, external_id="cust-1"),  # taken by the stored entity
            person(2, jurisdiction="XX"),  # a field the serializer refuses
            person(3, external_id="p-0"),  # given twice in the batch
            person(4, wallets=[{"chain_id": 0, "address": "acct-taken"}]),  # wallet registered already
            person(5, wallets=[{"chain_id": 1, "address": "0x1234"}]),  # not an address
            person(6, wallets=[{"chain_id": 0, "address": "acct-0"}]),  # wallet given twice in the batch
        ]
        response = client.post(BATCH, {"entities": items}, format="json")
        assert response.status_code == 422
        fields = [detail["field"] for detail in response.json()["error"]["details"]]
        assert fields == ["entities.2.jurisdiction"]  # the request's shape first, as for a single onboarding
        items[2] = person(2)
        response = client.post(BATCH, {"entities": items}, format="json")
        details = response.json()["error"]["details"]
        assert response.status_code == 422
        assert [detail["field"] for detail in details] == [
            "entities.1.external_id", "entities.3.external_id", "entities.4.wallets.0.address", "entities.5.wallets.0.address",
            "entities.6.wallets.0.address"]
        assert "exists already" in details[0]["message"] and "given at entities.0 too" in details[1]["message"]
        assert "registered already" in details[2]["message"] and "entities.0.wallets.0.address" in details[4]["message"]
        assert Entity.objects.filter(organization=org).count() == 1 and Wallet.objects.filter(organization=org).count() == 1
        assert AuditLogEntry.objects.filter(action="entity.created").count() == 1

    @pytest.mark.parametrize("body", [
        {"entities": []}, {"entities": [person(n) for n in range(1001)]}, {}, {"entities": "x"},
        {"entities": [person(n, wallets=[{"chain_id": 0, "address": f"a-{n}-{w}"} for w in range(100)]) for n in range(101)]},
    ])
    def test_size_bounds(self, client, org, body):
        response = client.post(BATCH, body, format="json")
        assert response.status_code == 422 and response.json()["error"]["details"][0]["field"].startswith("entities")
        assert not Entity.objects.exists()

    def test_roles_and_tenancy(self, api, org, other_org, key):
        assert api(key(org, role="viewer")).post(BATCH, {"entities": [person(0)]}, format="json").status_code == 403
        assert api().post(BATCH, {"entities": [person(0)]}, format="json").status_code == 401
        api(key(other_org)).post(BATCH, {"entities": [person(0)]}, format="json")
        response = api(key(org)).post(BATCH, {"entities": [person(0)]}, format="json")  # the same ids in another org: fine
        assert response.status_code == 201
        live = api(key(org, mode="live")).post(BATCH, {"entities": [person(0)]}, format="json")  # and in the other mode
        assert live.status_code == 201
        assert Entity.objects.filter(external_id="p-0").count() == 3
