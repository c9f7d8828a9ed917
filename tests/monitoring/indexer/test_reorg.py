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
