"""Targeted re-screening benchmark: how many of 100,000 entities a list change of 50 entries selects,
how long the selection takes, and how long re-screening them takes end to end.

    .venv/bin/python bench/rescreen.py [--entities 100000] [--changed 50] [--seed 11]

Sets Django up on a fresh SQLite database in a temporary DATA_DIR (or on DATABASE_URL if set), loads
the bundled lists with `load_sanctions`, then bulk-creates one organization's entities: people
(given names, sometimes a middle name, and surnames from several regions, plus invented ones) and
companies, a fifth of the companies with one or two beneficial owners, a quarter of the entities
with a wallet. A few hundred customers carry a listed name as customers write one (a typo, words
reordered or dropped) and are screened once, so that they hold hits as they would in production;
a few wallets are listed addresses.

The change: `--changed` OFAC entries picked at random are changed as a publisher changes them (a
remark edited, and for one in five the primary name respelt), loaded as a new list version; five of
them are entries some near-listed customers were hit on. Then:
- selection: `onboarding.screening.rescreen.plan_for_versions`, the task's own selection, timed
  after the worker's index was rebuilt for the new version (the rebuild is timed apart);
- end to end: the task `onboarding.rescreen_for_changes` run eagerly in this process, as one worker
  would: the index rebuild, the selection, then a sanctions re-screening of each entity selected;
- for comparison, the selection for the whole list as if it were its first load (every entry added:
  keys only, no scoring), without re-screening.
Figures are printed; nothing is asserted.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from screening import COMPANY_KINDS, COMPANY_WORDS, GIVEN, LEGAL, SURNAMES, listed_variant, set_up_django


def _words(text: str) -> list[str]:
    return text.split()


# Customers from more places than bench/screening.py's pools: names the lists also carry
# (Mohammed, Ali, Ivanov, ...) belong in a realistic customer base, and they are what a
# token-level pre-filter finds hardest.
MORE_GIVEN = _words(
    "Mohammed Muhammad Ahmed Ali Omar Hassan Hussein Ibrahim Yusuf Khalid Fatima Aisha Mariam Layla Reza Hamid Mehdi Dmitry "
    "Sergei Alexei Ivan Natalia Elena Irina Oleksandr Andriy Bogdan Jorge Alejandro Diego Camila Valentina Mateo Thanh Minh "
    "Duc Arjun Vikram Deepak Ananya Chidi Ngozi Emeka Kofi Yaw Abena Zeynep Emre Burak Elif Mehmet Ayse Joao Tiago Beatriz"
)
MORE_SURNAMES = _words(
    "Ahmadi Hosseini Rezaei Karimi Hashemi Khan Rahman Hussain Aziz Haddad Nasser Mansour Saleh Ivanov Petrov Sidorov Popov "
    "Volkov Sokolov Morozov Kovalenko Shevchenko Bondarenko Melnyk Nguyen Tran Pham Hoang Vu Gupta Reddy Iyer Nair Mehta "
    "Adeyemi Okonkwo Balogun Mensah Asante Yilmaz Kaya Demir Celik Sahin Silva Santos Oliveira Pereira Costa Fernandes Alves"
)
SYLLABLES = _words("ka ro mi ta ne lo vi sa du ber gan tor lin mar fel dor an el is ur os ik en ov sky son berg ford ley wick")
MORE_COMPANY_WORDS = _words(
    "Atlas Nimbus Quantum Vertex Apex Zenith Nova Polar Delta Sigma Orbit Pixel Cobalt Amber Ivory Onyx Sapphire Emerald Titan "
    "Nordic Pacific Atlantic Eastern Western Golden Silver Royal United International Capital Digital"
)
MORE_KINDS = _words("Trading Technologies Solutions Exchange Ventures Investments Energy Resources Shipping Payments Mining Labs")


def invented_surname(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 3, 3, 4)))).capitalize()


def person(rng: random.Random) -> str:
    given = rng.choice(GIVEN if rng.random() < 0.6 else MORE_GIVEN)
    middle = f" {rng.choice(GIVEN + MORE_GIVEN)}" if rng.random() < 0.2 else ""
    roll = rng.random()
    surname = rng.choice(SURNAMES) if roll < 0.45 else rng.choice(MORE_SURNAMES) if roll < 0.75 else invented_surname(rng)
    return f"{given}{middle} {surname}"


def company(rng: random.Random) -> str:
    first = rng.choice(COMPANY_WORDS + MORE_COMPANY_WORDS)
    second = rng.choice(COMPANY_WORDS + MORE_COMPANY_WORDS + [invented_surname(rng)])
    return f"{first} {second} {rng.choice(COMPANY_KINDS + MORE_KINDS)} {rng.choice(LEGAL)}"


def evm_address(rng: random.Random) -> str:
    return "0x" + "".join(rng.choice("0123456789abcdef") for _ in range(40))


def load_lists() -> float:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    call_command("load_sanctions", stdout=io.StringIO())
    return time.perf_counter() - started


def create_customers(count: int, rng: random.Random) -> dict:
    """One organization's entities, owners and wallets (bulk), the near-listed ones screened once."""
    from onboarding.models import BeneficialOwner, Entity, Wallet
    from onboarding.screening import get_index
    from onboarding.services.screening import entity_screen
    from organizations.models import Organization

    started = time.perf_counter()
    organization = Organization.objects.create(name="Bench Bank", slug="bench-bank")
    index = get_index(max_age=0)
    listed = sorted((name for name in index.names if name.kind in ("primary", "alias") and len(name.tokens) >= 2),
                    key=lambda name: (index.entries[name.entry].source, index.entries[name.entry].uid, name.kind, name.name))
    listed_addresses = sorted(address for address in index.addresses if address.startswith("0x"))
    entities, owners, wallets, near, listed_wallets = [], [], [], [], []
    for number in range(count):
        if number % 400 == 7:  # a quarter of a percent carry a listed name as a customer writes it
            name, _style = listed_variant(list(listed[rng.randrange(len(listed))].tokens), rng)
            kind = "individual"
        elif rng.random() < 0.7:
            name, kind = person(rng), "individual"
        else:
            name, kind = company(rng), "business"
        entity = Entity(organization=organization, mode="live", legal_name=name.title()[:300], entity_type=kind,
                        jurisdiction=rng.choice(["US", "GB", "DE", "FR", "AE", "TR", "BR", "NG", "IN", "VN", "UA", "SG"]))
        entities.append(entity)
        if number % 400 == 7:
            near.append(entity)
        if kind == "business" and rng.random() < 0.2:
            owners += [BeneficialOwner(entity=entity, name=person(rng)) for _ in range(rng.choice((1, 2)))]
        if number % 5000 == 11 and len(listed_wallets) < len(listed_addresses):  # a customer at a listed address
            listed_wallets.append(Wallet(organization=organization, mode="live", entity=entity, chain_id=1,
                                         address=listed_addresses[len(listed_wallets)]))
        elif rng.random() < 0.25:
            wallets.append(Wallet(organization=organization, mode="live", entity=entity, chain_id=1, address=evm_address(rng)))
    Entity.objects.bulk_create(entities, batch_size=5000)
    BeneficialOwner.objects.bulk_create(owners, batch_size=5000)
    Wallet.objects.bulk_create(wallets + listed_wallets, batch_size=5000)
    created = time.perf_counter() - started
    started = time.perf_counter()
    first = near + [wallet.entity for wallet in listed_wallets]
    for entity in first:
        entity_screen(entity_id=entity.pk)
    return {"entities": len(entities), "owners": len(owners), "wallets": len(wallets) + len(listed_wallets),
            "listed_wallets": len(listed_wallets), "create_seconds": round(created, 1), "screened_first": len(first),
            "first_screening_seconds": round(time.perf_counter() - started, 1)}


