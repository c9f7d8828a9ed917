"""Sanctions screening benchmark: list loading time, and the time to screen one name / one address.

    .venv/bin/python bench/screening.py [--names 1000] [--seed 7] [--old-ref REF] [--json bench/results/screening.json]

Sets Django up on a fresh SQLite database in a temporary DATA_DIR (or on DATABASE_URL if set),
loads the bundled lists (onboarding/sanctions/snapshot/) with the real `load_sanctions`
command, then screens a reproducible mix of names in process:
half are listed names (primary names and aliases) with one or two typos, reordered words or a
dropped word; half are ordinary names made from common given names and surnames. It reports the
median and p99 time per name and per address, and, as a check of the thresholds, how many listed
variants reach the review threshold on their own entry and how many ordinary names reach it at all.
The names are screened again as an organization that chose its lists would screen them: against all
the loaded lists passed as `sources`, and against one list only.

With `--old-ref REF` (a commit, branch or tag: `main`), the matcher of REF (its onboarding/screening modules read
with `git show` into a temporary package, as bench/screening_quality.py does) builds its own index from the same
database, and both matchers screen every name of the mix in turn (old, new; new, old alternately), before anything
else is screened, in two passes (caches cold, then holding the names' words): the median and p99 of each, and their
ratio, measured on the same machine at the same moment ("old_and_new").
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The matcher's modules, read from another commit by old_matcher.
OLD_MODULES = ("thresholds", "common_names", "normalize", "scoring", "index", "evidence", "matcher")


def _words(text: str) -> list[str]:
    return text.split()


GIVEN = _words(
    "John James Robert Michael William David Richard Joseph Thomas Charles Mary Patricia Jennifer Linda Elizabeth Barbara "
    "Susan Jessica Sarah Karen Emma Olivia Sophie Lucas Hugo Louis Jean Pierre Marie Anne Hans Peter Klaus Anna Laura Paolo "
    "Giulia Marco Luca Carlos Juan Jose Luis Maria Carmen Ana Lucia Pedro Miguel Wei Li Hiroshi Yuki Kenji Priya Rahul Amit "
    "Sunita Olga Tatiana Pavel Nikolai Kwame Amara Chinedu Fatima Lars Ingrid Sven Piotr Agnieszka Tomasz"
)
SURNAMES = _words(
    "Smith Johnson Williams Brown Jones Miller Davis Wilson Anderson Taylor Thomas Moore Martin Jackson Thompson White Harris "
    "Clark Lewis Walker Hall Young King Wright Scott Green Baker Adams Nelson Hill Campbell Mitchell Roberts Carter Phillips "
    "Evans Turner Parker Collins Edwards Stewart Morris Murphy Cook Rogers Morgan Cooper Peterson Reed Bailey Bell Kelly "
    "Howard Ward Cox Richardson Wood Watson Brooks Bennett Gray James Hughes Price Sanders Myers Long Ross Foster Garcia "
    "Lopez Gonzalez Perez Sanchez Ramirez Torres Flores Rivera Gomez Diaz Muller Schmidt Schneider Fischer Weber Meyer Wagner "
    "Becker Rossi Russo Ferrari Bianchi Dubois Durand Lefebvre Moreau Laurent Tanaka Suzuki Watanabe Sato Chen Wang Zhang Liu "
    "Patel Sharma Singh Kumar Novak Kowalski Nowak Jensen Hansen Nielsen Larsen Andersen Okafor Mensah Ivanova Smirnova "
    "Kuznetsov"
)
COMPANY_WORDS = _words(
    "Acme Global Northwind Blue Ocean Summit Pioneer Evergreen Silverline Redwood Brightstar Horizon Keystone Crescent Harbor "
    "Maple Granite Falcon Cedar Lakeside Riverside Sterling Orchard Meridian Beacon"
)
COMPANY_KINDS = _words(
    "Logistics Consulting Bakery Software Holdings Partners Foods Media Design Analytics Builders Dental Motors"
)
LEGAL = ["LLC", "Ltd", "Inc", "GmbH", "S.A.", "Limited", "Co."]


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


def typo(token: str, rng: random.Random) -> str:
    position = rng.randrange(1, len(token))  # keep the first letter: people rarely get it wrong
    operation = rng.choice(["substitute", "delete", "insert", "transpose"])
    letter = rng.choice("aeiounrstlm")
    if operation == "substitute":
        return token[:position] + letter + token[position + 1 :]
    if operation == "delete":
        return token[:position] + token[position + 1 :]
    if operation == "insert":
        return token[:position] + letter + token[position:]
    return token[: position - 1] + token[position] + token[position - 1] + token[position + 1 :] if position < len(token) else token


def listed_variant(tokens: list[str], rng: random.Random) -> tuple[str, str]:
    tokens = list(tokens)
    long_positions = [position for position, token in enumerate(tokens) if len(token) >= 5]
    style = rng.choice(["one typo", "one typo", "two typos", "reordered", "reordered + typo", "dropped word"])
    if style in ("one typo", "reordered + typo") and long_positions:
        position = rng.choice(long_positions)
        tokens[position] = typo(tokens[position], rng)
    elif style == "two typos" and len(long_positions) >= 2:
        for position in rng.sample(long_positions, 2):
            tokens[position] = typo(tokens[position], rng)
    if style.startswith("reordered"):
        tokens = tokens[1:] + tokens[:1]
    if style == "dropped word" and len(tokens) >= 3:
        tokens.pop(rng.randrange(1, len(tokens)))
    return " ".join(tokens), style


def ordinary_name(rng: random.Random) -> str:
    if rng.random() < 0.7:
        middle = f" {rng.choice(GIVEN)}" if rng.random() < 0.2 else ""
        return f"{rng.choice(GIVEN)}{middle} {rng.choice(SURNAMES)}"
    return f"{rng.choice(COMPANY_WORDS)} {rng.choice(COMPANY_KINDS)} {rng.choice(LEGAL)}"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def old_matcher(ref: str, workdir: str):
    """The onboarding/screening modules of `ref`, importable as the package `old_screening`: (matcher, index) modules."""
    package = Path(workdir) / "old_screening"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for module in OLD_MODULES:
        shown = subprocess.run(["git", "show", f"{ref}:onboarding/screening/{module}.py"], cwd=ROOT, capture_output=True, text=True)
        if shown.returncode:
            continue  # a module the old matcher did not have yet
        source = shown.stdout
        (package / f"{module}.py").write_text(source.replace("from onboarding.screening.", "from old_screening."))
    sys.path.insert(0, workdir)
    return importlib.import_module("old_screening.matcher"), importlib.import_module("old_screening.index")


def bench_old_and_new(queries, matchers: dict, indexes: dict) -> dict:
    """Every query screened by each matcher in turn, which goes first alternating: median and p99 ms of each, new/old.
    Two passes over the names: the first with both matchers' caches cold (but for 50 names), the second with the
    caches holding these names' words (as a customer base's repeated words would). Run before anything else screens."""
    labels = list(matchers)
    for query, _style, _expected in queries[:50]:
        for label in labels:
            matchers[label](query, index=indexes[label])  # first use of each index
    figures: dict = {}
    for run in ("first_pass", "second_pass"):
        timings: dict[str, list[float]] = {label: [] for label in labels}
        for number, (query, _style, _expected) in enumerate(queries):
            for label in labels if number % 2 == 0 else reversed(labels):
                started = time.perf_counter()
                matchers[label](query, index=indexes[label])
                timings[label].append((time.perf_counter() - started) * 1000)
        passed = {label: {"median_ms": round(statistics.median(values), 3), "p99_ms": round(percentile(values, 0.99), 3),
                          "mean_ms": round(statistics.fmean(values), 3)} for label, values in timings.items()}
        passed["new_over_old_median"] = round(passed["new"]["median_ms"] / passed["old"]["median_ms"], 3)
        passed["new_over_old_p99"] = round(passed["new"]["p99_ms"] / passed["old"]["p99_ms"], 3)
        passed["load_average"] = [round(value, 2) for value in os.getloadavg()]
        figures[run] = passed
    return figures


def load_lists() -> dict:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    out = io.StringIO()
    started = time.perf_counter()
    call_command("load_sanctions", stdout=out)
    load_seconds = time.perf_counter() - started
    started = time.perf_counter()
    call_command("load_sanctions", stdout=io.StringIO())
    noop_seconds = time.perf_counter() - started
    return {"load_seconds": round(load_seconds, 2), "noop_reload_seconds": round(noop_seconds, 2), "output": out.getvalue()}


def build_queries(index, count: int, rng: random.Random) -> list[tuple[str, str, str | None]]:
    """(query, style, expected entry id or None) for `count` names, half listed variants."""
    listed = [name for name in index.names if name.kind in ("primary", "alias") and len(name.tokens) >= 2]
    queries = []
    for _ in range(count // 2):
        name = rng.choice(listed)
        query, style = listed_variant(list(name.tokens), rng)
        queries.append((query, style, index.entries[name.entry].id))
    queries += [(ordinary_name(rng), "ordinary", None) for _ in range(count - count // 2)]
    rng.shuffle(queries)
    return queries


def bench_names(queries, screen_name, review: float, *, sources: frozenset[str] | None = None, listed_on: dict | None = None) -> dict:
    """With `sources` (the lists an organization chose), a listed variant counts only when its entry
    is on one of them (`listed_on`: entry id -> source), and any hit on another list is counted as
    `hits_off_the_chosen_lists` (0, or the filter is broken)."""
    for query, _style, _expected in queries[:50]:
        screen_name(query, sources=sources)  # warm the caches
    timings, found, reached, ordinary_hits, off_lists = [], {}, {}, [], 0
    for query, style, expected in queries:
        started = time.perf_counter()
        hits = screen_name(query, sources=sources)
        timings.append((time.perf_counter() - started) * 1000)
        if sources is not None:
            off_lists += sum(1 for hit in hits if hit.source not in sources)
            if expected is not None and listed_on[expected] not in sources:
                continue
        if expected is None:
            if hits and hits[0].score >= review:
                ordinary_hits.append((query, hits[0].matched_name, hits[0].score))
            continue
        found[style] = found.get(style, 0) + 1
        if any(hit.entry_id == expected and hit.score >= review for hit in hits):
            reached[style] = reached.get(style, 0) + 1
    ordinary = sum(1 for _q, style, _e in queries if style == "ordinary")
    return {
        **({"sources": sorted(sources), "hits_off_the_chosen_lists": off_lists} if sources is not None else {}),
        "names": len(queries), "median_ms": round(statistics.median(timings), 3), "p99_ms": round(percentile(timings, 0.99), 3),
        "mean_ms": round(statistics.fmean(timings), 3), "max_ms": round(max(timings), 3),
        "listed_variants_reaching_review": {style: f"{reached.get(style, 0)}/{total}" for style, total in sorted(found.items())},
        "ordinary_names_reaching_review": f"{len(ordinary_hits)}/{ordinary}",
        "ordinary_examples": [{"query": q, "matched": m, "score": s} for q, m, s in ordinary_hits[:10]],
    }


def bench_addresses(index, screen_address, rng: random.Random, count: int = 1000) -> dict:
    listed = [record.address_as_listed for records in index.addresses.values() for record in records]
    queries = []
    for _ in range(count):
        if rng.random() < 0.5 and listed:
            address = rng.choice(listed)
            queries.append(address.upper().replace("0X", "0x") if address.lower().startswith("0x") else address)
        else:
            queries.append("0x" + "".join(rng.choice("0123456789abcdef") for _ in range(40)))
    timings, hits = [], 0
    for address in queries:
        started = time.perf_counter()
        hits += bool(screen_address(address))
        timings.append((time.perf_counter() - started) * 1000)
    return {
        "addresses": count, "hits": hits, "median_ms": round(statistics.median(timings), 4), "p99_ms": round(percentile(timings, 0.99), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--old-ref", default="", help="Also time the matcher of this commit on the same names, alternating.")
    parser.add_argument("--json", help="Also write the figures to this file.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-screening-") as data_dir:
        set_up_django(data_dir)
        from onboarding.screening import get_index, screen_address, screen_name
        from onboarding.screening.index import invalidate_index
        from onboarding.screening.thresholds import review_threshold

        loading = load_lists()
        print(loading.pop("output").rstrip())
        invalidate_index()
        started = time.perf_counter()
        index = get_index(max_age=0)
        loading["index_build_seconds"] = round(time.perf_counter() - started, 2)
        loading["indexed_names"] = len(index.names)
        rng = random.Random(args.seed)
        queries = build_queries(index, args.names, rng)
        listed_on = {entry.id: entry.source for entry in index.entries}
        figures: dict = {}
        if args.old_ref:  # first, so that neither matcher's caches have seen the names
            old, old_index = old_matcher(args.old_ref, tempfile.mkdtemp(prefix="old-screening-", dir=data_dir))
            figures["old_and_new"] = {"old_ref": args.old_ref, **bench_old_and_new(
                queries, {"old": old.screen_name, "new": screen_name}, {"old": old_index.build_index(), "new": index})}
        figures = {
            **figures,
            "loading": loading,
            "names": bench_names(queries, screen_name, review_threshold()),
            # An organization's chosen lists: all of them (nothing to filter), then one of them (its
            # names filtered as candidates are gathered: onboarding.screening.matcher._candidates).
            "names_all_lists_chosen": bench_names(queries, screen_name, review_threshold(), sources=frozenset(index.lists),
                                                  listed_on=listed_on),
            "names_one_list_chosen": bench_names(queries, screen_name, review_threshold(), sources=frozenset({min(index.lists)}),
                                                 listed_on=listed_on),
            # The two lists screened before five were bundled, on the same queries in the same run: the
            # cost of the three added lists as a ratio, which a noisy machine cannot give in absolute terms.
            "names_sdn_and_un": bench_names(queries, screen_name, review_threshold(), sources=frozenset({"ofac_sdn", "un_consolidated"}),
                                            listed_on=listed_on),
            "addresses": bench_addresses(index, screen_address, rng),
        }
    print(json.dumps(figures, indent=2))
    names, addresses = figures["names"], figures["addresses"]
    one = figures["names_one_list_chosen"]
    print(
        f"\nload the bundled lists: {loading['load_seconds']} s (no-op reload {loading['noop_reload_seconds']} s, index build "
        f"{loading['index_build_seconds']} s); screen one name: median {names['median_ms']} ms, p99 {names['p99_ms']} ms "
        f"({names['names']} names); against ofac_sdn and un_consolidated only: median {figures['names_sdn_and_un']['median_ms']} ms, "
        f"p99 {figures['names_sdn_and_un']['p99_ms']} ms; against {', '.join(one['sources'])} only: median {one['median_ms']} ms, "
        f"p99 {one['p99_ms']} ms; "
        f"one address: median {addresses['median_ms']} ms, p99 {addresses['p99_ms']} ms"
    )
    for run in ("first_pass", "second_pass") if args.old_ref else ():
        both = figures["old_and_new"][run]
        print(f"same names, alternating, {run.replace('_', ' ')}: old ({args.old_ref}) median {both['old']['median_ms']} ms, "
              f"p99 {both['old']['p99_ms']} ms; new median {both['new']['median_ms']} ms, p99 {both['new']['p99_ms']} ms; "
              f"new/old {both['new_over_old_median']} (p99 {both['new_over_old_p99']}); load average {both['load_average']}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
