"""`python manage.py sanctions_status`: one line per loaded list (name, publication date, entries,
how old) under a line saying how to refresh them; one warning naming the stale lists, and one per
list whose last refresh failed. `make run` prints it after loading."""

from django.core.management.base import BaseCommand

from onboarding.sanctions.status import REFRESH_HINT, lists_status, refresh_problems, stale_days


class Command(BaseCommand):
    help = "Show each loaded sanctions list: publication date, entries, age; warn about stale ones."

    def handle(self, *args, **options):
        statuses = lists_status()
        if not statuses:
            self.stdout.write("Sanctions lists: none loaded; screening records 'lists not loaded'. Run: python manage.py load_sanctions")
            return
        self.stdout.write(f"Sanctions lists (refresh from the publishers: {REFRESH_HINT}; Celery beat does it daily):")
        for status in statuses:
            published = status.published_at.date().isoformat() if status.published_at else "no date given"
            age = "today" if status.age_days == 0 else f"{status.age_days:,} day{'s' if status.age_days != 1 else ''} old"
            current = status.current_as_of.date().isoformat()
            as_of = f"current as of {current} ({age})" if current != published else age
            refreshed = f", last refresh {status.last_refresh_outcome}" if status.last_refresh_outcome else ""
            self.stdout.write(f"  {status.name} ({status.source}): published {published}, {status.entry_count:,} entries, "
                              f"{as_of}{refreshed}")
        stale = [status.source for status in statuses if status.stale]
        if stale:
            self.stdout.write(self.style.WARNING(
                f"Warning: {len(stale)} of {len(statuses)} lists are more than {stale_days()} days old ({', '.join(stale)}): "
                "screening uses them, but /health reports degraded until they are refreshed."))
        for problem in refresh_problems():
            self.stdout.write(self.style.WARNING(f"Warning: {problem}"))
