"""The publisher killed after its broadcast, before it recorded anything of it: `manage.py publish_status` runs as a
real process against the test database, its RPC goes through a loopback proxy in front of anvil that forwards
eth_sendRawTransaction and then holds the answer, and the process is killed (SIGKILL) right then. A restarted run
sends no second transaction for that nonce, and the contract ends with each wallet's status.

Transactional (the process must see the committed rows), so in its own module: the flush at its end takes the
seeded chains with it, which the other modules' tests make again (publishing.enable_local_chain)."""

import os
import signal
import subprocess
import sys

import pytest
from django.conf import settings

from compliance.models import Chain, ChainTransaction
from compliance.onchain.contracts import contract_at
from tests.compliance.onchain.publishing import (
    LOCAL,
    SIGNER,
    assert_published_on_chain,
    enable_local_chain,
    external_screening,
    new_addresses,
    onboard,
    rows_of,
    transactions_of_nonce,
    updated_events,
)
from tests.compliance.onchain.rpc_proxy import RpcProxy
from tests.databases import database_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]


@pytest.fixture
def proxy(anvil):
    with RpcProxy(anvil.url) as running:
        yield running


@pytest.fixture
def chain(proxy, monkeypatch):
    return enable_local_chain(proxy.url, monkeypatch)


def publisher(tmp_path) -> subprocess.Popen:
    """`manage.py publish_status --chain 31337` on the test database; CHAIN_RPC_URL_31337 (the proxy) and the signer's key
    come from this process's environment."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": database_url(), "DATA_DIR": str(tmp_path),
           "CELERY_TASK_ALWAYS_EAGER": "false", "PYTHONPATH": str(settings.BASE_DIR)}
    log = open(tmp_path / "publisher.log", "ab")  # noqa: SIM115 - the process writes it; read by log_of
    return subprocess.Popen([sys.executable, "manage.py", "publish_status", "--chain", str(LOCAL)], cwd=settings.BASE_DIR, env=env,
                            start_new_session=True, stdout=log, stderr=subprocess.STDOUT)


def log_of(tmp_path) -> str:
    path = tmp_path / "publisher.log"
    return path.read_text(errors="replace")[-3000:] if path.exists() else ""


def test_a_publisher_killed_after_the_broadcast_sends_no_second_transaction_on_restart(client, chain, w3, proxy, tmp_path):
    Chain.objects.filter(pk=chain.pk).update(enabled=False)  # rows written now are not published on commit (eager tasks)
    addresses = new_addresses(3)
    entity = onboard(client, addresses)
    external_screening(client, entity, "fail")
    Chain.objects.filter(pk=chain.pk).update(enabled=True)
    nonce = w3.eth.get_transaction_count(SIGNER)

    proxy.on("eth_sendRawTransaction", "hang")  # forwarded to anvil (which mines it), never answered
    process = publisher(tmp_path)
    try:
        assert proxy.forwarded.wait(120), f"the publisher never broadcast; its output:\n{log_of(tmp_path)}"
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
    proxy.clear()

    stored = ChainTransaction.objects.get(chain=chain, nonce=nonce)
    assert stored.status == "sent" and stored.sent_at is None  # killed before it noted the broadcast
    assert {(row.status, row.transaction_id) for row in rows_of(entity)} == {("published", stored.pk)}
    assert w3.eth.get_transaction_count(SIGNER) == nonce + 1  # the node has it

    restarted = publisher(tmp_path)
    assert restarted.wait(120) == 0, log_of(tmp_path)
    assert "3 wallets" in log_of(tmp_path) and "0 transactions signed" in log_of(tmp_path)

    assert list(ChainTransaction.objects.filter(chain=chain).values_list("nonce", flat=True)) == [nonce]
    assert transactions_of_nonce(w3, nonce) == [stored.tx_hash] and w3.eth.get_transaction_count(SIGNER) == nonce + 1
    oracle = contract_at(w3, "ComplianceOracle", chain.oracle_address)
    assert all(len(updated_events(oracle, address)) == 1 for address in addresses)
    assert_published_on_chain(oracle, entity)