def change_ofac(changed: int, rng: random.Random, workdir: Path):
    """A new OFAC version with `changed` entries changed (remarks; one in five also respelt), loaded. Five
    of them are entries the near-listed customers were hit on; the others are picked at random."""
    from onboarding.models import ScreeningHit
    from onboarding.sanctions.files import read_blob
    from onboarding.sanctions.formats.ofac import parse_ofac
    from onboarding.sanctions.loader import sanctions_list_load
    from onboarding.sanctions.registry import SNAPSHOT_DIR

    target = workdir / "ofac"
    target.mkdir()
    for path in (SNAPSHOT_DIR / "ofac_sdn").glob("*.gz"):
        (target / path.name.removesuffix(".gz")).write_bytes(read_blob(path))
    sdn = target / "sdn.csv"
    lines = sdn.read_text().splitlines(keepends=True)
    rows = {line.split(",", 1)[0]: number for number, line in enumerate(lines) if line[:1].isdigit() and line.rstrip().endswith('"')}
    hit = sorted(set(ScreeningHit.objects.filter(source="ofac_sdn", active=True).values_list("entry_uid", flat=True)) & set(rows))
    uids = rng.sample(hit, min(5, len(hit)))
    uids += rng.sample(sorted(set(rows) - set(uids)), changed - len(uids))
    for count, number in enumerate(rows[uid] for uid in uids):
        line = lines[number].rstrip("\r\n")
        if count % 5 == 0:  # a respelt primary name: swap two inner letters of its first word
            head, name, rest = line.split('"', 2)
            word = name.split()[0]
            if len(word) > 3:
                name = name.replace(word, word[0] + word[2] + word[1] + word[3:], 1)
            line = f'{head}"{name}"{rest}'
        lines[number] = line[:-1] + '; Bench update."\r\n'
    sdn.write_text("".join(lines))
    return sanctions_list_load(parse_ofac(target))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--changed", type=int, default=50)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "true"  # the task and the screenings it queues run here, as one worker
    with tempfile.TemporaryDirectory(prefix="bench-rescreen-") as data_dir:
        set_up_django(data_dir)
        from onboarding.models import ComplianceCheck
        from onboarding.screening import get_index
        from onboarding.screening.hooks import ListChange
        from onboarding.screening.rescreen import plan_for_versions, select_affected
        from onboarding.tasks import rescreen_for_changes

        rng = random.Random(args.seed)
        figures = {"load_lists_seconds": round(load_lists(), 1)}
        figures["customers"] = create_customers(args.entities, rng)
        result = change_ofac(args.changed, rng, Path(data_dir))
        versions = {result.source: result.version.number}
        figures["change"] = {"version": result.version.number, "added": len(result.added_uids), "changed": len(result.changed_uids),
                             "removed": len(result.removed_uids)}

        started = time.perf_counter()
        get_index(max_age=0)
        figures["index_rebuild_seconds"] = round(time.perf_counter() - started, 2)
        started = time.perf_counter()
        plan = plan_for_versions(versions)
        selection = plan.selection
        figures["selection"] = {
            "seconds": round(time.perf_counter() - started, 2), "selected": len(selection.entity_ids), "of": plan.total,
            "by_hits": selection.by_hits, "by_names": selection.by_names, "by_wallets": selection.by_wallets,
            "listed_names": selection.listed_names, "keys": selection.keys, "customer_names_read": selection.names_read,
            "customer_names_reaching_a_key": selection.names_reached,
        }

        started = time.perf_counter()
        everything = [entry.uid for entry in get_index().entries if entry.source == result.source]
        first = select_affected([ListChange(result.source, result.content_hash, added_uids=everything, version=1)])
        figures["first_load_selection"] = {"seconds": round(time.perf_counter() - started, 2), "selected": len(first.entity_ids),
                                           "listed_names": first.listed_names, "keys": first.keys}

        checks = ComplianceCheck.objects.filter(details__trigger="lists_changed").count()
        from onboarding.screening.index import invalidate_index

        invalidate_index()  # end to end as a worker that has not seen the new version yet: index rebuild included
        started = time.perf_counter()
        rescreen_for_changes.delay(versions)
        end_to_end = time.perf_counter() - started
        rescreened = ComplianceCheck.objects.filter(details__trigger="lists_changed").count() - checks
        figures["end_to_end"] = {"seconds": round(end_to_end, 1), "rescreened": rescreened}
    print(json.dumps(figures, indent=2))
    selected = figures["selection"]
    print(f"\n{args.changed} changed OFAC entries, {figures['customers']['entities']} entities: selected {selected['selected']} "
          f"({selected['by_names']} by name, {selected['by_hits']} by hit, {selected['by_wallets']} by wallet) in {selected['seconds']} s "
          f"(index rebuild {figures['index_rebuild_seconds']} s apart); end to end {figures['end_to_end']['seconds']} s for "
          f"{figures['end_to_end']['rescreened']} re-screened")


if __name__ == "__main__":
    sys.exit(main())
