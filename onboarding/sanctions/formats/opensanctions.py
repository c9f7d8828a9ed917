"""OpenSanctions datasets, as their FollowTheMoney export (`entities.ftm.json`).

OpenSanctions (https://www.opensanctions.org) gathers sanctions lists, lists of politically exposed
persons (PEPs) and other watchlists from many publishers and republishes each as a dataset in one
data model, FollowTheMoney. A dataset is a list here as `os_<dataset>` (`os_peps`,
`os_us_ofac_sdn`, ...): `dataset_spec` makes its spec on demand, since there are hundreds.

The export has one JSON object a line: {"id", "schema", "properties": {name: [values]},
"datasets", "first_seen", "last_seen", ...}. Read here:

- parties, by schema: Person (individual); Organization, Company, LegalEntity, PublicBody
  (entity); Vessel; Airplane (aircraft). Other schemas (Address, Sanction, Ownership, Family,
  Position, Identification, ...) are facts about parties, not parties: passed over, not malformed.
  CryptoWallet gives its `publicKey` to its holder's digital-currency addresses;
- the uid is the entity's OpenSanctions id (kept the same across releases by OpenSanctions; one
  longer than the 64 characters a uid has is replaced by a hash of itself);
- `name` (the first is the primary, the others aliases), `alias` and `previousName` (aliases; one
  in a script other than Latin is NameKind.ORIGINAL_SCRIPT), `weakAlias` (weak aliases);
- `birthDate` (ISO, maybe a year or a month), `nationality`, `citizenship`, `country`, `flag`,
  `jurisdiction` (ISO codes, lower case; "suhh" and other historical codes are not used), `address`
  (whole addresses as text), `program`/`programId`, `position` (the title), `notes`, `topics`;
- `first_seen` is the listing date (when OpenSanctions first saw the entity on the list); the newest
  `last_seen` is the list's publication time.

A line that is not a JSON object, or a party without an id or a name, is skipped and counted; a last
line that cannot be read means the download was cut short (`incomplete`).

Whether a dataset is a PEP list (category `pep`, so that a hit is a PEP finding, not a sanctions
one): settings.SANCTIONS_PEP_DATASETS (default {"peps"}), or "pep" in the dataset's name.
"""

from __future__ import annotations

import hashlib
import io
import json
import re

from django.conf import settings

from onboarding.models.sanctions import EntryKind, ListCategory, NameKind
from onboarding.sanctions.addresses import canonical_address
from onboarding.sanctions.countries import country_code
from onboarding.sanctions.files import decode_text
from onboarding.sanctions.formats.dates import birth_dates, listing_date, timestamp
from onboarding.sanctions.records import (
    ParsedAddress,
    ParsedDigitalAddress,
    ParsedEntry,
    ParsedList,
    ParsedName,
    ParseReport,
    clean,
    content_hash,
    in_other_script,
)
from onboarding.sanctions.registry import ListSpec, UnknownList

FTM_FILE = "entities.ftm.json"
DATASET_URL = "https://data.opensanctions.org/datasets/latest/{dataset}/entities.ftm.json"
DEFAULT_PEP_DATASETS = frozenset({"peps"})
_DATASET = re.compile(r"^[a-z0-9_]{1,61}$")
_KINDS = {
    "Person": EntryKind.INDIVIDUAL, "Organization": EntryKind.ENTITY, "Company": EntryKind.ENTITY,
    "LegalEntity": EntryKind.ENTITY, "PublicBody": EntryKind.ENTITY, "Vessel": EntryKind.VESSEL, "Airplane": EntryKind.AIRCRAFT,
}
_COUNTRY_PROPERTIES = ("nationality", "citizenship", "country", "flag", "jurisdiction")


def _values(properties: dict, name: str) -> list[str]:
    values = properties.get(name) or []
    if isinstance(values, str):
        values = [values]
    return [value for value in (clean(item) for item in values if isinstance(item, str)) if value]


def _uid(entity_id: str) -> str:
    # SanctionsEntry.uid holds 64 characters; OpenSanctions ids are shorter, but one that is not is
    # still a stable id once hashed.
    return entity_id if len(entity_id) <= 64 else "sha-" + hashlib.sha256(entity_id.encode()).hexdigest()[:40]


def _names(properties: dict) -> list[ParsedName]:
    names: list[ParsedName] = []
    listed = _values(properties, "name")
    for position, name in enumerate(listed):
        names.append(ParsedName(name, NameKind.PRIMARY if position == 0 else NameKind.ALIAS))
    for prop, kind, qualifier in (("alias", NameKind.ALIAS, "aka"), ("previousName", NameKind.ALIAS, "fka"),
                                  ("weakAlias", NameKind.WEAK_ALIAS, "weak")):
        for name in _values(properties, prop):
            if all(existing.name.lower() != name.lower() for existing in names):
                names.append(ParsedName(name, kind if names else NameKind.PRIMARY, qualifier if names else ""))
    # A strong name in another script is the name as written in its own script, as in the UN and EU lists.
    return [ParsedName(name.name, NameKind.ORIGINAL_SCRIPT) if name.kind == NameKind.ALIAS and in_other_script(name.name) else name
            for name in names]


