"""Backtest and sweep times over a labelled synthetic book, and batch onboarding against one by one.

    .venv/bin/python bench/backtest.py [--entities 20000] [--transfers 120000] [--days 30] [--seed 11]
                                       [--rule rapid_pass_through] [--old-chunks 12] [--repeat 3] [--onboard 20000]
                                       [--one-by-one 200] [--skip-onboarding]

(Figures and how to read them: docs/backtests.md, "Figures".)

Creates a fresh PostgreSQL database (`h_backtest`; BENCH_DATABASE_URL) and uses Redis db 11 (BENCH_REDIS_URL)
for the rate limiter and as the broker (the onboarding's screening tasks are enqueued there, not run). Writes
a synthetic bank in the live mode: `--entities` customers with one wallet each and `--transfers` transfers
over `--days` days, stored as already monitored (COPY):

- background: salaries and other inflows from outside addresses, card-like spending to a pool of merchants,
  transfers between customers; amounts log-normal (heavy-tailed), each customer with a rhythm of its own;
- planted, labelled (uploaded through the label service): fan-in sinks (10-16 outside senders within a day,
  then most of it sent on within hours) and pass-through mules (an inflow sent on at 95-99 % within hours),
  about 9 % of the customers together; every other customer is labelled negative.

Then measures, in this process, through the services the API calls:

1. the backtest of one rule (candidate vs current) over the whole book: the new path (one prepared history),
   and the old one (the live path per 1,000-event chunk and per variant) on the first `--old-chunks` chunks,
   extrapolated to the whole book;
2. a 20-point sweep of the same rule (4 windows x 5 shares);
3. onboarding `--onboard` entities through POST /v1/onboarding/entities/batch, 1,000 a request (in-process
   API client: the whole Django stack without the network), against `--one-by-one` single POSTs
   extrapolated to the same number.
"""

import argparse
import math
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import ROOT, fresh_database, settle_database  # noqa: E402

START = datetime(2026, 1, 1, tzinfo=UTC)


def setup_django(database_url: str, redis_url: str) -> None:
    os.environ.update({"DATABASE_URL": database_url, "REDIS_URL": redis_url, "CELERY_BROKER_URL": redis_url, "LOG_LEVEL": "WARNING",
                       "CELERY_TASK_ALWAYS_EAGER": "false"})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def address(n: int) -> str:
    return f"0x{n:040x}"


