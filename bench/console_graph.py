"""Figures of the console's counterparty graph and case page (issue 28, "Figures").

    .venv/bin/python bench/console_graph.py [--counterparties 5000] [--runs 15] [--case-height] [--postgres URL]

1. The graph endpoint (GET /v1/onboarding/entities/{id}/counterparty-graph) for an entity with
   `--counterparties` counterparties, each sending it two transfers and sending two more to outside
   addresses (the second hop): server time through the whole Django stack (test client, API key,
   middleware, serializer), median of `--runs`, and the payload's size. Goal: ≤ 200 ms, ≤ 200 KB.
2. `--case-height`: the case page's height at 1,400 px in headless Chromium, for a case of 51
   transfers (fifty of 100 USDC from ten senders and one from a sanctioned address). This part uses
   nothing of the graph, so the same script measures the code before this work (copy it into a
   checkout of the older code and run it there).

A fresh SQLite database in a temporary folder (or `--postgres`, a database it drops and creates).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
GOAL_MS, GOAL_KB = 200, 200
PASSWORD = "Bench-console 2026!"


def setup(postgres: str | None) -> None:
    folder = tempfile.mkdtemp(prefix="console-bench-")
    os.environ["DATA_DIR"] = folder
    os.environ["RATE_LIMIT_ENABLED"] = "false"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if postgres:
        sys.path.insert(0, str(ROOT / "bench"))
        from harness import fresh_database

        os.environ["DATABASE_URL"] = fresh_database(postgres)
    else:
        os.environ["DATABASE_URL"] = f"sqlite:///{folder}/bench.sqlite3"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)


def organization():
    from organizations.models import Organization

    return Organization.objects.create(name="Bench", slug=f"bench-{time.time_ns()}")


def seed_neighbourhood(org, counterparties: int):
    from django.utils import timezone

    from monitoring.models import Transaction
    from onboarding.models import Entity

    entity = Entity.objects.create(organization=org, mode="live", legal_name="Hub Traders", entity_type="business", jurisdiction="US")
    now, wallet, rows = timezone.now(), "0x" + "5a" * 20, []
    for i in range(counterparties):
        sender = f"0x{i + 1:040x}"
        for j in range(2):
            rows.append(dict(from_address=sender, to_address=wallet, to_entity=entity, usd_value=Decimal(100 + i + j)))
            rows.append(dict(from_address=sender, to_address=f"0x{(i * 2 + j) + 10**9:040x}", usd_value=Decimal(50 + j)))
    Transaction.objects.bulk_create([Transaction(organization=org, mode="live", chain_id=1, tx_hash=f"0x{n:064x}", amount="1", asset="USDC",
                                                 timestamp=now - timedelta(days=1 + n % 60), **row) for n, row in enumerate(rows)],
                                    batch_size=2000)
    return entity, len(rows)


def settle() -> None:
    """On PostgreSQL, fresh statistics before measuring (bench/harness.settle_database)."""
    from django.db import connection

    if connection.vendor == "postgresql":
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE monitoring_transaction")


def graph_figures(counterparties: int, runs: int) -> bool:
    from rest_framework.test import APIClient

    from organizations.services import api_key_issue

    org = organization()
    entity, transfers = seed_neighbourhood(org, counterparties)
    settle()
    client = APIClient()
    secret = api_key_issue(organization=org, mode="live", tier="premium", role="viewer", name="bench").secret
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    print(f"counterparty graph: {counterparties} counterparties, {transfers} transfers; median of {runs} runs (after one warm-up)")
    ok = True
    for query in ("hops=1&limit=50", "hops=2&limit=50", "hops=2&limit=200"):
        url = f"/v1/onboarding/entities/{entity.pk}/counterparty-graph?{query}"
        response = client.get(url)
        assert response.status_code == 200, response.content[:300]
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - start) * 1000)
        body, size = response.json(), len(response.content) / 1024
        median = statistics.median(times)
        ok &= median <= GOAL_MS and size <= GOAL_KB
        verdict = "ok" if median <= GOAL_MS and size <= GOAL_KB else "OVER the goal"
        print(f"  {query:<17} median {median:6.1f} ms (min {min(times):.1f}, max {max(times):.1f}); {size:6.1f} KB; "
              f"{len(body['nodes'])} nodes, {len(body['edges'])} edges, cut {body['cut']['counterparties_shown']}/"
              f"{body['cut']['counterparties_total']} + {body['cut']['second_hop_shown']}/{body['cut']['second_hop_total']}  {verdict} "
              f"(goal <= {GOAL_MS} ms, <= {GOAL_KB} KB)")
    return ok


def profile(counterparties: int) -> None:
    import cProfile
    import pstats

    from monitoring.graph.selectors import counterparty_graph

    org = organization()
    entity, _ = seed_neighbourhood(org, counterparties)
    counterparty_graph(organization=org, mode="live", entity=entity)
    with cProfile.Profile() as profiler:
        counterparty_graph(organization=org, mode="live", entity=entity)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


def seed_case(org):
    """The 51-transfer case, through the API as a client sends it."""
    from django.utils import timezone
    from rest_framework.test import APIClient

    from filings.models import Case
    from monitoring.models import AddressTag, AssetPrice
    from organizations.services import api_key_issue

    client = APIClient()
    secret = api_key_issue(organization=org, mode="live", tier="premium", role="admin", name="bench").secret
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    AddressTag.objects.create(organization=org, address="0x" + "dd" * 20, category="sanctions", source="bench")
    wallet = "0x52908400098527886e0f7030069857d2e4169ee7"
    made = client.post("/v1/onboarding/entities", {"legal_name": "Nova Traders LLC", "entity_type": "business", "jurisdiction": "US",
                                                   "wallets": [{"chain_id": 1, "address": wallet}]}, format="json")
    assert made.status_code == 201, made.content
    start = timezone.now() - timedelta(hours=3)
    transfers = [{"chain_id": 1, "tx_hash": f"0x{i + 1:064x}", "from_address": "0x" + f"{0x10 + i % 10:02x}" * 20,
                  "to_address": wallet, "amount": "100", "asset": "USDC", "timestamp": (start + timedelta(seconds=30 * i)).isoformat()}
                 for i in range(50)]
    transfers.append({"chain_id": 1, "tx_hash": "0x" + "ff" * 32, "from_address": "0x" + "dd" * 20, "to_address": wallet, "amount": "500",
                      "asset": "USDC", "timestamp": (start + timedelta(minutes=40)).isoformat()})
    sent = client.post("/v1/monitoring/transfers/batch", {"transactions": transfers}, format="json")
    assert sent.status_code == 200, sent.content
    return Case.objects.get(entity_id=made.json()["id"])


def case_height() -> None:
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.test.testcases import LiveServerThread
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from accounts.services import user_create_verified
    from organizations.models import Membership

    org = organization()
    case = seed_case(org)
    user = user_create_verified(email="bench@acme.example", password=PASSWORD)
    user.is_staff = user.is_superuser = True
    user.save()
    Membership.objects.create(organization=org, user=user, role="l2_investigator")
    server = LiveServerThread("127.0.0.1", StaticFilesHandler, port=0)
    server.daemon = True
    server.start()
    server.is_ready.wait()
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(argument)
    browser = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        base = f"http://127.0.0.1:{server.port}"
        browser.get(f"{base}/admin/login/")
        browser.find_element("name", "username").send_keys(user.email)
        browser.find_element("name", "password").send_keys(PASSWORD)
        browser.find_element("css selector", "input[type=submit]").click()
        time.sleep(1)
        browser.get(f"{base}/admin/filings/case/{case.pk}/change/")
        time.sleep(2)  # the graph, where there is one, loads after the page
        height = browser.execute_script("return document.documentElement.scrollHeight")
        rows = browser.execute_script("return document.querySelectorAll('table tbody tr').length")
        print(f"case page at 1,400 px: {height} px tall ({case.reference}, {case.alerts.count()} alerts, 51 transfers; {rows} table rows)")
    finally:
        browser.quit()
        server.terminate()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counterparties", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--case-height", action="store_true", help="the case page's height alone (runs on older code too)")
    parser.add_argument("--profile", action="store_true", help="where the selector's time goes (cProfile)")
    parser.add_argument("--postgres", help="a PostgreSQL URL whose database is dropped and created")
    args = parser.parse_args()
    setup(args.postgres)
    if args.profile:
        profile(args.counterparties)
        return 0
    if args.case_height:
        case_height()
        return 0
    return 0 if graph_figures(args.counterparties, args.runs) else 1


if __name__ == "__main__":
    sys.exit(main())
