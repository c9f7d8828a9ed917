"""A worker killed mid-run: `manage.py index_chain` runs as a real process against the test database, one block per
range, its RPC through a loopback proxy in front of anvil that holds the third range's getLogs; the process is killed
(SIGKILL) once the second range is stored. Its lock runs out by itself, and the next run resumes from the cursor: every
transfer stored once.

Transactional (the process must see the committed rows), so in its own module (flushes_db)."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from django.conf import settings

from monitoring.indexer.extract import NATIVE_LOG_INDEX
from monitoring.indexer.services import index_pass
from monitoring.models import ChainCursor, Transaction
from tests.compliance.onchain.rpc_proxy import RpcProxy
from tests.databases import database_url
from tests.monitoring.indexer.helpers import register, send_eth

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]
ETH = 10**18


def indexer_process(tmp_path) -> subprocess.Popen:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": database_url(), "DATA_DIR": str(tmp_path),
           "CELERY_TASK_ALWAYS_EAGER": "false", "PYTHONPATH": str(settings.BASE_DIR), "INDEXER_INITIAL_SPAN": "1",
           "INDEXER_MAX_SPAN": "1", "INDEXER_LEASE_SECONDS": "3"}
    log = open(tmp_path / "indexer.log", "ab")  # noqa: SIM115 - the process writes it
    return subprocess.Popen([sys.executable, "manage.py", "index_chain", "--chain", "31337"], cwd=settings.BASE_DIR, env=env,
                            start_new_session=True, stdout=log, stderr=subprocess.STDOUT)


def test_a_killed_run_resumes_from_the_cursor_without_duplicates(api, key, org, chain, node, w3, accounts, tmp_path):
    register(api, key, org, [accounts[2]])
    start = w3.eth.block_number + 1
    ChainCursor.objects.create(chain=chain, start_block=start)
    sent = {send_eth(w3, accounts[4], accounts[2], n * ETH) for n in range(1, 7)}

    held, release, calls = threading.Event(), threading.Event(), []

    def hold_the_third_range(request):
        calls.append(request)
        if len(calls) == 3:  # one batch of by-hash getLogs a range (the window's blocks): the third range's
            held.set()
            release.wait(120)
        return None

    with RpcProxy(node.url) as proxy:
        chain.rpc_urls = [proxy.url]
        chain.save()
        proxy.on("eth_getLogs", "reply", call=hold_the_third_range)
        process = indexer_process(tmp_path)
        try:
            assert held.wait(120), (tmp_path / "indexer.log").read_text(errors="replace")[-3000:]
            # The third range is read while the second is delivered (one range ahead): killed once that is done.
            settled = time.monotonic() + 30
            while ChainCursor.objects.get(chain=chain).last_block != start + 1 and time.monotonic() < settled:
                time.sleep(0.05)
        finally:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
            release.set()

        cursor = ChainCursor.objects.get(chain=chain)
        assert cursor.last_block == start + 1 and cursor.lease_until is not None  # two ranges done; the lock left behind
        assert Transaction.objects.count() == 2

        deadline = time.monotonic() + 30
        while (result := index_pass(chain)).skipped_reason and time.monotonic() < deadline:
            time.sleep(0.5)  # until the killed run's lease runs out

    assert result.error == "" and result.start == start + 2 and result.end == w3.eth.block_number
    assert sorted(Transaction.objects.values_list("tx_hash", "log_index")) == sorted((tx_hash, NATIVE_LOG_INDEX) for tx_hash in sent)
    assert ChainCursor.objects.get(chain=chain).last_block == w3.eth.block_number
