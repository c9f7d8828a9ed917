"""Wallet registration: chain_id defaults to 0 (off-chain) only for an identifier that cannot be an
EVM address; an EVM address without its chain is refused rather than stored where nothing finds it."""

import pytest

from onboarding.models import Wallet

pytestmark = pytest.mark.django_db
EVM = "0x1111111111111111111111111111111111111111"


@pytest.fixture
def entity(api, org, key):
    client = api(key(org))
    response = client.post("/v1/onboarding/entities", {"legal_name": "Acme", "entity_type": "business", "jurisdiction": "US"},
                           format="json")
    assert response.status_code == 201
    return client, response.json()["id"]


def test_an_evm_address_without_chain_id_is_refused(entity):
    client, entity_id = entity
    response = client.post(f"/v1/onboarding/entities/{entity_id}/wallets", {"address": EVM}, format="json")
    assert response.status_code == 422
    detail = response.json()["error"]["details"][0]
    assert detail["field"] == "chain_id" and "EVM address needs its chain_id" in detail["message"]
    assert not Wallet.objects.filter(entity_id=entity_id).exists()


def test_an_off_chain_identifier_defaults_to_chain_0(entity):
    client, entity_id = entity
    response = client.post(f"/v1/onboarding/entities/{entity_id}/wallets", {"address": "acct-42"}, format="json")
    assert response.status_code == 201 and response.json()["chain_id"] == 0
    assert Wallet.objects.get(entity_id=entity_id).chain_id == 0


def test_onboarding_with_wallets_applies_the_same_rule(api, org, key):
    client = api(key(org))
    body = {"legal_name": "Acme", "entity_type": "business", "jurisdiction": "US", "wallets": [{"address": EVM}]}
    response = client.post("/v1/onboarding/entities", body, format="json")
    assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "wallets.0.chain_id"
    assert not Wallet.objects.exists()


def test_a_chain_id_past_64_bits_is_a_422(entity):
    """It was a 500 (the database's integer overflowed); the largest stored chain id still registers."""
    client, entity_id = entity
    response = client.post(f"/v1/onboarding/entities/{entity_id}/wallets", {"chain_id": 2**63, "address": EVM}, format="json")
    assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "chain_id"
    assert not Wallet.objects.filter(entity_id=entity_id).exists()
    response = client.post(f"/v1/onboarding/entities/{entity_id}/wallets", {"chain_id": 2**63 - 1, "address": EVM}, format="json")
    assert response.status_code == 201 and Wallet.objects.get(entity_id=entity_id).chain_id == 2**63 - 1
