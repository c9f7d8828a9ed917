"""`python manage.py sanctions_status`: one line per loaded list (name, publication date, entries,
how current) and how to refresh; a warning for each stale list. `make run` prints it after loading."""

from django.core.management.base import BaseCommand

from onboarding.sanctions.status import REFRESH_HINT, lists_status, refresh_problems, stale_days


class Command(BaseCommand):
    help = "Show each loaded sanctions list: publication date, entries, age; warn about stale ones."

    def handle(self, *args, **options):
        statuses = lists_status()
        if not statuses:
            self.stdout.write("Sanctions lists: none loaded; screening records 'lists not loaded'. Run: python manage.py load_sanctions")
            return
        for status in statuses:
            published = status.published_at.date().isoformat() if status.published_at else "no date given"
            refreshed = ""
            if status.last_refresh_outcome:
                refreshed = f", last refresh {status.last_refresh_at:%Y-%m-%d %H:%M} {status.last_refresh_outcome}"
            self.stdout.write(f"Sanctions list {status.name} ({status.source}): published {published}, "
                              f"{status.entry_count:,} entries, current as of {status.current_as_of.date().isoformat()}{refreshed}")
        for status in statuses:
            if status.stale:
                self.stdout.write(self.style.WARNING(
                    f"Warning: {status.source} is {status.age_days} days old (more than {stale_days()}); screening uses it, "
                    "but /health reports degraded until it is refreshed"))
        for problem in refresh_problems():
            self.stdout.write(self.style.WARNING(f"Warning: {problem}"))
        self.stdout.write(f"Refresh from the publishers: {REFRESH_HINT} (Celery beat also runs it daily)")
