"""The console's figures (issue 28; docs/console.md, "Speed").

    .venv/bin/python bench/console.py                     # 100,000 alerts and 10,000 cases
    .venv/bin/python bench/console.py --alerts 10000 --cases 1000 --runs 5

Sets Django up on a fresh SQLite database in a temporary DATA_DIR (or on DATABASE_URL if set, a
database of its own), bulk-creates one organization's work (`populate`: entities, alerts over 120
days across 12 rules, every severity, status and disposition, cases in every state, some assigned to
the member, open alerts in their entity's case, SARs filed over the year), then renders the
dashboard (the console's index, GET /admin/ through Django's test client, as an l2_investigator
member, so every panel and chart is read) --runs times with the charts read again (cold: the cache
cleared first) and --runs times with them cached (warm, console.views.cached_charts), and prints the
server time of each (goal: at most 300 ms), then, for scale on a loaded machine, the alert queue's
changelist, and the time of each panel and chart alone. Nothing is asserted. --data-dir keeps the
populated database for another run.

`populate` is what tests/console uses too, at a smaller size.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RULES = ["large_transfer", "structuring_below_threshold", "mixer_exposure", "rapid_pass_through", "fan_in", "peel_chain",
         "chain_hopping", "high_risk_jurisdiction", "wire_layering", "volume_spike", "dormant_reactivation", "sanctioned_exposure"]
SEVERITIES = ["critical", "high", "medium", "low"]
CASE_STATUSES = ["open", "investigating", "under_review", "escalated", "determination", "closed"]
CHUNK = 5000


@contextmanager
def stored_as_given(*models):
    """created_at as the builder sets it (bulk_create would stamp now on an auto_now_add field)."""
    fields = [model._meta.get_field("created_at") for model in models]
    for field in fields:
        field.auto_now_add = False
    try:
        yield
    finally:
        for field in fields:
            field.auto_now_add = True


def populate(organization, mode: str, *, alerts: int, cases: int, member, now=None, seed: int = 28) -> dict:
    """One organization's work, bulk-created: `alerts` alerts over `cases` entities or more (alert i on
    entity i mod E with rule i div E: never two open alerts of one rule on one entity), `cases` cases
    (case c on entity c), every open alert in its entity's case when that case is open; a fifth of the
    open cases assigned to `member`; SARs filed for a tenth of the closed cases. Returns the counts."""
    from django.db import transaction
    from django.utils import timezone

    from filings.models import Case, CaseAlert, FilingRecord
    from monitoring.models import Alert
    from onboarding.models import Entity

    now = now or timezone.now()
    rng = random.Random(seed)
    entities_count = max(cases, -(-alerts // len(RULES)))
    tenant = {"organization": organization, "mode": mode}
    with transaction.atomic(), stored_as_given(Entity, Alert, Case, FilingRecord):
        entities = Entity.objects.bulk_create([
            Entity(**tenant, legal_name=f"Customer {n:06d} Ltd", entity_type="business", jurisdiction="US",
                   created_at=now - timedelta(days=200), status=rng.choices(["active", "pending", "under_review"], weights=[90, 5, 5])[0])
            for n in range(entities_count)],
            batch_size=CHUNK)
        case_rows = []
        for c in range(cases):
            status = rng.choices(CASE_STATUSES, weights=[20, 15, 5, 3, 7, 50])[0]
            opened = now - timedelta(days=rng.uniform(0, 150))
            closed = min(opened + timedelta(days=rng.uniform(1, 40)), now) if status == "closed" else None
            case_rows.append(Case(**tenant, number=c + 1, entity=entities[c], status=status, priority=rng.choice(SEVERITIES),
                                  assigned_to=member if status != "closed" and c % 5 == 0 else None, created_at=opened,
                                  detected_at=opened, sla_started_at=opened, sla_due_at=opened + timedelta(days=30),
                                  report_due_at=opened + timedelta(days=30), closed_at=closed,
                                  filing_status="filed" if status == "closed" and c % 10 == 0 else "none"))
        stored_cases = Case.objects.bulk_create(case_rows, batch_size=CHUNK)
        alert_rows = []
        for a in range(alerts):
            created = now - timedelta(days=rng.uniform(0, 120))
            status = rng.choices(["open", "in_review", "closed"], weights=[10, 5, 85])[0]
            closed = status == "closed"
            rule = RULES[(a // entities_count) % len(RULES)]
            alert_rows.append(Alert(
                **tenant, entity=entities[a % entities_count], rule_number=RULES.index(rule) + 1, rule_code=rule,
                rule_name=rule.replace("_", " ").capitalize(), severity=rng.choice(SEVERITIES), description=f"{rule} fired.",
                status=status, evidence={"measured": {}}, created_at=created, first_triggered_at=created, last_triggered_at=created,
                sla_due_at=created + timedelta(days=rng.choice([1, 3, 7])),
                disposition=rng.choices(["false_positive", "true_positive", "inconclusive"], weights=[6, 2, 2])[0] if closed else "",
                disposed_at=created + timedelta(days=1) if closed else None))
        stored_alerts = Alert.objects.bulk_create(alert_rows, batch_size=CHUNK)
        links = [CaseAlert(case=stored_cases[a % entities_count], alert=alert) for a, alert in enumerate(stored_alerts)
                 if alert.status != "closed" and a % entities_count < cases and stored_cases[a % entities_count].status != "closed"]
        CaseAlert.objects.bulk_create(links, batch_size=CHUNK)
        filings = [FilingRecord(**tenant, family="suspicious_activity", kind="SAR", jurisdiction="US", entity=case.entity, case=case,
                                tracking_id=f"SAR-US-{case.number:08d}", amount=10000, currency="USD", filing_date=case.closed_at.date(),
                                filer={}, form_data={}, document=b"", content_type="application/xml", filename="sar.xml",
                                document_sha256="0" * 64, filed_at=case.closed_at, filed_by_actor="user", created_at=case.closed_at)
                   for case in stored_cases if case.filing_status == "filed"]
        FilingRecord.objects.bulk_create(filings, batch_size=CHUNK)
    return {"entities": len(entities), "alerts": len(stored_alerts), "cases": len(stored_cases), "case_alerts": len(links),
            "filings": len(filings)}


def set_up_django(data_dir: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["DATA_DIR"] = data_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)


def timed(function, *args) -> float:
    started = time.perf_counter()
    function(*args)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--alerts", type=int, default=100_000)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--data-dir", help="keep the database here and reuse it when run again (else a temporary one)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-console-") as temporary:
        set_up_django(options.data_dir or temporary)
        from django.conf import settings
        from django.test import Client
        from django.test.utils import setup_test_environment

        setup_test_environment()  # the test client's ALLOWED_HOSTS
        from accounts.services import user_create_verified
        from console import charts, dashboard
        from organizations.models import Membership, Organization

        engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        organization = Organization.objects.filter(slug="bench-bank").first()
        if organization is None:
            organization = Organization.objects.create(name="Bench Bank", slug="bench-bank")
            member = user_create_verified(email="investigator@bench.example", password="Bench-console 2026!")
            Membership.objects.create(organization=organization, user=member, role="l2_investigator")
            started = time.perf_counter()
            counts = populate(organization, "live", alerts=options.alerts, cases=options.cases, member=member)
            print(f"populated ({engine}) in {time.perf_counter() - started:.1f} s: " + ", ".join(f"{v:,} {k}" for k, v in counts.items()))
        else:
            member = Membership.objects.get(organization=organization).user
            print(f"reusing the database in {options.data_dir}")
        from django.db import connection

        if engine == "sqlite3":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        else:  # VACUUM ANALYZE and a CHECKPOINT (bench/harness.py): statistics and the visibility map after the bulk load
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from harness import settle_database

            settle_database(os.environ["DATABASE_URL"])
        console = Client()
        console.force_login(member)
        first = console.get("/admin/")
        assert first.status_code == 200, first.status_code
        from django.core.cache import cache

        def cold():
            cache.clear()  # the charts read again (console.views.cached_charts)
            console.get("/admin/")

        measured = {
            "dashboard, charts read (cold)": [timed(cold) for _ in range(options.runs)],
            "dashboard, charts cached (warm)": [timed(lambda: console.get("/admin/")) for _ in range(options.runs)],
            "for scale: the alert queue, Django's changelist": [timed(lambda: console.get("/admin/monitoring/alert/"))
                                                                for _ in range(options.runs)],
        }
        print(f"GET as an l2_investigator, {options.runs} runs each after one warm-up (goal for the dashboard: at most 300 ms); "
              f"dashboard page {len(first.content):,} bytes")
        for name, renders in measured.items():
            print(f"  {name}: median {statistics.median(renders):.0f} ms, min {min(renders):.0f} ms, max {max(renders):.0f} ms")
        scope = dashboard.Scope(organization=organization, mode="live", user=member, role="l2_investigator")
        tallies = charts.alert_tallies(scope)
        parts = {"my work": dashboard.my_work, "alert queue": dashboard.alert_queue, "case queue": dashboard.case_queue,
                 "overdue": dashboard.overdue, "SAR deadlines": dashboard.sar_deadlines, "314(a)": dashboard.fincen_314a_due,
                 "entity reviews": dashboard.entity_reviews, "chart alerts (one read for the next two)": charts.alert_tallies,
                 "chart alerts per rule": lambda scope: charts.alerts_per_rule_per_week(scope, tallies),
                 "chart dispositions": lambda scope: charts.dispositions_per_rule(scope, tallies),
                 "chart case throughput": charts.case_throughput,
                 "chart case ageing": charts.case_ageing, "chart SAR filings": charts.sar_filings_per_month}
        for name, part in parts.items():
            print(f"  {name}: median {statistics.median(timed(part, scope) for _ in range(3)):.0f} ms")


if __name__ == "__main__":
    main()
