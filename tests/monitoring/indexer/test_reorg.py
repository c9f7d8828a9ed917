"""Reorganisations on anvil (anvil_reorg): inside the window the orphaned transfers are marked and leave the rules'
history, the new branch is indexed and the cursor follows it; deeper than the window the chain stops."""

import re
from datetime import timedelta

import pytest

from common.principal import Principal
from compliance.onchain.anvil import rpc
from filings.models import CaseEvent
from monitoring.backtest import rule_backtest
from monitoring.engine import reads
from monitoring.indexer.extract import NATIVE_LOG_INDEX
from monitoring.indexer.services import index_pass
from monitoring.models import Alert, AssetPrice, ChainCursor, IndexedTransfer, Transaction
from tests.monitoring.indexer.helpers import register, send_eth, stored
from tests.webhooks.conftest import principal_of
from tests.webhooks.test_api import URL
from webhooks import services
from webhooks.models import Event

pytestmark = pytest.mark.django_db
ETH = 10**18


def test_a_reorg_inside_the_window_orphans_the_old_branch_and_indexes_the_new(api, key, org, chain, node, w3, accounts):
    customer = register(api, key, org, [accounts[2]])
    kept = send_eth(w3, accounts[4], accounts[2], ETH)
    dropped = [send_eth(w3, accounts[4], accounts[2], 2 * ETH), send_eth(w3, accounts[5], accounts[2], 3 * ETH)]
    assert index_pass(chain).ingested == 3
    fork = w3.eth.block_number - 2

    # The last two blocks are replaced by two others; the new first one carries another transfer to the customer.
    rpc(node.url, "anvil_reorg", [2, [[{"from": w3.eth.accounts[6], "to": w3.eth.accounts[2], "value": hex(4 * ETH)}, 0]]])
    new_block = w3.eth.get_block(fork + 1, full_transactions=True)
    replacement = new_block["transactions"][0]["hash"].to_0x_hex()

    result = index_pass(chain)

    assert result.error == "" and result.orphaned == 2
    assert stored() == {
        ("Acme", "test", kept, NATIVE_LOG_INDEX, accounts[4], accounts[2], "1", "ETH", "indexer", False),
        ("Acme", "test", dropped[0], NATIVE_LOG_INDEX, accounts[4], accounts[2], "2", "ETH", "indexer", True),
        ("Acme", "test", dropped[1], NATIVE_LOG_INDEX, accounts[5], accounts[2], "3", "ETH", "indexer", True),
        ("Acme", "test", replacement, NATIVE_LOG_INDEX, accounts[6], accounts[2], "4", "ETH", "indexer", False),
    }
    orphans = Transaction.objects.filter(orphaned=True)
    assert {row.to_entity_id for row in orphans} == {None}  # out of every rule's history, which is read by customer
    kept_for_audit = IndexedTransfer.objects.filter(transaction__in=orphans).values_list("to_entity_id", flat=True)
    assert {str(entity_id) for entity_id in kept_for_audit} == {customer["id"]}
    live = Transaction.objects.filter(orphaned=False)
    history = reads.transactions(org, "test", {customer["id"]}, min(t.timestamp for t in live), max(t.timestamp for t in live))
    assert sorted(row[3] for row in history) == sorted([kept, replacement])
    replay = rule_backtest(principal=Principal.system(org, "test"), rule_id="large_transfer", parameters={},
                           start=min(t.timestamp for t in live) - timedelta(days=1), end=max(t.timestamp for t in live) + timedelta(days=1))
    assert replay["events_replayed"] == 2  # a backtest replays no orphan
    cursor = ChainCursor.objects.get(chain=chain)
    assert cursor.last_block == w3.eth.block_number
    assert [entry[1] for entry in cursor.window[-2:]] == [w3.eth.get_block(n)["hash"].to_0x_hex() for n in (fork + 1, fork + 2)]
    assert cursor.reorgs[-1] | {"at": None} == {"at": None, "fork_block": fork, "depth": 2, "orphaned": 2, "travel_rule_reopened": 0}

    assert index_pass(chain).ingested == 0  # settled


def test_a_transfer_mined_again_on_the_new_branch_is_live_again(api, key, org, chain, node, w3, accounts):
    register(api, key, org, [accounts[2]])
    send_eth(w3, accounts[4], accounts[2], ETH)
    index_pass(chain)
    # The same kind of transfer mined again in the replacing block gets a new hash; what comes back with its own hash
    # and index (a reorg that re-includes it) is restored: simulated by orphaning and re-reading the same block.
    cursor = ChainCursor.objects.get(chain=chain)
    cursor.window[-1][1] = "0x" + "00" * 32  # the node's block no longer matches what the cursor holds
    cursor.save()
    result = index_pass(chain)
    assert result.orphaned == 1 and result.error == ""
    row = Transaction.objects.get()
    assert row.orphaned is False and row.to_entity_id is not None


def test_a_reorg_deeper_than_the_window_stops_the_chain(api, key, org, chain, node, w3, accounts):
    register(api, key, org, [accounts[2]])
    ChainCursor.objects.create(chain=chain, reorg_window=2)
    for _ in range(4):
        send_eth(w3, accounts[4], accounts[2], ETH)
    index_pass(chain)
    before = stored()

    rpc(node.url, "anvil_reorg", [3, []])
    result = index_pass(chain)

    cursor = ChainCursor.objects.get(chain=chain)
    assert cursor.stopped is True
    assert "reorganisation deeper than the window" in cursor.last_error and "reindex" in cursor.last_error
    assert result.error == cursor.last_error
    assert stored() == before  # nothing orphaned or added: an operator decides
    assert index_pass(chain).skipped_reason.startswith("stopped: reorganisation deeper than the window")


