"""`python manage.py rescreen_entities (--all | --list SOURCE [--list-version N] ...) [--dry-run]`

Re-screening against the sanctions lists, for an operator. A list change re-screens by itself (the
lists-changed callback queues `onboarding.rescreen_for_changes`, which picks the entities the
change's diff can affect); this command is for the other cases:

- `--all`: queue every entity that is not rejected (`onboarding.rescreen_all`), for example after a
  change of the matcher or of the thresholds, which no list diff reflects;
- `--list SOURCE [--list-version N]`: queue the targeted re-screening of that list version again (default:
  its latest), as the beat sweep does for a list whose re-screening never ran.

`--dry-run` prints how many entities would be queued, and why, without queueing anything.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from onboarding import selectors
from onboarding.screening.rescreen import plan_for_versions
from onboarding.tasks import rescreen_all, rescreen_for_changes


class Command(BaseCommand):
    help = "Re-screen entities against the sanctions lists: all of them, or those a list version's changes can affect."

    def add_arguments(self, parser):
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--all", action="store_true", help="Every entity that is not rejected, whatever changed.")
        target.add_argument("--list", action="append", dest="lists", metavar="SOURCE",
                            help="The entities the list's latest version (or --list-version) can affect; repeatable.")
        parser.add_argument("--list-version", type=int, dest="version", help="With one --list: this version number instead of the latest.")
        parser.add_argument("--dry-run", action="store_true", help="Print the selection; queue nothing.")

    def handle(self, *args, **options):
        total = selectors.entity_count_to_rescreen()
        if options["all"]:
            if options["version"] is not None:
                raise CommandError("--list-version goes with --list.")
            if not options["dry_run"]:
                rescreen_all.delay()
            self.stdout.write(f"{'Would queue' if options['dry_run'] else 'Queued'} all {total} entities for re-screening.")
            return
        versions = self._versions(options)
        if options["dry_run"]:
            self.stdout.write(f"Dry run, nothing queued: {plan_for_versions(versions).describe()}")
            return
        rescreen_for_changes.delay(versions)
        named = ", ".join(f"{source} v{number}" if number else f"{source} (latest version)" for source, number in versions.items())
        self.stdout.write(f"Queued the re-screening of the entities {named} can affect (of {total}); the worker logs the selection.")

    def _versions(self, options) -> dict[str, int | None]:
        sources = list(dict.fromkeys(options["lists"]))
        unknown = sorted(set(sources) - set(selectors.lists_of(sources)))
        if unknown:
            raise CommandError(f"No such list loaded: {', '.join(unknown)}.")
        if options["version"] is not None and len(sources) != 1:
            raise CommandError("--list-version goes with exactly one --list.")
        versions = dict.fromkeys(sources, options["version"])
        found = selectors.list_versions(versions)
        missing = [source for source in sources if options["version"] is not None and found[source] is None]
        if missing:
            raise CommandError(f"{missing[0]} has no version {options['version']}.")
        return versions
