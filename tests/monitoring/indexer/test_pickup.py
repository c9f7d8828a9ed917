"""The indexer on a real anvil: ERC-20, native and internal transfers touching registered wallets are stored for the
organizations and modes that registered them, and nothing else."""

import pytest
from django.test import override_settings

from monitoring.indexer.extract import INTERNAL_LOG_INDEX, NATIVE_LOG_INDEX
from monitoring.indexer.services import index_pass
from monitoring.models import Alert, AssetPrice, ChainCursor, IndexedToken, IndexedTransfer, Transaction
from tests.monitoring.indexer.helpers import forward, register, send_eth, send_token, stored
from tests.webhooks.conftest import principal_of
from tests.webhooks.test_api import URL
from webhooks import services
from webhooks.models import Delivery, Event

pytestmark = pytest.mark.django_db
ETH = 10**18


# Node-side topic filters, one wallet a chunk; and above the wallet count, all Transfer logs filtered here.
@pytest.mark.parametrize("filters", [{"INDEXER_WALLET_CHUNK": 1}, {"INDEXER_LOCAL_FILTER_ABOVE": 0}], ids=["topic-chunks", "local"])
def test_transfers_touching_registered_wallets_reach_their_organizations(api, key, org, other_org, chain, w3, accounts, token,
                                                                        unknown_token, forwarder, filters):
    IndexedToken.objects.create(chain=chain, address=token.address.lower(), symbol="DUSD", decimals=18)
    ours, theirs, stranger, caller = accounts[2], accounts[3], accounts[4], accounts[5]
    register(api, key, org, [ours], mode="test")
    register(api, key, other_org, [theirs], mode="live", name="Globex Customer")
    ChainCursor.objects.create(chain=chain, start_block=w3.eth.block_number + 1)  # after the tokens' mints

    between = send_token(w3, token, ours, theirs, 250)  # both organizations' customers
    native = send_eth(w3, stranger, ours, 3 * ETH // 2)
    internal = forward(w3, forwarder, caller, theirs, 2 * ETH)
    unknown = send_token(w3, unknown_token, stranger, ours, 7)
    send_eth(w3, stranger, caller, ETH)  # touches no registered wallet
    send_token(w3, token, stranger, caller, 5)

    with override_settings(**filters):
        result = index_pass(chain)

    assert result.error == "" and result.behind is False and result.end == w3.eth.block_number
    assert stored() == {
        ("Acme", "test", between, 0, ours, theirs, "250", "DUSD", "indexer", False),
        ("Globex", "live", between, 0, ours, theirs, "250", "DUSD", "indexer", False),
        ("Acme", "test", native, NATIVE_LOG_INDEX, stranger, ours, "1.5", "ETH", "indexer", False),
        ("Globex", "live", internal, INTERNAL_LOG_INDEX, forwarder.lower(), theirs, "2", "ETH", "indexer", False),
        ("Acme", "test", unknown, 0, stranger, ours, str(7 * ETH), unknown_token.address.lower(), "indexer", False),
    }
    assert result.ingested == 5 and result.transfers == 4
    ours_row = Transaction.objects.get(tx_hash=native)
    assert ours_row.to_entity_id is not None and ours_row.from_entity_id is None
    unknown_row = Transaction.objects.get(tx_hash=unknown)
    assert unknown_row.usd_value is None
    assert f"no USD price for {unknown_token.address.lower()}" in str(unknown_row.evaluation)
    assert IndexedTransfer.objects.count() == 5
    cursor = ChainCursor.objects.get(chain=chain)
    assert cursor.last_block == w3.eth.block_number and cursor.window[-1][1] == w3.eth.get_block("latest")["hash"].to_0x_hex()
    assert cursor.last_run_at is not None and cursor.last_error == ""

    again = index_pass(chain)  # nothing new
    assert again.end is None and again.ingested == 0 and Transaction.objects.count() == 5


def test_blocks_are_indexed_up_to_the_head_and_confirmed_at_the_chains_confirmations(api, key, org, chain, w3, accounts):
    chain.confirmations = 2
    chain.save()
    ChainCursor.objects.create(chain=chain, reorg_window=1)  # the window still holds every unconfirmed block
    register(api, key, org, [accounts[2]])
    first = send_eth(w3, accounts[4], accounts[2], ETH)
    send_eth(w3, accounts[4], accounts[5], ETH)
    last = send_eth(w3, accounts[4], accounts[2], ETH)

    result = index_pass(chain)

    assert result.target == w3.eth.block_number and result.end == w3.eth.block_number and result.behind is False
    assert {row[2] for row in stored()} == {first, last}  # both stored and monitored at once
    assert dict(IndexedTransfer.objects.values_list("transaction__tx_hash", "confirmed")) == {first: True, last: False}
    assert result.confirmed == 1
    cursor = ChainCursor.objects.get(chain=chain)
    assert cursor.last_block == w3.eth.block_number
    assert [entry[0] for entry in cursor.window] == [w3.eth.block_number - 2, w3.eth.block_number - 1, w3.eth.block_number]


def test_a_transfer_is_detected_at_the_head_and_confirmed_once_its_block_is_deep_enough(api, key, org, chain, w3, accounts):
    chain.confirmations = 2
    chain.save()
    AssetPrice.objects.create(organization=org, asset="ETH", usd_rate=3000)
    endpoint = services.endpoint_create(principal=principal_of(org, mode="test"), url=URL,
                                        event_types=["transfer.detected", "transfer.confirmed"])
    customer = register(api, key, org, [accounts[2]])
    tx_hash = send_eth(w3, accounts[4], accounts[2], 10 * ETH)  # 30,000 USD: the large-transfer rule
    block = w3.eth.block_number

    first = index_pass(chain)  # the transfer's block is the head: seen, stored, monitored, not confirmed
    assert first.ingested == 1 and first.confirmed == 0
    stored = Transaction.objects.get(tx_hash=tx_hash)
    detected = Event.objects.get(type="transfer.detected")
    assert detected.data["transfer_id"] == str(stored.pk) and detected.data["entity_id"] == customer["id"]
    assert {delivery.endpoint for delivery in Delivery.objects.filter(event=detected)} == {endpoint}
    assert Alert.objects.filter(rule_code="large_transfer", transactions=stored).exists()  # alerted before its confirmations
    assert not Event.objects.filter(type="transfer.confirmed").exists()

    send_eth(w3, accounts[5], accounts[6], 1)  # one block deep: not yet
    assert index_pass(chain).confirmed == 0
    assert not Event.objects.filter(type="transfer.confirmed").exists()

    send_eth(w3, accounts[5], accounts[6], 1)  # two blocks deep
    assert index_pass(chain).confirmed == 1
    confirmed = Event.objects.get(type="transfer.confirmed")
    assert confirmed.data == {"transfer_id": str(stored.pk), "entity_id": customer["id"], "chain_id": 31337, "tx_hash": tx_hash,
                              "block_number": block, "confirmations": 2, "confirmed_at": confirmed.data["confirmed_at"]}
    assert {delivery.endpoint for delivery in Delivery.objects.filter(event=confirmed)} == {endpoint}

    send_eth(w3, accounts[5], accounts[6], 1)
    again = index_pass(chain)
    assert again.ingested == 0 and again.confirmed == 0
    assert Event.objects.filter(type="transfer.detected").count() == 1  # once each
    assert Event.objects.filter(type="transfer.confirmed").count() == 1
