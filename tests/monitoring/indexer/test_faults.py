"""RPC faults through a loopback proxy in front of anvil: a node that refuses wide getLogs ranges (-32005), answers
500s and times out. The range halves, calls are retried, and what is stored is exactly what a clean run stores."""

import threading
import time

import pytest
from django.test import override_settings

from compliance.onchain.anvil import rpc
from monitoring.indexer.extract import INTERNAL_LOG_INDEX, NATIVE_LOG_INDEX
from monitoring.indexer.services import index_pass
from monitoring.models import ChainCursor, IndexedToken, IndexedTransfer
from tests.compliance.onchain.rpc_proxy import RpcProxy
from tests.monitoring.indexer.helpers import forward, register, send_eth, send_token, stored

pytestmark = pytest.mark.django_db
ETH = 10**18
TOO_MANY = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32005, "message": "query returned more than 10000 results"}}


def _width(request: dict) -> int:
    query = request["params"][0]
    if "blockHash" in query:
        return 1
    return int(query["toBlock"], 16) - int(query["fromBlock"], 16) + 1


def test_refusals_errors_and_timeouts_lose_and_duplicate_nothing(api, key, org, chain, node, w3, accounts, token):
    IndexedToken.objects.create(chain=chain, address=token.address.lower(), symbol="DUSD", decimals=18)
    register(api, key, org, [accounts[2], accounts[3]])
    # The logs of the newest two blocks are read by block hash, the others by ranges.
    ChainCursor.objects.create(chain=chain, start_block=w3.eth.block_number + 1, reorg_window=2)
    expected = set()
    for n in range(1, 7):
        expected.add((send_token(w3, token, accounts[4], accounts[2 + n % 2], n), 0, f"{n}", "DUSD"))
        expected.add((send_eth(w3, accounts[5], accounts[2], n * ETH), NATIVE_LOG_INDEX, f"{n}", "ETH"))
        send_eth(w3, accounts[5], accounts[6], ETH)  # noise

    slow_once = threading.Event()

    requests, answered = [], []

    def node_like_a_public_one(request):
        if isinstance(request, list):  # the window's by-hash calls, batched
            requests.extend(request)
            return None
        requests.append(request)
        if not slow_once.is_set():
            slow_once.set()
            time.sleep(3)  # past the 2-second time-out: the client gives up on this range
            return None
        if _width(request) > 2:
            return 200, {**TOO_MANY, "id": request["id"]}
        answered.append(_width(request))
        return None

    with RpcProxy(node.url) as proxy, override_settings(INDEXER_INITIAL_SPAN=16):
        chain.rpc_urls = [proxy.url]
        chain.save()
        proxy.on("eth_getLogs", "reply", call=node_like_a_public_one)
        proxy.on("eth_getBlockByNumber", "reply", times=2, call=lambda request: (500, {"error": "upstream unavailable"}))
        proxy.on("trace_block", "drop", times=1)
        result = index_pass(chain)

    assert result.error == "" and result.behind is False, result.error
    by_hash = [request for request in requests if "blockHash" in request["params"][0]]
    assert {request["params"][0]["blockHash"] for request in by_hash} == {
        w3.eth.get_block(number)["hash"].to_0x_hex() for number in (w3.eth.block_number - 1, w3.eth.block_number)}
    assert result.end == w3.eth.block_number
    assert result.narrowed >= 4  # 16 → 8 (the time-out), → 4 → 2 (the refusals)
    assert result.retries == 3  # two 500s and a dropped connection
    assert max(answered) == 2  # halved from 16 to what the node takes
    assert [start for start, _ in result.ranges] == sorted({start for start, _ in result.ranges})  # no range twice
    assert {(row[2], row[3], row[6], row[7]) for row in stored()} == expected
    assert len(stored()) == 12 and IndexedTransfer.objects.count() == 12
    assert ChainCursor.objects.get(chain=chain).last_block == w3.eth.block_number


