"""`python manage.py refresh_sanctions [--list SOURCE ...] [--force]`

Downloads the lists from their publishers (or the URLs set by SANCTIONS_URL_<SOURCE>_<FILE>) and
loads those that changed, each on its own (onboarding.sanctions.refresh): by default the lists of
SANCTIONS_REFRESH_LISTS, else every bundled list. Prints what it downloads and parses, then one
outcome line per list:

    ofac_sdn: loaded as version 3: 12 added, 3 changed, 1 removed
    un_consolidated: unchanged: the publisher's files are those of version 2
    ofac_sdn: refused: the list would fall by 50 % (…): version 2 stays in force. …--force…
    eu_fsf: failed: https://…: HTTP 403 Forbidden

Every list is tried; the command exits non-zero when any failed or was refused (the lists in force
stay as they were). `--force` loads files that remove more than a tenth of a list, or that lack an
optional file the version in force had: use it once you have checked the publisher really did that.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from onboarding.models.sanctions import RefreshOutcome
from onboarding.sanctions.refresh import GOOD_OUTCOMES, outcome_line, sanctions_list_refresh, scheduled_sources
from onboarding.sanctions.registry import UnknownList, list_spec


class Command(BaseCommand):
    help = "Download the sanctions lists from their publishers and load those that changed."

    def add_arguments(self, parser):
        parser.add_argument("--list", action="append", dest="lists", metavar="SOURCE",
                            help="A list to refresh (repeatable): ofac_sdn, un_consolidated, ofac_consolidated, us_csl, bis_dpl, "
                                 "eu_fsf, uk_sanctions, os_<dataset>. Default: SANCTIONS_REFRESH_LISTS, else every bundled list.")
        parser.add_argument("--force", action="store_true",
                            help="Load even if the files remove more than a tenth of a list's entries (a real mass delisting) "
                                 "or lack an optional file the version in force had.")

    def handle(self, *args, **options):
        sources = options["lists"] or scheduled_sources()
        if options["lists"]:
            try:
                for source in sources:
                    list_spec(source)
            except UnknownList as error:
                raise CommandError(str(error))
        problems: list[str] = []
        for source in sources:
            refresh = sanctions_list_refresh(source=source, force=options["force"], trigger="command", progress=self.stdout.write)
            line = outcome_line(refresh)
            if refresh.outcome in GOOD_OUTCOMES:
                self.stdout.write(line)
            else:
                self.stderr.write(line)
                problems.append(line)
            if refresh.outcome == RefreshOutcome.LOADED and getattr(refresh, "announce_failures", None):
                problems.append(f"{source}: loaded, but lists-changed callback(s) failed")
        if problems:
            raise CommandError(f"{len(problems)} problem(s) refreshing {len(sources)} list(s) (a list that failed or was refused "
                               "keeps the version in force): " + " | ".join(problems))
        self.stdout.write(f"{len(sources)} list(s) refreshed.")
