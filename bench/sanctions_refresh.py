"""Sanctions refresh benchmark: how long `refresh_sanctions` takes when nothing changed, and when a list did.

    .venv/bin/python bench/sanctions_refresh.py [--repeat 3]

Sets Django up on a fresh SQLite database in a temporary DATA_DIR (or on DATABASE_URL if set),
loads the bundled lists with the real `load_sanctions` command, then starts a publisher on loopback
(tests/onboarding/publisher.py: http.server on 127.0.0.1, a free port) serving the bundled snapshot
of every bundled list, and points the lists' URLs at it (SANCTIONS_URL_<SOURCE>_<FILE>, as an
operator would). It times the real `refresh_sanctions` command over every bundled list:

- no change: each list downloaded, parsed, found unchanged (the goal is 5 s or less);
- a change: the OFAC SDN files served with one entry added, one changed and one removed, so that
  list is loaded as a new version (with its diff and the lists-changed callbacks), the others unchanged.

It prints the seconds (the median of --repeat runs, each run's in brackets) and the outcome lines; no asserts.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NEW_ROW = b'99999,"TESTOVSKY, Boris Ignatievich","individual","SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 1961."\r\n'


def set_up_django(data_dir: str) -> None:
    # Run as a script, this folder is first on sys.path, and its platform.py (another benchmark)
    # would shadow the standard library's `platform` that Celery imports.
    here = Path(__file__).resolve().parent
    sys.path[:] = [str(ROOT), *(entry for entry in sys.path if Path(entry or ".").resolve() != here)]
    os.environ.setdefault("DATA_DIR", data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


def changed_ofac(blobs: dict[str, bytes], run: int) -> dict[str, bytes]:
    """The OFAC files with entry 36 removed (from every file), 306's remarks changed and a new entry:
    a different change each run, so that every run loads a new version."""
    files = {name: b"".join(line for line in blob.splitlines(keepends=True) if not line.startswith(b"36,"))
             for name, blob in blobs.items()}
    sdn = files["sdn.csv"].replace(b"\"a.k.a. 'BNC'.\"", f"\"a.k.a. 'BNC'; a.k.a. 'BNC{run}'.\"".encode())
    eof = sdn.rindex(b"\x1a")
    files["sdn.csv"] = sdn[:eof] + NEW_ROW.replace(b"99999", str(99999 - run).encode()) + sdn[eof:]
    return files


def refresh() -> tuple[float, str]:
    from django.core.management import call_command
    from django.core.management.base import CommandError

    out = io.StringIO()
    started = time.perf_counter()
    try:
        call_command("refresh_sanctions", stdout=out, stderr=out)
    except CommandError as error:
        out.write(f"(exit 1) {error}\n")
    return time.perf_counter() - started, out.getvalue()


def outcome_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if ": loaded as" in line or ": unchanged" in line or ": refused" in line
            or ": failed" in line or line.startswith("(exit")]


def timed(label: str, runs: list[float], output: str) -> None:
    each = ", ".join(f"{seconds:.2f}" for seconds in runs)
    print(f"{label}: {statistics.median(runs):.2f} s  [{each}]")
    for line in outcome_lines(output):
        print(f"    {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each case (the median is printed)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-refresh-") as data_dir:
        set_up_django(data_dir)
        from django.conf import settings
        from django.core.management import call_command

        from config.env import SanctionsUrls
        from onboarding.sanctions.refresh import url_variable
        from onboarding.sanctions.registry import bundled_specs, list_spec
        from tests.onboarding.publisher import Publisher

        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        call_command("load_sanctions", stdout=io.StringIO())
        print(f"bundled lists loaded in {time.perf_counter() - started:.2f} s (setup, not measured)")

        specs = bundled_specs()
        with Publisher() as publisher:
            snapshots = {spec.source: publisher.serve_snapshot(spec) for spec in specs}
            settings.SANCTIONS_URLS = SanctionsUrls({url_variable(spec.source, name): publisher.url(spec.source, name)
                                                     for spec in specs for name in spec.files})
            served = sum(len(blob) for blobs in snapshots.values() for blob in blobs.values())
            print(f"publisher on {publisher.base_url}: {', '.join(spec.source for spec in specs)} "
                  f"({sum(len(blobs) for blobs in snapshots.values())} files, {served:,} bytes)")

            runs, output = [], ""
            for _ in range(args.repeat):
                seconds, output = refresh()
                runs.append(seconds)
            timed("refresh with no change (goal <= 5 s)", runs, output)

            runs = []
            ofac = list_spec("ofac_sdn")
            for run in range(args.repeat):
                publisher.serve(ofac.source, changed_ofac(snapshots[ofac.source], run))
                seconds, output = refresh()
                runs.append(seconds)
            timed("refresh with a change (ofac_sdn: 1 added, 1 changed, 1 removed)", runs, output)


if __name__ == "__main__":
    main()
