"""`python manage.py load_sanctions [--list SOURCE ...] [--file PATH ... | --dir DIR] [--allow-shrink]`

Without arguments: loads every list whose snapshot the repository carries
(onboarding/sanctions/snapshot/, see its MANIFEST.json), each in its own transaction, skipping a
list whose content is unchanged, then tells the lists-changed callbacks (re-screening) about the
lists that did change. `make run` does this on every start.

With `--list SOURCE --file PATH ...` (or `--dir DIR`): loads that list from local files in its
publisher's format instead, for example an EU or UK file or an OpenSanctions export you downloaded
(`--list os_peps --file entities.ftm.json`). Each file is matched to the list's files by name; a
single file of a one-file list may have any name.

Files that are empty, cut short or damaged, or that would remove more than a tenth of a list, are
refused and the list is kept (onboarding.sanctions.loader); `--allow-shrink` accepts a large
removal the publisher really made. The bundled snapshot never replaces a newer version in force (a
refresh, a file): `make run` would otherwise roll the lists back on every start; `--replace` does.
The legacy `--ofac-dir DIR`, `--un-file FILE` and
`--only ofac|un` still work.
"""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from onboarding.models.sanctions import SanctionsSource, VersionOrigin
from onboarding.sanctions.files import read_blob, read_files
from onboarding.sanctions.loader import LoadResult, UnsafeLoadError, sanctions_list_load
from onboarding.sanctions.registry import ListSpec, UnknownList, bundled_specs, list_spec, snapshot_blobs, snapshot_published_at
from onboarding.sanctions.selectors import snapshot_superseded
from onboarding.screening.hooks import ListChange, notify_lists_changed
from onboarding.screening.index import invalidate_index

_LEGACY = {"ofac": SanctionsSource.OFAC_SDN, "un": SanctionsSource.UN_CONSOLIDATED}


def local_blobs(spec: ListSpec, *, files: list[str] | None = None, directory: str | None = None) -> tuple[dict[str, bytes], list[str]]:
    """The list's files read from `files` (matched by name, .gz or not) or from `directory`."""
    if directory:
        blobs, paths = read_files(Path(directory), spec.files)
    else:
        paths = [str(Path(path)) for path in files or []]
        blobs = {}
        for path in map(Path, files or []):
            name = path.name.removesuffix(".gz")
            if name not in spec.files and len(spec.files) == 1:
                name = spec.required_file
            if name not in spec.files:
                raise CommandError(f"{spec.source}: {path.name} is not one of its files ({', '.join(spec.files)})")
            try:
                blobs[name] = read_blob(path)
            except OSError as error:
                raise CommandError(f"{spec.source}: cannot read {path}: {error}")
    if spec.required_file not in blobs:
        raise FileNotFoundError(f"{spec.required_file} not found in {directory or ', '.join(files or []) or 'the files given'}")
    return blobs, paths


