"""python manage.py backfill FILE --org SLUG [--mode live|test] [--restart]

Stores historical transactions and fiat events (CSV with a header, or JSON Lines; the fields of
the API's ingest requests; a record with `event_type` is a fiat event) without evaluating them,
then `run_monitoring` evaluates them in time order. Idempotent: a stored transaction or
referenced fiat event is skipped. Resumable: a checkpoint remembers the last stored line.
"""

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from common.errors import ServiceError
from common.principal import Principal
from monitoring import backfill
from monitoring.choices import Source
from monitoring.ingestion.services import fiat_events_store, transactions_ingest_batch
from organizations.choices import Mode
from organizations.selectors import organization_by_slug

CHUNK = 1000


class Command(BaseCommand):
    help = "Store historical transactions and fiat events (CSV or JSON Lines) without monitoring; resumable."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--org", required=True, help="organization slug")
        parser.add_argument("--mode", default=Mode.LIVE, choices=Mode.values,
                            help="the mode the records are stored in (default: live); records stored in test mode are "
                                 "what a test key (sk_test_..., as make run prints) sees")
        parser.add_argument("--restart", action="store_true", help="ignore the checkpoint and read from the first line")

    def handle(self, *args, file: Path, org: str, mode: str, restart: bool, **options):
        organization = organization_by_slug(org)
        if organization is None:
            raise CommandError(f"No organization has the slug {org!r}.")
        if not file.exists():
            raise CommandError(f"{file} does not exist.")
        checkpoint = backfill.Checkpoint(file, org, mode)
        if restart:
            checkpoint.clear()
        resume_after = checkpoint.done()
        if resume_after:
            self.stdout.write(f"Resuming after line {resume_after} (use --restart to read from the start).")
        self.principal = Principal.system(organization, mode)
        self.totals = {"stored": 0, "skipped": 0, "invalid": 0}
        self.started = time.monotonic()
        pending = {"transaction": [], "fiat": []}
        last_line = resume_after
        for line, record in backfill.read(file):
            if line <= resume_after:
                continue
            kind, item, errors = backfill.validated(record)
            if errors:
                self.totals["invalid"] += 1
                for error in errors:
                    self.stderr.write(f"line {line}: {error}")
            else:
                pending[kind].append(item)
            last_line = line
            if sum(len(items) for items in pending.values()) >= CHUNK:
                self._flush(pending, checkpoint, last_line)
        self._flush(pending, checkpoint, last_line)
        self._finish(org, mode)

    def _finish(self, org: str, mode: str) -> None:
        """The summary and the next step; a non-zero exit when a line was rejected, so a script notices."""
        totals = self.totals
        summary = f"Done: {totals['stored']} stored, {totals['skipped']} already there, {totals['invalid']} invalid."
        self.stdout.write(self.style.SUCCESS(summary) if not totals["invalid"] else summary)
        self.stdout.write(f"Now run: .venv/bin/python manage.py run_monitoring --org {org} --mode {mode}")
        if totals["invalid"]:
            raise CommandError(f"{totals['invalid']} line(s) rejected, listed above; the other lines are stored. Fix the file and "
                               "run backfill again: records already stored are skipped.")

    def _flush(self, pending: dict, checkpoint, line: int) -> None:
        try:
            if pending["transaction"]:
                outcome = transactions_ingest_batch(principal=self.principal, items=pending["transaction"], run_monitoring=False,
                                                    source=Source.BACKFILL)
                self._count(outcome)
            if pending["fiat"]:
                self._count(fiat_events_store(principal=self.principal, items=pending["fiat"]))
        except ServiceError as exc:
            raise CommandError(f"before line {line}: {exc.message}") from None
        pending["transaction"], pending["fiat"] = [], []
        checkpoint.save(line)
        rate = (self.totals["stored"] + self.totals["skipped"]) / max(time.monotonic() - self.started, 1e-6)
        self.stdout.write(f"  line {line}: {self.totals['stored']} stored, {self.totals['skipped']} skipped, "
                          f"{self.totals['invalid']} invalid ({rate:,.0f} records/s)")

    def _count(self, outcome) -> None:
        self.totals["stored"] += outcome.ingested
        self.totals["skipped"] += outcome.skipped
