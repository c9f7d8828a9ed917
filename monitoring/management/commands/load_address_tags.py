"""`python manage.py load_address_tags FILE.csv --org SLUG [--source NAME] [--replace]`

CSV with a header: chain_id, address, category and optionally source (a row's own source wins over
--source, which defaults to the file's name). chain_id empty means every chain; 0 is off-chain.
category is one of the categories the rules know (monitoring.rules.registry.TAG_CATEGORIES).
Invalid rows are reported with their line numbers and skipped, and the command then exits
non-zero; loading the same file again changes nothing. --replace also removes the organization's
tags of the file's sources that the file no longer lists (not when some rows were invalid). One
transaction: all or nothing.

Loaded OFAC digital-currency addresses need no file: they count as `sanctions` tags already.
"""

import csv
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from monitoring.configuration.services import TagLoad, address_tags_load
from organizations.models import Organization

REQUIRED = ("chain_id", "address", "category")
COLUMNS = (*REQUIRED, "source")
SHOWN_INVALID = 50


class Command(BaseCommand):
    help = "Load address tags (chain_id, address, category[, source]) from a CSV file into one organization."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--org", metavar="SLUG", required=True)
        parser.add_argument("--source", help="Source of rows without one (default: the file's name).")
        parser.add_argument("--replace", action="store_true", help="Remove this source's tags that the file does not list.")

    def handle(self, *args, **options):
        organization = Organization.objects.filter(slug=options["org"]).first()
        if organization is None:
            raise CommandError(f"No organization with the slug {options['org']!r}.")
        path = options["file"]
        source = options["source"] if options["source"] is not None else path.stem
        try:
            with path.open(newline="", encoding="utf-8-sig") as handle:
                report = address_tags_load(organization=organization, rows=self._rows(handle), default_source=source,
                                           replace=options["replace"], progress=self._progress)
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror or exc}") from None
        except (UnicodeDecodeError, csv.Error) as exc:
            raise CommandError(f"{path} is not a readable UTF-8 CSV file ({exc}); nothing was loaded.") from None
        self._summary(report)

    def _rows(self, handle):
        reader = csv.DictReader(handle)
        header = [name.strip().lower() for name in reader.fieldnames or []]
        missing = [name for name in REQUIRED if name not in header]
        unknown = [name for name in header if name not in COLUMNS]
        if missing or unknown or len(set(header)) != len(header):
            raise CommandError(f"The header must name the columns {', '.join(REQUIRED)} and optionally source "
                               f"(found: {', '.join(header) or 'nothing'}); nothing was loaded.")
        reader.fieldnames = header
        for row in reader:
            yield reader.line_num, row

    def _progress(self, report: TagLoad) -> None:
        self.stdout.write(f"  {report.rows:,} rows read: {report.created:,} new, {report.updated:,} updated, "
                          f"{report.unchanged:,} unchanged, {len(report.invalid):,} invalid")

    def _summary(self, report: TagLoad) -> None:
        for line, message in report.invalid[:SHOWN_INVALID]:
            self.stderr.write(f"line {line}: {message}")
        if len(report.invalid) > SHOWN_INVALID:
            self.stderr.write(f"... and {len(report.invalid) - SHOWN_INVALID:,} more invalid rows")
        self.stdout.write(f"Done: {report.rows:,} rows, {report.created:,} new, {report.updated:,} updated, "
                          f"{report.unchanged:,} unchanged, {report.duplicates:,} duplicates in the file, "
                          f"{len(report.invalid):,} invalid (skipped), {report.removed:,} removed.")
        if report.replace_skipped:
            self.stderr.write("--replace removed nothing because some rows were invalid: fix them and load again.")
        if report.invalid:  # a non-zero exit, as backfill's, so that a script notices
            raise CommandError(f"{len(report.invalid):,} row(s) rejected, listed above; the other rows are loaded. Fix the file "
                               "and load it again: rows already loaded stay unchanged.")
