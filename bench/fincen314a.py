"""314(a) matching benchmark: a list of subjects against an organization's entities.

    .venv/bin/python bench/fincen314a.py [--subjects 5000] [--entities 50000] [--seed 7]

Sets Django up on a fresh SQLite database in a temporary DATA_DIR (or on DATABASE_URL if set),
stores `--entities` entities (individuals and businesses, names drawn from common given names and
surnames plus a long tail of made-up surnames, some with tax ids, dates of birth and addresses),
then uploads a list of `--subjects` subjects (a tenth of them customers, under another spelling,
order or with their SSN) through the upload service and runs the matching task's service. It
prints the time of the upload, of the matching (loading the entities, the blocked matching, writing
the matches and their events) and of the matching alone in memory; and, for comparison, the time a
full scan (every subject against every entity) would take, extrapolated from a sample.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _words(text: str) -> list[str]:
    return text.split()


GIVEN = _words(
    "James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard Susan Joseph Jessica Thomas "
    "Sarah Carlos Maria Jose Ana Wei Li Hiroshi Yuki Priya Rahul Olga Pavel Kwame Amara Fatima Lars Ingrid Piotr Ahmed Omar "
    "Sofia Lucas Emma Noah Mohammed Chen Aisha Diego Elena Ivan Nadia"
)
COMMON = _words(
    "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson Anderson Thomas "
    "Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King "
    "Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Chen Wang "
    "Patel Kumar Muller Schmidt Rossi Tanaka Kowalski Okafor Ivanov"
)
SYLLABLES = _words("ka ren dol mi sto var ne li ber gan to shi ra vel mon tu co bri an del fa go hu ja qu ze wo yo pe")
BUSINESS = _words("Holdings Trading Logistics Partners Ventures Capital Foods Media Analytics Builders Motors Imports Consulting")
STATES = _words("CA NY TX FL IL WA MA GA NC OH")


def set_up_django(data_dir: str) -> None:
    here = Path(__file__).resolve().parent
    sys.path[:] = [str(ROOT), *(entry for entry in sys.path if Path(entry or ".").resolve() != here)]
    os.environ.setdefault("DATA_DIR", data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.setdefault("FINCEN_314A_MAX_SUBJECTS", "100000")
    os.environ.setdefault("FINCEN_314A_MAX_BYTES", str(64 * 1024 * 1024))
    import django

    django.setup()


def surname(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(COMMON)
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()


def person(rng: random.Random) -> dict:
    first, last = rng.choice(GIVEN), surname(rng)
    return {"name": f"{first} {last}", "dob": f"{rng.randint(1940, 2004)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            "ssn": f"{rng.randint(100, 899)}{rng.randint(10, 99)}{rng.randint(1000, 9999)}", "state": rng.choice(STATES),
            "zip": f"{rng.randint(10000, 99999)}", "business": False}


def business(rng: random.Random) -> dict:
    return {"name": f"{surname(rng)} {rng.choice(BUSINESS)} LLC", "dob": "", "ssn": f"{rng.randint(10, 99)}{rng.randint(1000000, 9999999)}",
            "state": rng.choice(STATES), "zip": f"{rng.randint(10000, 99999)}", "business": True}


def store_entities(organization, parties: list[dict]) -> None:
    from common.crypto import tax_id_fields
    from onboarding.models import Entity

    rows = [Entity(organization=organization, mode="test", legal_name=p["name"], entity_type="business" if p["business"] else "individual",
                   jurisdiction="US", date_of_birth=p["dob"] or None,
                   address={"line1": "1 Main St", "city": "Springfield", "state": p["state"], "postal_code": p["zip"], "country": "US"},
                   **tax_id_fields(p["ssn"] if p["ssn"] and random.random() < 0.3 else None)) for p in parties]
    Entity.objects.bulk_create(rows, batch_size=2000)


def subject_csv(customers: list[dict], count: int, rng: random.Random) -> bytes:
    lines = ["Name,SSN_ITIN,DOB,State,Zip,Type,EIN"]
    for index in range(count):
        known = index % 10 == 0
        party = rng.choice(customers) if known else (business(rng) if rng.random() < 0.2 else person(rng))
        name = party["name"]
        if known and not party["business"] and rng.random() < 0.5:
            first, last = name.split(" ", 1)
            name = f"{last.upper()}, {first.upper()}"  # FinCEN writes surnames first
        ssn = party["ssn"] if known and rng.random() < 0.3 and not party["business"] else ""
        ein = party["ssn"] if known and rng.random() < 0.3 and party["business"] else ""
        lines.append(",".join([f'"{name}"', ssn, party["dob"] if not party["business"] else "", party["state"], party["zip"],
                               "Business" if party["business"] else "Individual", ein]))
    return ("\n".join(lines) + "\n").encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subjects", type=int, default=5000)
    parser.add_argument("--entities", type=int, default=50000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    set_up_django(tempfile.mkdtemp(prefix="bench-314a-"))
    from django.core.management import call_command

    from common.principal import Principal
    from monitoring.fincen314a import matching
    from monitoring.fincen314a.services import _entity_parties, _subject_party, file_match, file_upload
    from monitoring.models import Fincen314aMatch, Fincen314aSubject
    from organizations.models import Organization

    call_command("migrate", verbosity=0)
    rng = random.Random(args.seed)
    random.seed(args.seed)
    organization = Organization.objects.create(name="Bench", slug=f"bench-314a-{rng.randrange(10**9)}")
    parties = [business(rng) if rng.random() < 0.2 else person(rng) for _ in range(args.entities)]
    started = time.perf_counter()
    store_entities(organization, parties)
    print(f"stored {args.entities} entities in {time.perf_counter() - started:.1f} s")

    content = subject_csv(parties, args.subjects, rng)
    officer = Principal(credential="system", organization=organization, mode="test", role="admin")
    started = time.perf_counter()
    file = file_upload(principal=officer, filename="bench.csv", content=content)
    upload_seconds = time.perf_counter() - started
    started = time.perf_counter()
    file_match(file_id=file.pk)
    match_seconds = time.perf_counter() - started
    matches = Fincen314aMatch.objects.filter(file=file).count()

    entities = _entity_parties(organization.pk, "test")
    subjects = [_subject_party(s) for s in Fincen314aSubject.objects.filter(file=file)]
    started = time.perf_counter()
    index = matching.EntityIndex(entities)
    index_seconds = time.perf_counter() - started
    started = time.perf_counter()
    found = matching.match(subjects, index)
    memory_seconds = time.perf_counter() - started
    sample = subjects[:20]
    started = time.perf_counter()
    for subject in sample:
        for entity in entities:
            matching.score(subject, entity)
    scan_seconds = (time.perf_counter() - started) / len(sample) * len(subjects)

    print(f"subjects {args.subjects}  entities {args.entities}  matches {matches}")
    print(f"upload (parse, check, store subjects)      {upload_seconds:8.2f} s")
    print(f"matching task (load, match, write, events) {match_seconds:8.2f} s")
    print(f"  in memory: index {index_seconds:.2f} s, blocked matching {memory_seconds:.2f} s ({len(found)} matches)")
    print(f"  full scan (every pair), extrapolated from {len(sample)} subjects: {scan_seconds:8.0f} s")


if __name__ == "__main__":
    main()