def _countries(properties: dict) -> list[str]:
    codes: list[str] = []
    for prop in _COUNTRY_PROPERTIES:
        for value in _values(properties, prop):
            code = country_code(value) if len(value) == 2 else ""
            if code and code not in codes:
                codes.append(code)
    return codes


def _entry(record: dict, kind: str) -> ParsedEntry:
    properties = record.get("properties") or {}
    names = _names(properties)
    programs = list(dict.fromkeys([*_values(properties, "program"), *_values(properties, "programId")]))
    topics = _values(properties, "topics")
    remarks = "; ".join(_values(properties, "notes"))
    if topics:
        remarks = f"{remarks}; topics: {', '.join(topics)}" if remarks else f"topics: {', '.join(topics)}"
    return ParsedEntry(
        uid=_uid(str(record.get("id") or "").strip()) if str(record.get("id") or "").strip() else "",
        kind=kind,
        primary_name=names[0].name[:512] if names else "",
        title="; ".join(_values(properties, "position"))[:512],
        programs=programs,
        remarks=remarks,
        birth_dates=birth_dates(_values(properties, "birthDate")) if kind == EntryKind.INDIVIDUAL else [],
        countries=_countries(properties),
        listed_on=listing_date(str(record.get("first_seen") or "")[:10]),
        names=names,
        addresses=[ParsedAddress(street=address) for address in _values(properties, "address")],
    )


def _attach_wallets(wallets: list[dict], entries: dict[str, ParsedEntry]) -> None:
    """A CryptoWallet's publicKey becomes a digital-currency address of each holder on the list."""
    for wallet in wallets:
        properties = wallet.get("properties") or {}
        currency = (_values(properties, "currency") or [""])[0].upper()[:16]
        for key in _values(properties, "publicKey"):
            for holder in properties.get("holder") or []:
                entry = entries.get(_uid(str(holder)))
                address = ParsedDigitalAddress(currency, canonical_address(key), key)
                if entry is not None and address not in entry.digital_addresses:
                    entry.digital_addresses.append(address)


def parse_ftm(blob: bytes, *, source: str, file: str = FTM_FILE, source_files: list[str] | None = None) -> ParsedList:
    """Read an OpenSanctions FollowTheMoney export (JSON lines) from its bytes, as list `source`."""
    report = ParseReport()
    entries: dict[str, ParsedEntry] = {}
    wallets: list[dict] = []
    newest = ""
    last_unreadable = False
    # Line by line from the bytes: an export can be large, and is not copied whole into a string.
    for number, raw in enumerate(io.BytesIO(blob), 1):
        line = decode_text(raw).strip()
        if not line:
            continue
        report.read(file=file)
        try:
            record = json.loads(line)
        except ValueError as error:
            report.skip(file=file, line=number, reason=f"not JSON: {error}")
            last_unreadable = True
            continue
        last_unreadable = False
        if not isinstance(record, dict) or not isinstance(record.get("properties", {}), dict):
            report.skip(file=file, line=number, reason="not an entity object")
            continue
        newest = max(newest, str(record.get("last_seen") or ""))
        schema = record.get("schema")
        if schema == "CryptoWallet":
            wallets.append(record)
            continue
        if schema not in _KINDS:
            continue  # a fact about parties (a sanction, an address, a relation), not a party
        report.keep(entries, _entry(record, _KINDS[schema]), file=file, line=number, id_name="id")
    if last_unreadable:
        report.incomplete.append(f"{file}: the last line is not a whole JSON object: the download was cut short")
    if not report.rows:
        report.incomplete.append(f"{file} is empty")
    _attach_wallets(wallets, entries)
    return ParsedList(
        source=source,
        content_hash=content_hash({FTM_FILE: blob}),
        entries=list(entries.values()),
        report=report,
        source_files=source_files if source_files is not None else [file],
        version=newest[:64],
        published_at=timestamp(newest),
    )


def is_pep_dataset(dataset: str) -> bool:
    configured = getattr(settings, "SANCTIONS_PEP_DATASETS", None)
    pep_datasets = DEFAULT_PEP_DATASETS if configured is None else frozenset(configured)
    return dataset in pep_datasets or "pep" in dataset


def dataset_spec(dataset: str) -> ListSpec:
    """The list of OpenSanctions dataset `dataset` ("peps", "us_ofac_sdn", ...) as `os_<dataset>`.
    UnknownList for a name that is not a dataset's (lower-case letters, digits and underscores)."""
    if not _DATASET.match(dataset or ""):
        raise UnknownList(
            f"No OpenSanctions dataset {dataset!r}: a dataset is named with lower-case letters, digits and underscores (os_peps).")
    source = f"os_{dataset}"
    return ListSpec(
        source=source, name=f"OpenSanctions: {dataset}", publisher="OpenSanctions",
        parse=lambda blobs: parse_ftm(blobs[FTM_FILE], source=source), files=(FTM_FILE,),
        urls={FTM_FILE: DATASET_URL.format(dataset=dataset)},
        category=ListCategory.PEP if is_pep_dataset(dataset) else ListCategory.SANCTIONS, bundled=False,
    )
