"""python manage.py run_monitoring --org SLUG [--mode live|test] [--since DATE]

Evaluates stored events that were not monitored yet (a backfill), in time order, through exactly
the path live ingestion takes (monitoring.engine.runner.monitor), in chunks.
"""

import time

from django.core.management.base import BaseCommand, CommandError
from django.utils.dateparse import parse_date, parse_datetime

from monitoring.engine.runner import monitor
from monitoring.models import FiatEvent, Transaction
from organizations.choices import Mode
from organizations.selectors import organization_by_slug

CHUNK = 1000


class Command(BaseCommand):
    help = "Evaluate stored, not yet monitored transactions and fiat events in time order, as live ingestion would."

    def add_arguments(self, parser):
        parser.add_argument("--org", required=True)
        parser.add_argument("--mode", default=Mode.LIVE, choices=Mode.values)
        parser.add_argument("--since", help="only events at or after this date or date-time (UTC)")

    def handle(self, *args, org: str, mode: str, since: str | None, **options):
        organization = organization_by_slug(org)
        if organization is None:
            raise CommandError(f"No organization has the slug {org!r}.")
        filters = {"organization": organization, "mode": mode, "monitored": False}
        if since:
            moment = parse_datetime(since) or (parse_date(since) and parse_datetime(f"{since}T00:00:00Z"))
            if moment is None:
                raise CommandError(f"--since {since!r} is not a date or date-time.")
            filters["timestamp__gte"] = moment
        total = Transaction.objects.filter(**filters).count() + FiatEvent.objects.filter(**filters).count()
        self.stdout.write(f"{total} events to evaluate.")
        done, alerts, started = 0, 0, time.monotonic()
        for transactions, fiat_events in self._chunks(filters):
            alerts += monitor(organization=organization, mode=mode, transactions=transactions, fiat_events=fiat_events)
            done += len(transactions) + len(fiat_events)
            rate = done / max(time.monotonic() - started, 1e-6)
            share = 100 * done // max(total, 1)
            self.stdout.write(f"  {done}/{total} ({share}%), {alerts} alerts opened or extended, {rate:,.0f} events/s")
        self.stdout.write(self.style.SUCCESS(f"Done: {done} events evaluated."))

    @staticmethod
    def _chunks(filters):
        """The next CHUNK events of both kinds in (timestamp, id) order, until none is left."""
        while True:
            transactions = list(Transaction.objects.filter(**filters).order_by("timestamp", "id")[:CHUNK])
            fiat_events = list(FiatEvent.objects.filter(**filters).order_by("timestamp", "id")[:CHUNK])
            merged = sorted([*transactions, *fiat_events], key=lambda event: (event.timestamp, event.pk))[:CHUNK]
            if not merged:
                return
            yield ([event for event in merged if isinstance(event, Transaction)],
                   [event for event in merged if isinstance(event, FiatEvent)])
