"""manage.py index_chain and reindex on anvil: progress lines, the summary, and a reindex run twice leaves the same
stored state; the beat task fans out to the enabled chains and a run behind enqueues itself."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from monitoring.indexer import tasks
from monitoring.indexer.services import chain_lock, index_pass
from monitoring.models import Alert, AssetPrice, ChainCursor, IndexedToken, IndexedTransfer, Transaction
from tests.monitoring.indexer.helpers import register, send_eth, send_token

pytestmark = pytest.mark.django_db
ETH = 10**18


def _run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def _state() -> tuple:
    transfers = sorted(Transaction.objects.values_list("organization_id", "mode", "chain_id", "tx_hash", "log_index", "amount", "asset",
                                                       "from_entity_id", "to_entity_id", "orphaned", "monitored", "evaluation"))
    blocks = sorted(IndexedTransfer.objects.values_list("transaction__tx_hash", "transaction__log_index", "block_number", "block_hash"))
    alerts = sorted(Alert.objects.values_list("rule_code", "entity_id", "hit_count", "status"))
    return transfers, blocks, alerts


def test_index_chain_once_then_reindex_twice_gives_the_same_state(api, key, org, chain, w3, accounts, token):
    IndexedToken.objects.create(chain=chain, address=token.address.lower(), symbol="DUSD", decimals=18)
    AssetPrice.objects.create(organization=org, asset="DUSD", usd_rate=1)
    register(api, key, org, [accounts[2]])
    start = w3.eth.block_number + 1
    ChainCursor.objects.create(chain=chain, start_block=start)
    send_token(w3, token, accounts[4], accounts[2], 15_000)
    send_eth(w3, accounts[2], accounts[5], ETH)
    head = w3.eth.block_number

    with override_settings(INDEXER_BLOCKS_PER_RUN=1):
        out = _run("index_chain", "--chain", "31337", "--once")
    assert out.splitlines() == [f"blocks {start}-{start} of {head}: 1 transfers, 1 stored, 0 already stored",
                                f"chain 31337: blocks {start}-{start} (target {head}), 1 transfers, 1 stored, 0 already stored, "
                                "3 alerts, 0 orphaned, behind"]
    out = _run("index_chain", "--chain", "31337")
    assert out.splitlines()[-1] == (f"chain 31337: blocks {head}-{head} (target {head}), 1 transfers, 1 stored, 0 already stored, "
                                    "0 alerts, 0 orphaned")
    first = _state()
    assert len(first[0]) == 2 and len(first[1]) == 2 and first[2]

    for _ in range(2):
        out = _run("reindex", "--chain", "31337", "--from-block", str(start))
        assert out.splitlines()[-1] == (f"chain 31337: blocks {start}-{head} (target {head}), 2 transfers, 0 stored, 2 already stored, "
                                        "0 alerts, 0 orphaned")
        assert _state() == first
    assert ChainCursor.objects.get(chain=chain).last_block == head

    out = _run("reindex", "--chain", "31337", "--from-block", str(start), "--to-block", str(start))
    assert out.splitlines()[0] == f"blocks {start}-{start} of {head}: 1 transfers, 0 stored, 1 already stored"
    assert _state() == first


def test_a_run_while_another_holds_the_chain_does_nothing(chain):
    with chain_lock(chain) as held:
        assert held is not None
        result = index_pass(chain)
        assert result.skipped_reason == "another run holds the chain's lock" and result.end is None
        with pytest.raises(CommandError, match="another run holds the chain's lock"):
            _run("index_chain", "--chain", "31337", "--once")
    assert index_pass(chain).skipped_reason == ""


def test_commands_refuse_an_unknown_chain(db):
    with pytest.raises(CommandError, match="no chain 999"):
        _run("index_chain", "--chain", "999", "--once")


def test_the_beat_task_runs_each_enabled_chain_and_a_run_behind_enqueues_itself(api, key, org, chain, w3, accounts, monkeypatch):
    register(api, key, org, [accounts[2]])
    for _ in range(3):
        send_eth(w3, accounts[4], accounts[2], ETH)
    queued = []
    monkeypatch.setattr(tasks.index_chain, "delay", queued.append)
    tasks.index_chains()
    assert queued == [31337]
    with override_settings(INDEXER_BLOCKS_PER_RUN=2):
        tasks.index_chain(31337)
        assert queued == [31337, 31337]  # behind: enqueued again
        while len(queued) < 10 and ChainCursor.objects.get(chain=chain).last_block < w3.eth.block_number:
            tasks.index_chain(queued[-1])
    assert ChainCursor.objects.get(chain=chain).last_block == w3.eth.block_number
    assert Transaction.objects.count() == 3