def test_an_alert_whose_transfer_is_orphaned_says_so_in_the_console_and_its_case_timeline(api, key, org, chain, node, w3, accounts,
                                                                                          admin_client):
    AssetPrice.objects.create(organization=org, asset="ETH", usd_rate=3000)
    register(api, key, org, [accounts[2]])
    large = send_eth(w3, accounts[4], accounts[2], 10 * ETH)  # 30,000 USD: the large-transfer rule
    assert index_pass(chain).alerts >= 1
    alert = Alert.objects.get(rule_code="large_transfer")
    assert "ORPHANED" not in admin_client.get(f"/admin/monitoring/alert/{alert.pk}/change/").content.decode()

    rpc(node.url, "anvil_reorg", [1, [[{"from": w3.eth.accounts[6], "to": w3.eth.accounts[7], "value": hex(ETH)}, 0]]])
    assert index_pass(chain).orphaned == 1

    note = CaseEvent.objects.get(kind="comment", data__alert_id=str(alert.pk))
    assert note.data["orphaned"] is True and note.data["fork_block"] == w3.eth.block_number - 1
    assert f"Transfer {large} (#{NATIVE_LOG_INDEX}) of alert {alert.pk} (large_transfer) was orphaned" in note.body
    assert note.actor_id is None  # the system
    page = admin_client.get(f"/admin/monitoring/alert/{alert.pk}/change/").content.decode()
    assert re.search(rf'data-copy="{large}".*?</span>\s*<strong class="orphaned"[^>]*>ORPHANED</strong>', page)


def test_a_reorg_before_the_confirmations_orphans_the_detected_transfer_and_it_is_never_confirmed(api, key, org, chain, node, w3,
                                                                                                    accounts):
    chain.confirmations = 3
    chain.save()
    services.endpoint_create(principal=principal_of(org, mode="test"), url=URL, event_types=["transfer.detected", "transfer.confirmed"])
    register(api, key, org, [accounts[2]])
    dropped = send_eth(w3, accounts[4], accounts[2], 2 * ETH)
    assert index_pass(chain).ingested == 1  # detected at the head
    assert Event.objects.get(type="transfer.detected").data["tx_hash"] == dropped

    # Its block is replaced, before it had its confirmations, by one carrying another transfer to the customer.
    rpc(node.url, "anvil_reorg", [1, [[{"from": w3.eth.accounts[6], "to": w3.eth.accounts[2], "value": hex(4 * ETH)}, 0]]])
    replacement = w3.eth.get_block("latest", full_transactions=True)["transactions"][0]["hash"].to_0x_hex()
    result = index_pass(chain)
    assert result.orphaned == 1 and result.ingested == 1 and result.confirmed == 0
    assert Transaction.objects.get(tx_hash=dropped).orphaned is True

    for _ in range(3):  # the new branch's block three deep
        send_eth(w3, accounts[5], accounts[6], 1)
    assert index_pass(chain).confirmed == 1
    assert index_pass(chain).confirmed == 0
    assert [event.data["tx_hash"] for event in Event.objects.filter(type="transfer.confirmed")] == [replacement]
    assert sorted(event.data["tx_hash"] for event in Event.objects.filter(type="transfer.detected")) == sorted([dropped, replacement])
    assert dict(IndexedTransfer.objects.values_list("transaction__tx_hash", "confirmed")) == {dropped: False, replacement: True}


def test_the_api_marks_an_orphaned_transfer_and_the_alert_it_opened(api, key, org, chain, node, w3, accounts):
    AssetPrice.objects.create(organization=org, asset="ETH", usd_rate=3000)
    customer = register(api, key, org, [accounts[2]])
    large = send_eth(w3, accounts[4], accounts[2], 10 * ETH)  # 30,000 USD: the large-transfer rule
    kept = send_eth(w3, accounts[4], accounts[2], ETH // 10)
    index_pass(chain)
    client = api(key(org, role="l2_investigator", mode="test"))
    entity = f"/v1/onboarding/entities/{customer['id']}"
    alert = Alert.objects.get(rule_code="large_transfer")
    assert client.get(f"{entity}/alerts/{alert.pk}").json()["orphaned"] is False
    assert {row["tx_hash"]: row["orphaned"] for row in client.get(f"{entity}/transfers").json()["data"]} == {large: False, kept: False}

    rpc(node.url, "anvil_reorg", [2, [[{"from": w3.eth.accounts[6], "to": w3.eth.accounts[7], "value": hex(ETH)}, 0]]])
    assert index_pass(chain).orphaned == 2

    listed = client.get(f"{entity}/transfers").json()
    assert {(row["tx_hash"], row["orphaned"], row["direction"]) for row in listed["data"]} == {(large, True, "in"), (kept, True, "in")}
    orphan = Transaction.objects.get(tx_hash=large)
    detail = client.get(f"{entity}/transfers/{orphan.pk}").json()
    assert detail["orphaned"] is True and detail["tx_hash"] == large
    its_alerts = {(str(pk), True) for pk in orphan.alerts.values_list("pk", flat=True)}
    assert {(row["id"], row["orphaned"]) for row in detail["alerts"]} == its_alerts
    assert str(alert.pk) in {row["id"] for row in detail["alerts"]}
    alert_detail = client.get(f"{entity}/alerts/{alert.pk}").json()
    assert alert_detail["orphaned"] is True and alert_detail["transaction_ids"] == [str(orphan.pk)]
    every = {(str(pk), True) for pk in Alert.objects.values_list("pk", flat=True)}  # each opened by one of the two transfers
    assert {(row["id"], row["orphaned"]) for row in client.get(f"{entity}/alerts").json()["data"]} == every
    assert {(row["id"], row["orphaned"]) for row in client.get("/v1/monitoring/alerts").json()["data"]} == every