class Command(BaseCommand):
    help = "Load the bundled sanctions lists, or one list from local files (a no-op for a list whose content is unchanged)."

    def add_arguments(self, parser):
        parser.add_argument("--list", action="append", dest="lists", metavar="SOURCE",
                            help="A list to load (repeatable): ofac_sdn, un_consolidated, ofac_consolidated, us_csl, bis_dpl, "
                                 "eu_fsf, uk_sanctions, os_<dataset>. Default: every bundled list.")
        parser.add_argument("--file", action="append", dest="files", metavar="PATH",
                            help="Load the one --list from this file (repeatable for a list of several files).")
        parser.add_argument("--dir", help="Load the one --list from the files in this folder.")
        parser.add_argument("--ofac-dir", help="Legacy: the SDN CSV set from this folder.")
        parser.add_argument("--un-file", help="Legacy: the UN consolidated XML from this file.")
        parser.add_argument("--only", choices=sorted(_LEGACY), help="Legacy: ofac or un only.")
        parser.add_argument("--replace", action="store_true",
                            help="Load the bundled snapshot even over a newer version (refreshed or loaded from a file).")
        parser.add_argument("--allow-shrink", action="store_true",
                            help="Load even if the files remove more than a tenth of a list's entries (a real mass delisting).")

    def handle(self, *args, **options):
        jobs = self._jobs(options)
        started = time.perf_counter()
        changes: list[ListChange] = []
        failed: list[str] = []
        try:
            for spec, read, origin in jobs:
                try:
                    result = self._load_one(spec, read, origin=origin, allow_shrink=options["allow_shrink"])
                except CommandError as error:  # this list is kept as it was; the next one is loaded all the same
                    self.stderr.write(str(error))
                    failed.append(str(error))
                    continue
                if result.changed:
                    changes.append(
                        ListChange(result.source, result.content_hash, result.added_uids, result.changed_uids, result.removed_uids,
                                   version=result.version.number)
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

    def _jobs(self, options) -> list[tuple[ListSpec, object, str]]:
        """(spec, a function returning (blobs, paths), origin) for each list to load."""
        legacy = {key: options[f"{key}_dir" if key == "ofac" else f"{key}_file"] for key in _LEGACY}
        if options["only"] or any(legacy.values()):
            chosen = [options["only"]] if options["only"] else [key for key, value in legacy.items() if value]
            jobs = []
            for key in chosen:
                spec = list_spec(_LEGACY[key])
                if legacy[key]:
                    kwargs = {"directory": legacy[key]} if key == "ofac" else {"files": [legacy[key]]}
                    jobs.append((spec, lambda spec=spec, kwargs=kwargs: local_blobs(spec, **kwargs), VersionOrigin.FILE))
                elif self._not_superseded([spec], options):
                    jobs.append((spec, lambda spec=spec: snapshot_blobs(spec), VersionOrigin.BUNDLED))
            return jobs
        try:
            specs = [list_spec(source) for source in options["lists"]] if options["lists"] else bundled_specs()
        except UnknownList as error:
            raise CommandError(str(error))
        if options["files"] or options["dir"]:
            if len(specs) != 1 or not options["lists"]:
                raise CommandError("--file and --dir load one list: name it with --list.")
            spec = specs[0]
            return [(spec, lambda: local_blobs(spec, files=options["files"], directory=options["dir"]), VersionOrigin.FILE)]
        missing = [spec.source for spec in specs if not spec.bundled]
        if missing:
            raise CommandError(f"{', '.join(missing)}: no snapshot is bundled; give --file or --dir, or use refresh_sanctions.")
        return [(spec, lambda spec=spec: snapshot_blobs(spec), VersionOrigin.BUNDLED) for spec in self._not_superseded(specs, options)]

    def _not_superseded(self, specs: list[ListSpec], options) -> list[ListSpec]:
        """The lists whose bundled snapshot may be loaded: not those holding a newer version (unless --replace)."""
        kept = []
        for spec in specs:
            reason = None if options["replace"] else snapshot_superseded(spec.source)
            if reason:
                self.stdout.write(f"{spec.source}: kept, not replaced by the bundled snapshot: {reason} (--replace loads it anyway)")
            else:
                kept.append(spec)
        return kept

    def _load_one(self, spec: ListSpec, read, *, origin: str, allow_shrink: bool) -> LoadResult:
        name = spec.source
        self.stdout.write(f"{name}: parsing...")
        parse_started = time.perf_counter()
        try:
            blobs, paths = read()
            parsed = spec.parse(blobs)
        except (OSError, ValueError) as error:
            raise CommandError(f"{name}: cannot read the list: {error}")
        parsed.source_files = paths
        if origin == VersionOrigin.BUNDLED and parsed.published_at is None:
            parsed.published_at = snapshot_published_at(spec.source)  # OFAC's CSV files carry no date; the manifest does
        self.stdout.write(
            f"{name}: parsed {len(parsed.entries)} entries, {parsed.name_count} names, {parsed.address_count} addresses, "
            f"{parsed.digital_address_count} digital-currency addresses; {parsed.report.skipped} malformed rows skipped "
            f"({time.perf_counter() - parse_started:.2f}s)"
        )
        for sample in parsed.report.samples[:5]:
            self.stdout.write(f"  skipped {sample['file']}:{sample['line']}: {sample['reason']}")
        try:
            result = sanctions_list_load(parsed, allow_shrink=allow_shrink, origin=origin, category=spec.category)
        except UnsafeLoadError as error:
            raise CommandError(str(error))
        if result.changed:
            self.stdout.write(
                f"{name}: loaded in {result.seconds:.2f}s as version {result.version.number}: {len(result.added_uids)} added, "
                f"{len(result.changed_uids)} changed, {len(result.removed_uids)} removed"
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