class Book:
    """The synthetic bank: customers, planted typologies, and the transfers in time order."""

    def __init__(self, entities: int, transfers: int, days: int, seed: int):
        self.rnd = random.Random(seed)
        self.entities, self.days = entities, days
        self.end = START + timedelta(days=days)
        self.merchants = [address(10_000_000 + i) for i in range(2000)]
        self.outside = [address(20_000_000 + i) for i in range(20000)]
        shuffled = list(range(entities))
        self.rnd.shuffle(shuffled)
        planted = int(entities * 0.09)
        self.labels = {index: "fan_in" for index in shuffled[: planted // 2]}
        self.labels.update({index: "pass_through" for index in shuffled[planted // 2 : planted]})
        self.rows: list[tuple] = []  # (timestamp, from address, to address, usd, from index or None, to index or None)
        self._plant()
        self._background(transfers - len(self.rows))
        self.rows.sort(key=lambda row: row[0])

    def customer(self, index: int) -> str:
        return address(index + 1)

    def _moment(self) -> datetime:
        return START + timedelta(seconds=self.rnd.random() * (self.days - 2) * 86400)

    def _amount(self, median: float, sigma: float = 1.0) -> Decimal:
        return Decimal(str(round(math.exp(math.log(median) + sigma * self.rnd.gauss(0, 1)), 2))).max(Decimal("1.00"))

    def _add(self, at, sender, receiver, usd, from_index=None, to_index=None):
        self.rows.append((at, sender, receiver, usd, from_index, to_index))

    def _plant(self) -> None:
        for index, typology in self.labels.items():
            me, at = self.customer(index), self._moment()
            if typology == "fan_in":
                total = Decimal(0)
                for sender in self.rnd.sample(self.outside, self.rnd.randint(10, 16)):
                    usd = self._amount(900, 0.4)
                    total += usd
                    self._add(at + timedelta(minutes=self.rnd.randint(0, 1200)), sender, me, usd, to_index=index)
                self._add(at + timedelta(hours=self.rnd.randint(21, 26)), me, self.rnd.choice(self.outside),
                          (total * Decimal(self.rnd.uniform(0.9, 0.98))).quantize(Decimal("0.01")), from_index=index)
            else:
                usd = self._amount(4000, 0.6)
                self._add(at, self.rnd.choice(self.outside), me, usd, to_index=index)
                self._add(at + timedelta(hours=self.rnd.uniform(0.5, 12)), me, self.rnd.choice(self.outside),
                          (usd * Decimal(self.rnd.uniform(0.95, 0.99))).quantize(Decimal("0.01")), from_index=index)

    def _background(self, count: int) -> None:
        for _ in range(count):
            kind, index = self.rnd.random(), self.rnd.randrange(self.entities)
            me, at = self.customer(index), self._moment()
            if kind < 0.25:  # salaries and other inflows
                self._add(at, self.rnd.choice(self.outside[:500]), me, self._amount(2500, 0.5), to_index=index)
            elif kind < 0.8:  # spending
                self._add(at, me, self.rnd.choice(self.merchants), self._amount(60, 1.1), from_index=index)
            else:  # between customers
                other = self.rnd.randrange(self.entities)
                self._add(at, me, self.customer(other), self._amount(150, 1.0), from_index=index, to_index=other)


def seed(book: Book):
    """The organization, the customers with their wallets, the transfers (COPY) and the labels."""
    from django.db import connection

    from common.ids import uuid7
    from common.principal import Principal
    from monitoring.labels.services import labels_upload
    from monitoring.models import AssetPrice
    from onboarding.models import Entity, Wallet
    from organizations.models import Organization

    org = Organization.objects.create(name="Bench Bank", slug="bench-bank")
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    entities = [Entity(organization=org, mode="live", legal_name=f"Customer {i:05d}", entity_type="individual", jurisdiction="US",
                       status="active", external_id=f"c-{i}") for i in range(book.entities)]
    Entity.objects.bulk_create(entities, batch_size=2000)
    Wallet.objects.bulk_create([Wallet(organization=org, mode="live", entity=entity, chain_id=1, address=book.customer(i),
                                       first_seen_at=START - timedelta(days=400)) for i, entity in enumerate(entities)], batch_size=5000)
    ids = [entity.pk for entity in entities]
    columns = ("id", "created_at", "updated_at", "organization_id", "mode", "chain_id", "tx_hash", "log_index", "from_address",
               "to_address", "amount", "asset", "usd_value", "timestamp", "reference", "from_entity_id", "to_entity_id",
               "monitored", "source", "orphaned")
    now = datetime.now(UTC)
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY monitoring_transaction ({', '.join(columns)}) FROM STDIN") as copy:
        for n, (at, sender, receiver, usd, from_index, to_index) in enumerate(book.rows):
            copy.write_row((uuid7(), now, now, org.pk, "live", 1, f"0x{n:064x}", 0, sender, receiver, usd, "USDC", usd, at, "",
                            None if from_index is None else ids[from_index], None if to_index is None else ids[to_index], True,
                            "backfill", False))
    rows = [(i + 2, {"external_id": f"c-{i}", "label": "positive" if i in book.labels else "negative",
                     "typology": book.labels.get(i, "")}) for i in range(book.entities)]
    labels_upload(principal=Principal.system(org, "live"), rows=rows)
    return org


def timed(label: str, run):
    started = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - started
    print(f"{label}: {seconds:.1f} s", flush=True)
    return result, seconds


def old_replay(principal, rule, parameters, start, end, chunks: int) -> tuple[int, float]:
    """The former backtest: the live path (evaluate_batch) once per 1,000-event chunk and per variant,
    over the first `chunks` chunks. Returns (events replayed, seconds)."""
    from monitoring.configuration.selectors import engine_settings
    from monitoring.engine.runner import evaluate_batch
    from monitoring.models import Transaction

    variants = [engine_settings(principal.organization, only=[rule], overrides={rule: {"enabled": True, "parameters": parameters}}),
                engine_settings(principal.organization, only=[rule], overrides={rule: {"enabled": True}})]
    transfers = list(Transaction.objects.filter(organization=principal.organization, mode=principal.mode, timestamp__gte=start,
                                                timestamp__lte=end).order_by("timestamp", "id")[: chunks * 1000])
    started = time.perf_counter()
    for index in range(0, len(transfers), 1000):
        for settings in variants:
            evaluate_batch(organization=principal.organization, mode=principal.mode, transactions=transfers[index:index + 1000],
                           settings=settings)
    return len(transfers), time.perf_counter() - started


def backtests(org, args) -> None:
    from common.principal import Principal
    from monitoring.backtest import rule_backtest

    principal = Principal.system(org, "live")
    start, end = START, START + timedelta(days=args.days)
    candidate = {"min_outflow_pct": "95"} if args.rule == "rapid_pass_through" else {}
    runs = [timed(f"backtest of {args.rule} (candidate and current), new path, run {n + 1} of {args.repeat}",
                  lambda: rule_backtest(principal=principal, rule_id=args.rule, parameters=candidate, start=start, end=end))
            for n in range(args.repeat)]
    report, new_seconds = runs[0][0], sorted(seconds for _, seconds in runs)[len(runs) // 2]
    print(f"  median {new_seconds:.1f} s (the first run includes the process's first queries of each kind)")
    print(f"  events replayed {report['events_replayed']}, entities {report['labels']['entities']}, "
          f"positives {report['labels']['positives']}")
    for side in ("current", "candidate"):
        m = report["metrics"][side]
        print(f"  {side}: flagged {m['flagged_entities']}, precision {m['precision']}, recall {m['recall']}, f1 {m['f1']}, "
              f"alerts per 1,000 {m['alerts_per_1000_entities']}")
    replayed, old_seconds = old_replay(principal, args.rule, candidate, start, end, args.old_chunks)
    whole = old_seconds * report["events_replayed"] / max(replayed, 1)
    print(f"backtest, old path: {old_seconds:.1f} s for the first {replayed} events -> {whole:.0f} s extrapolated to "
          f"{report['events_replayed']} (x{whole / new_seconds:.1f} the new path)")
    grid = {"window_hours": [6, 12, 24, 48], "min_outflow_pct": ["80", "85", "90", "95", "99"]} if args.rule == "rapid_pass_through" \
        else None
    if grid:
        sweep, seconds = timed("sweep of 20 combinations (one request)", lambda: rule_backtest(
            principal=principal, rule_id=args.rule, parameters={}, start=start, end=end, grid=grid,
            objective={"maximise": "recall", "min_precision": 0.5}))
        best = sweep["sweep"]["best"]
        print(f"  best under precision >= 0.5: {best and best['parameters']} "
              f"(precision {best and best['metrics']['precision']}, recall {best and best['metrics']['recall']})")
        print(f"  old path, extrapolated: {whole / 2 * 21:.0f} s (each combination and the current side replayed apart)")


def onboarding(org, args) -> None:
    from rest_framework.test import APIClient

    from organizations.choices import Mode, Role, Tier
    from organizations.services import api_key_issue

    secret = api_key_issue(organization=org, mode=Mode.TEST, tier=Tier.PREMIUM, role=Role.ADMIN, name="bench").secret
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")

    def entity(n: int) -> dict:
        return {"legal_name": f"Migrated {n:05d}", "entity_type": "individual", "jurisdiction": "US", "external_id": f"m-{n}",
                "wallets": [{"chain_id": 1, "address": address(90_000_000 + n)}]}

    def batches():
        for first in range(0, args.onboard, 1000):
            response = client.post("/v1/onboarding/entities/batch", {"entities": [entity(n) for n in range(first, first + 1000)]},
                                   format="json")
            assert response.status_code == 201, response.content[:500]

    _, batch_seconds = timed(f"batch onboarding of {args.onboard} entities, 1,000 a request", batches)

    def singles():
        for n in range(args.onboard, args.onboard + args.one_by_one):
            response = client.post("/v1/onboarding/entities", entity(n), format="json")
            assert response.status_code == 201, response.content[:500]

    _, single_seconds = timed(f"{args.one_by_one} single onboardings", singles)
    whole = single_seconds * args.onboard / args.one_by_one
    print(f"  one by one, extrapolated to {args.onboard}: {whole:.0f} s (x{whole / batch_seconds:.1f} the batches)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=20000)
    parser.add_argument("--transfers", type=int, default=120000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--rule", default="rapid_pass_through")
    parser.add_argument("--old-chunks", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=3, help="runs of the single backtest (the median is compared)")
    parser.add_argument("--onboard", type=int, default=20000)
    parser.add_argument("--one-by-one", type=int, default=200)
    parser.add_argument("--skip-onboarding", action="store_true")
    args = parser.parse_args()
    database = fresh_database(os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/h_backtest"))
    setup_django(database, os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/11"))
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    book, _ = timed(f"generate {args.entities} customers, {args.transfers} transfers", lambda: Book(
        args.entities, args.transfers, args.days, args.seed))
    org, _ = timed("store them and their labels", lambda: seed(book))
    settle_database(database)
    backtests(org, args)
    import resource

    print(f"peak resident memory of this process so far: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    if not args.skip_onboarding:
        onboarding(org, args)


if __name__ == "__main__":
    main()
