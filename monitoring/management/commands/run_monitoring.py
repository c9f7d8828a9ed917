"""python manage.py run_monitoring --org SLUG [--mode live|test] [--since DATE]

Evaluates stored events that were not monitored yet (a backfill), in time order, through exactly
the path live ingestion takes (monitoring.engine.runner.monitor), in chunks.
"""

import time
from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from monitoring.choices import EARLIEST_EVENT
from monitoring.engine.runner import UNMONITORED_CHUNK, monitor_unmonitored, unmonitored_filters
from monitoring.models import FiatEvent, Transaction
from organizations.choices import Mode
from organizations.selectors import organization_by_slug

CHUNK = UNMONITORED_CHUNK


def since_moment(text: str) -> datetime:
    """--since as an aware datetime: a bare date is midnight UTC, a date-time without an offset is UTC
    (docs/architecture.md §5: timestamps are aware UTC; a naive one made Django warn on every query)."""
    try:
        moment = parse_datetime(text)  # also parses a bare date, as midnight
    except ValueError:  # well formed but impossible (2026-13-01)
        moment = None
    if moment is None:
        raise CommandError(f"--since {text!r} is not a date (2026-11-01) or an ISO 8601 date-time (2026-11-01T08:00:00Z).")
    return moment if timezone.is_aware(moment) else moment.replace(tzinfo=UTC)


class Command(BaseCommand):
    help = "Evaluate stored, not yet monitored transactions and fiat events in time order, as live ingestion would."

    def add_arguments(self, parser):
        parser.add_argument("--org", required=True)
        parser.add_argument("--mode", default=Mode.LIVE, choices=Mode.values,
                            help="the mode whose stored events are evaluated (default: live), as backfill's --mode")
        parser.add_argument("--since", help="only events at or after this date (midnight UTC) or ISO 8601 date-time "
                                            "(UTC unless it has an offset)")

    def handle(self, *args, org: str, mode: str, since: str | None, **options):
        organization = organization_by_slug(org)
        if organization is None:
            raise CommandError(f"No organization has the slug {org!r}.")
        self._report_too_early({"organization": organization, "mode": mode, "monitored": False})
        start = since_moment(since) if since is not None else None
        filters = unmonitored_filters(organization=organization, mode=mode, since=start)
        total = Transaction.objects.filter(**filters).count() + FiatEvent.objects.filter(**filters).count()
        cutoff = f" (at or after {filters['timestamp__gte'].isoformat()})" if since is not None else ""
        self.stdout.write(f"{total} events to evaluate{cutoff}.")
        done, alerts, started = 0, 0, time.monotonic()
        for events, touched in monitor_unmonitored(organization=organization, mode=mode, since=start, chunk=CHUNK):
            done, alerts = done + events, alerts + touched
            rate = done / max(time.monotonic() - started, 1e-6)
            share = 100 * done // max(total, 1)
            self.stdout.write(f"  {done}/{total} ({share}%), {alerts} alerts opened or extended, {rate:,.0f} events/s")
        self.stdout.write(self.style.SUCCESS(f"Done: {done} events evaluated."))

    def _report_too_early(self, filters: dict) -> None:
        """Events stored with a time before 1970, before ingestion refused such times, cannot be
        evaluated (the rules' windows would start before year 1): they are named and left unmonitored."""
        early = {**filters, "timestamp__lt": EARLIEST_EVENT}
        count = Transaction.objects.filter(**early).count() + FiatEvent.objects.filter(**early).count()
        if count:
            self.stderr.write(f"{count} stored event(s) dated before 1970-01-01 are left unmonitored (the API refuses such times "
                              "now); correct or delete them.")
