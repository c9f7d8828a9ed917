"""Network typologies and rule 30 through the real ingestion path (POST /v1/monitoring/transfers[/batch]):
the loader reads the peer group's statistics and the part of the transfer graph the searches need,
and the alerts carry the participating accounts; a hub skipped at its degree bound is written on the
transfer's evaluation record."""

from datetime import timedelta

import pytest
from django.utils import timezone

from monitoring.models import Alert, AssetPrice, Transaction
from tests.monitoring.api_fixtures import OTHER, client  # noqa: F401  (fixture, used by name)

pytestmark = pytest.mark.django_db


def wallet(n: int) -> str:
    return f"0x{n:040x}"


def customer(client, n: int, *, entity_type: str = "business") -> str:  # noqa: F811
    response = client.post("/v1/onboarding/entities", {
        "legal_name": f"Customer {n}", "entity_type": entity_type, "jurisdiction": "US",
        "wallets": [{"chain_id": 1, "address": wallet(n)}]}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def at(hours_ago: float) -> str:
    return (timezone.now() - timedelta(hours=hours_ago)).isoformat().replace("+00:00", "Z")


def transfer(sender: str, recipient: str, amount: str, hours_ago: float, tx_hash: str) -> dict:
    return {"from_address": sender, "to_address": recipient, "amount": amount, "asset": "USDC", "chain_id": 1,
            "timestamp": at(hours_ago), "tx_hash": tx_hash}


@pytest.fixture
def priced(org):
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})


def post_batch(client, items: list[dict], **extra) -> dict:  # noqa: F811
    response = client.post("/v1/monitoring/transfers/batch", {"transactions": items, **extra}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def test_peer_group_outlier_fires_through_ingestion(client, priced):  # noqa: F811
    """Rule 30 used to be blind: the loader never passed the peer-group statistics."""
    target, *peers = [customer(client, n) for n in range(6)]
    history = [transfer(OTHER, wallet(n), str(900 + 100 * n), 72, f"0xh{n}") for n in range(1, 6)]
    post_batch(client, history, run_monitoring=False)
    response = client.post("/v1/monitoring/transfers", transfer(OTHER, wallet(0), "60000", 1, "0xbig"), format="json")
    assert response.status_code == 200, response.json()
    alert = Alert.objects.get(rule_code="peer_group_outlier")
    assert str(alert.entity_id) == target
    measured = alert.evidence["measured"]
    assert (measured["peer_group_size"], measured["peer_mean_usd"], measured["volume_usd"]) == (5, "1200.00", "60000.00")
    assert measured["peer_stddev_usd"] == "141.42"
    assert not Alert.objects.filter(rule_code="peer_group_outlier", entity_id__in=peers).exists()
    assert measured["active_peers"] == 5


def test_peer_group_outlier_waits_for_a_group_with_history(client, priced):  # noqa: F811
    """A new book (no transfer before today): mean and σ are 0, so every active customer would be an
    "outlier"; the rule waits until five peers have volume in the window. Nothing else is changed."""
    for n in range(30, 36):
        customer(client, n)
    body = post_batch(client, [transfer(OTHER, wallet(n), "2500", 0.01, f"0xq{n}") for n in range(30, 36)])
    assert (body["ingested"], body["skipped"]) == (6, 0), body
    assert not Alert.objects.filter(rule_code="peer_group_outlier").exists()
    assert Transaction.objects.filter(tx_hash__startswith="0xq").count() == 6


def test_scatter_gather_and_a_five_hop_cycle_through_ingestion(client, priced):  # noqa: F811
    source, *middle, sink = [customer(client, n) for n in range(10, 15)]
    legs = [transfer(wallet(10), wallet(n), "10000", 20 - n, f"0xs{n}") for n in (11, 12, 13)]
    legs += [transfer(wallet(n), wallet(14), str(9900 - n), 10 - n, f"0xg{n}") for n in (11, 12, 13)]
    ring = [customer(client, n) for n in range(20, 25)]
    hops = [transfer(wallet(20 + i), wallet(20 + (i + 1) % 5), str(5000 - 50 * i), 30 - 5 * i, f"0xc{i}") for i in range(5)]
    post_batch(client, legs + hops)

    gathered = Alert.objects.get(rule_code="scatter_gather")
    assert str(gathered.entity_id) == sink
    measured = gathered.evidence["measured"]
    assert measured["source"] == f"1:{wallet(10)}" and measured["intermediaries"] == [f"1:{wallet(n)}" for n in (11, 12, 13)]
    assert gathered.transactions.count() == 6

    cycles = Alert.objects.filter(rule_code="cyclic_flow")
    assert {str(alert.entity_id) for alert in cycles} == {ring[0], ring[4]}  # the receiver and the sender of the closing hop
    assert all(alert.evidence["measured"]["hops"] == 5 for alert in cycles)
    assert {a["hops"] for a in [alert.evidence["measured"] for alert in cycles]} == {5}
    assert not Alert.objects.filter(rule_code="cyclic_flow", entity_id__in=[source, *middle]).exists()


def test_a_hub_skipped_at_its_degree_bound_is_written_on_the_evaluation(api, org, key, client, priced):  # noqa: F811
    assert api(key(org)).patch("/v1/monitoring/rules/fan_in", {"parameters": {"max_senders": 2}}, format="json").status_code == 200
    customer(client, 30)
    inflows = [transfer(wallet(40 + n), wallet(30), "5000", 10 - n, f"0xi{n}") for n in range(3)]
    post_batch(client, [*inflows, transfer(wallet(30), OTHER, "14000", 1, "0xout")])
    skipped = Transaction.objects.get(tx_hash="0xout").evaluation["skipped"]
    assert {"rule": "fan_in", "entity_id": str(Transaction.objects.get(tx_hash="0xout").from_entity_id),
            "reason": "3 distinct senders in the window, above the degree bound of 2: a hub, not evaluated"} in skipped
    assert not Alert.objects.filter(rule_code="fan_in").exists()
