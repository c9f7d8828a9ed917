"""Fixtures some monitoring API tests share (imported by name, so that pytest-django's `client` stays as it is
elsewhere): an investigator's API client and a customer with a wallet."""

import pytest

from monitoring.models import AssetPrice

EVM = "0x52908400098527886e0f7030069857d2e4169ee7"  # the customer's wallet on chain 1
OTHER = "0x000000000000000000000000000000000000beef"  # an unregistered counterparty


@pytest.fixture
def client(api, org, key):
    return api(key(org, role="l2_investigator"))


@pytest.fixture
def entity(client, org):
    """Nova Traders with the EVM wallet, USDC priced at 1 USD."""
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    response = client.post("/v1/onboarding/entities", {
        "legal_name": "Nova Traders", "entity_type": "business", "jurisdiction": "US",
        "wallets": [{"chain_id": 1, "address": EVM}]}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()
