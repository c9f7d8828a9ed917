"""`python manage.py load_sanctions [--ofac-dir DIR] [--un-file FILE] [--only ofac|un] [--allow-shrink]`

Loads the OFAC SDN CSV set and the UN consolidated XML, each list in its own transaction, skipping
a list whose files are unchanged, then tells the registered lists-changed callbacks (re-screening)
about the lists that did change. Defaults: $SANCTIONS_DIR, else ../shared/reference/sanctions next
to the repository, with `ofac/` and `un/UN_consolidated.xml` inside. Files that are empty, cut
short or damaged, or that would remove more than a tenth of a list, are refused and the list is kept
(onboarding.sanctions.loader); `--allow-shrink` accepts a large removal the publisher really made.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from onboarding.sanctions.loader import LoadResult, UnsafeLoadError, sanctions_list_load
from onboarding.sanctions.ofac import parse_ofac
from onboarding.sanctions.un import parse_un
from onboarding.screening.hooks import ListChange, notify_lists_changed
from onboarding.screening.index import invalidate_index


def default_sanctions_dir() -> Path:
    configured = os.environ.get("SANCTIONS_DIR") or getattr(settings, "SANCTIONS_DIR", "")
    return Path(configured) if configured else settings.BASE_DIR.parent / "shared" / "reference" / "sanctions"


class Command(BaseCommand):
    help = "Load the OFAC SDN and UN consolidated sanctions lists (a no-op for a list whose files are unchanged)."

    def add_arguments(self, parser):
        parser.add_argument("--ofac-dir", help="Folder with sdn.csv, alt.csv, add.csv (and sdn_comments.csv).")
        parser.add_argument("--un-file", help="The UN consolidated list XML.")
        parser.add_argument("--only", choices=["ofac", "un"], help="Load one list only.")
        parser.add_argument("--allow-shrink", action="store_true",
                            help="Load even if the files remove more than a tenth of a list's entries (a real mass delisting).")

    def handle(self, *args, **options):
        base = default_sanctions_dir()
        jobs = {
            "ofac": (lambda: parse_ofac(options["ofac_dir"] or base / "ofac")),
            "un": (lambda: parse_un(options["un_file"] or base / "un" / "UN_consolidated.xml")),
        }
        started = time.perf_counter()
        changes: list[ListChange] = []
        failed: list[str] = []
        try:
            for name, parse in jobs.items():
                if options["only"] not in (None, name):
                    continue
                try:
                    result = self._load_one(name, parse, allow_shrink=options["allow_shrink"])
                except CommandError as error:  # this list is kept as it was; the next one is loaded all the same
                    self.stderr.write(str(error))
                    failed.append(str(error))
                    continue
                if result.changed:
                    changes.append(
                        ListChange(result.source, result.content_hash, result.added_uids, result.changed_uids, result.removed_uids)
                    )
        finally:
            # Whatever failed after it, a list that committed is screened against: otherwise the next run
            # finds its files unchanged and re-screening never happens (the list's rescreen marker and
            # the beat sweep cover a process killed right here).
            invalidate_index()
            failed += self._notify(changes)
        if failed:
            loaded = f"; re-screening was started for {', '.join(c.source for c in changes)}" if changes else ""
            raise CommandError(f"{len(failed)} problem(s){loaded}: " + " | ".join(failed))
        self.stdout.write(f"Done in {time.perf_counter() - started:.2f}s: {len(changes)} list(s) changed.")

    def _load_one(self, name: str, parse, *, allow_shrink: bool) -> LoadResult:
        self.stdout.write(f"{name}: parsing...")
        parse_started = time.perf_counter()
        try:
            parsed = parse()
        except (OSError, ValueError) as error:
            raise CommandError(f"{name}: cannot read the list: {error}")
        self.stdout.write(
            f"{name}: parsed {len(parsed.entries)} entries, {parsed.name_count} names, {parsed.address_count} addresses, "
            f"{parsed.digital_address_count} digital-currency addresses; {parsed.report.skipped} malformed rows skipped "
            f"({time.perf_counter() - parse_started:.2f}s)"
        )
        for sample in parsed.report.samples[:5]:
            self.stdout.write(f"  skipped {sample['file']}:{sample['line']}: {sample['reason']}")
        try:
            result = sanctions_list_load(parsed, allow_shrink=allow_shrink)
        except UnsafeLoadError as error:
            raise CommandError(str(error))
        if result.changed:
            self.stdout.write(
                f"{name}: loaded in {result.seconds:.2f}s: {len(result.added_uids)} added, {len(result.changed_uids)} changed, "
                f"{len(result.removed_uids)} removed"
            )
        else:
            self.stdout.write(f"{name}: unchanged (same content hash), nothing written ({result.seconds:.2f}s)")
        return result

    def _notify(self, changes: list[ListChange]) -> list[str]:
        """Call the lists-changed callbacks; what failed, for the command's error."""
        if not changes:
            return []
        failures = notify_lists_changed(changes)
        self.stdout.write(f"Re-screening hooks called for: {', '.join(change.source for change in changes)}")
        if not failures:
            return []
        names = ", ".join(getattr(callback, "__qualname__", repr(callback)) for callback, _error in failures)
        return [f"the lists were loaded, but {len(failures)} lists-changed callback(s) failed: {names}"]
