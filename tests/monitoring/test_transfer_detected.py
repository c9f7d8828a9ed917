"""`transfer.detected` (docs/webhooks.md): an event per customer side of each transfer the API
records, with its deliveries, when an endpoint subscribes; nothing written when none does; none for
backfilled history."""

import pytest

from monitoring.choices import Source
from monitoring.ingestion.services import transactions_ingest_batch
from monitoring.models import Transaction
from tests.webhooks.test_api import URL, principal_of
from webhooks import services
from webhooks.models import Delivery, Event

pytestmark = pytest.mark.django_db
EVM = "0x52908400098527886e0f7030069857d2e4169ee7"
OTHER = "0x" + "be" * 20


@pytest.fixture
def client(api, org, key):
    client = api(key(org, role="admin"))
    response = client.post("/v1/onboarding/entities", {"legal_name": "Nova Traders", "entity_type": "business", "jurisdiction": "US",
                                                       "wallets": [{"chain_id": 1, "address": EVM}]}, format="json")
    assert response.status_code == 201
    client.entity_id = response.json()["id"]
    return client


def transfer(**overrides):
    return {"chain_id": 1, "from_address": OTHER, "to_address": EVM, "amount": "12.5", "asset": "USDC",
            "timestamp": "2026-03-01T10:00:00Z", "tx_hash": "0xabc", **overrides}


def test_a_recorded_transfer_is_announced_to_subscribers(client, org):
    endpoint = services.endpoint_create(principal=principal_of(org), url=URL, event_types=["transfer.detected"])
    body = client.post("/v1/monitoring/transfers", transfer(), format="json").json()
    event = Event.objects.get(type="transfer.detected")
    assert event.data == {"transfer_id": body["id"], "entity_id": client.entity_id, "chain_id": 1, "tx_hash": "0xabc",
                          "from_address": OTHER, "to_address": EVM, "amount": "12.5", "asset": "USDC",
                          "detected_at": event.data["detected_at"]}
    assert Delivery.objects.get(event=event).endpoint == endpoint
    again = client.post("/v1/monitoring/transfers", transfer(), format="json").json()
    assert again["duplicate"] is True and Event.objects.filter(type="transfer.detected").count() == 1
    batch = client.post("/v1/monitoring/transfers/batch", {"transactions": [transfer(tx_hash="0x1"), transfer(tx_hash="0x2"),
                                                                            transfer(tx_hash="0x3", to_address=OTHER)],
                                                           "run_monitoring": False}, format="json")
    assert batch.status_code == 200 and batch.json()["ingested"] == 3
    # the third moves between two addresses of nobody: no customer, no event
    assert sorted(Event.objects.filter(type="transfer.detected").values_list("data__tx_hash", flat=True)) == ["0x1", "0x2", "0xabc"]


def test_nothing_is_written_without_a_subscriber_or_for_backfill(client, org):
    services.endpoint_create(principal=principal_of(org), url=URL, event_types=["alert.created"])
    assert client.post("/v1/monitoring/transfers", transfer(), format="json").status_code == 200
    assert not Event.objects.filter(type="transfer.detected").exists()
    services.endpoint_create(principal=principal_of(org), url=URL, event_types=["transfer.detected"])
    from monitoring.api.ingest_serializers import IngestedTransactionRequest

    item = IngestedTransactionRequest(data=transfer(tx_hash="0xbackfill"))
    assert item.is_valid(), item.errors
    outcome = transactions_ingest_batch(principal=principal_of(org), items=[item.validated_data], run_monitoring=False,
                                        source=Source.BACKFILL)
    assert outcome.ingested == 1 and Transaction.objects.filter(tx_hash="0xbackfill").exists()
    assert not Event.objects.filter(type="transfer.detected").exists()
