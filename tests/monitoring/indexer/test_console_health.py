"""The indexer in the console (per chain: head, cursor, lag, last run and error, reorganisations; the token registry,
editable; the indexed transfers with filters) and in /health (`degraded` past the lag threshold, or stopped)."""

import pytest

from compliance.onchain.anvil import rpc
from monitoring.indexer.services import index_pass
from monitoring.models import ChainCursor, IndexedToken
from tests.monitoring.indexer.helpers import register, send_eth

pytestmark = pytest.mark.django_db
ETH = 10**18


def test_each_chain_shows_its_head_cursor_lag_runs_and_reorgs(api, key, org, chain, node, w3, accounts, admin_client):
    register(api, key, org, [accounts[2]])
    tx_hash = send_eth(w3, accounts[4], accounts[2], ETH)
    assert index_pass(chain).ingested == 1
    rpc(node.url, "anvil_mine", [5])
    assert index_pass(chain, max_blocks=2).error == ""  # behind: 3 blocks left
    cursor = ChainCursor.objects.get(chain=chain)
    assert (cursor.head, cursor.last_block) == (w3.eth.block_number, w3.eth.block_number - 3)
    ChainCursor.objects.filter(pk=cursor.pk).update(reorgs=[{"at": "2026-11-28T07:00:00+00:00", "fork_block": 3, "depth": 2,
                                                             "orphaned": 4, "travel_rule_reopened": 1}], last_error="RangeTooWide: x")

    listing = admin_client.get("/admin/monitoring/chaincursor/").content.decode()
    row = listing[listing.index("field-head"):]
    assert f">{cursor.head}<" in row and f">{cursor.last_block}<" in row
    assert '<td class="field-lag_blocks">3</td>' in listing and '<td class="field-reorgs_seen">1</td>' in listing
    assert "RangeTooWide: x" in listing
    page = admin_client.get(f"/admin/monitoring/chaincursor/{cursor.pk}/change/").content.decode()
    assert "above block 3, depth 2, 4 transfers orphaned, 1 travel-rule transfers reopened" in page

    transfers = admin_client.get("/admin/monitoring/indexedtransfer/?chain_id=31337").content.decode()
    assert tx_hash in transfers
    assert tx_hash not in admin_client.get("/admin/monitoring/indexedtransfer/?transaction__orphaned__exact=1").content.decode()


def test_the_token_registry_is_editable(chain, admin_client, token):
    address = token.address  # checksummed: stored lower-case
    response = admin_client.post("/admin/monitoring/indexedtoken/add/", {"chain": chain.pk, "address": address, "symbol": "DUSD",
                                                                         "decimals": 18})
    assert response.status_code == 302
    assert list(IndexedToken.objects.filter(chain=chain).values_list("address", "symbol", "decimals")) == [(address.lower(), "DUSD", 18)]

    refused = admin_client.post("/admin/monitoring/indexedtoken/add/", {"chain": chain.pk, "address": "0x1234", "symbol": "BAD",
                                                                        "decimals": 6})
    assert refused.status_code == 200 and "0x and 40 hexadecimal digits" in refused.content.decode()
    assert not IndexedToken.objects.filter(symbol="BAD").exists()


def test_the_seeded_test_stablecoins():
    seeded = set(IndexedToken.objects.values_list("chain__chain_id", "symbol", "decimals", "address"))
    assert (11155111, "USDC", 6, "0x1c7d4b196cb0c7b01d743fbc6116a902379c7238") in seeded
    assert (84532, "USDC", 6, "0x036cbd53842c5426634e7929541ec2318f3dcf7e") in seeded


def test_health_is_degraded_when_a_chain_lags_or_stops(api, key, org, chain, node, w3, accounts, client, settings):
    register(api, key, org, [accounts[2]])
    assert index_pass(chain).error == ""
    body = client.get("/health").json()
    [local] = body["indexer"]["chains"]
    assert body["indexer"]["ok"] is True and local["lag_blocks"] == 0 and local["head"] == w3.eth.block_number

    settings.INDEXER_LAG_BLOCKS_DEGRADED = 3
    rpc(node.url, "anvil_mine", [10])
    assert index_pass(chain, max_blocks=5).error == ""  # 5 blocks behind
    response = client.get("/health")
    assert response.status_code == 200 and response.json()["status"] == "degraded"
    assert response.json()["indexer"]["problems"] == ["chain 31337 (Local (anvil)): 5 blocks behind (more than 3)"]

    assert index_pass(chain).error == ""
    assert client.get("/health").json()["indexer"]["ok"] is True
    ChainCursor.objects.filter(chain=chain).update(stopped=True, last_error="reorganisation deeper than the window")
    assert "stopped: reorganisation deeper" in client.get("/health").json()["indexer"]["problems"][0]