def test_logs_marked_removed_are_dropped(api, key, org, chain, node, w3, accounts, token):
    IndexedToken.objects.create(chain=chain, address=token.address.lower(), symbol="DUSD", decimals=18)
    register(api, key, org, [accounts[2]])
    ChainCursor.objects.create(chain=chain, start_block=w3.eth.block_number + 1)
    kept = send_token(w3, token, accounts[4], accounts[2], 1)
    removed = send_token(w3, token, accounts[4], accounts[2], 2)

    def marked(call):
        logs = rpc(node.url, "eth_getLogs", call["params"])
        return {"jsonrpc": "2.0", "id": call["id"], "result": [{**log, "removed": log["transactionHash"] == removed} for log in logs]}

    def marking_one_removed(request):  # a range's call, or a batch of by-hash calls
        return 200, [marked(call) for call in request] if isinstance(request, list) else marked(request)

    with RpcProxy(node.url) as proxy:
        chain.rpc_urls = [proxy.url]
        chain.save()
        proxy.on("eth_getLogs", "reply", call=marking_one_removed)
        result = index_pass(chain)

    assert result.error == "" and proxy.count("eth_getLogs") >= 2
    assert {(row[2], row[6]) for row in stored()} == {(kept, "1")}


def test_a_node_without_trace_block_is_read_without_internal_transfers(api, key, org, chain, node, w3, accounts, forwarder):
    register(api, key, org, [accounts[2]])
    ChainCursor.objects.create(chain=chain, start_block=w3.eth.block_number + 1)
    native = send_eth(w3, accounts[4], accounts[2], ETH)
    forward(w3, forwarder, accounts[4], accounts[2], 2 * ETH)
    no_such_method = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "the method trace_block does not exist"}}

    with RpcProxy(node.url) as proxy:
        chain.rpc_urls = [proxy.url]
        chain.save()
        proxy.on("trace_block", "reply", call=lambda request: (200, [{**no_such_method, "id": call["id"]} for call in request]))
        result = index_pass(chain)

    assert result.error == "" and result.end == w3.eth.block_number
    assert proxy.count("trace_block") == 2  # both blocks in one batch, then not again in the run
    assert {(row[2], row[3]) for row in stored()} == {(native, NATIVE_LOG_INDEX)}


def test_a_node_that_takes_no_batches_gets_the_calls_one_by_one(api, key, org, chain, node, w3, accounts, forwarder):
    register(api, key, org, [accounts[2]])
    ChainCursor.objects.create(chain=chain, start_block=w3.eth.block_number + 1)
    native = [send_eth(w3, accounts[4], accounts[2], n * ETH) for n in (1, 2, 3)]
    internal = forward(w3, forwarder, accounts[4], accounts[2], 4 * ETH)
    batches = []

    def no_batches(request):
        if isinstance(request, list):
            batches.append(len(request))
            return 200, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "batch requests are not supported"}}
        return None

    with RpcProxy(node.url) as proxy:
        chain.rpc_urls = [proxy.url]
        chain.save()
        proxy.on("eth_getBlockByNumber", "reply", call=no_batches)
        result = index_pass(chain)

    assert result.error == "" and result.end == w3.eth.block_number
    assert batches == [4]  # tried once, then one by one
    assert {(row[2], row[3]) for row in stored()} == {*((tx, NATIVE_LOG_INDEX) for tx in native), (internal, INTERNAL_LOG_INDEX)}


def test_a_run_past_its_time_budget_ends_behind_and_is_enqueued_again(api, key, org, chain, w3, accounts):
    register(api, key, org, [accounts[2]])
    ChainCursor.objects.create(chain=chain, start_block=w3.eth.block_number + 1)
    sent = [send_eth(w3, accounts[4], accounts[2], n * ETH) for n in (1, 2, 3)]

    with override_settings(INDEXER_RUN_SECONDS=0, INDEXER_INITIAL_SPAN=1):
        first = index_pass(chain)
        assert (first.ranges, first.behind, first.ingested) == ([(first.start, first.start)], True, 1)  # one range, then out of time
        while index_pass(chain).behind:
            pass

    assert {row[2] for row in stored()} == set(sent)
