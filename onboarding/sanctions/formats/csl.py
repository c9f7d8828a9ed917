"""US Consolidated Screening List (CSL), the CSV the International Trade Administration publishes.

The CSL gathers the export-control and sanctions lists of three US departments in one table:
Commerce (BIS Entity List, Denied Persons List, Unverified List, Military End User List), State
(ITAR debarred, nonproliferation sanctions) and the Treasury (OFAC's SDN list and its non-SDN
lists). One row is one listing; its `source` column names the list it comes from, e.g.
"Entity List (EL) - Bureau of Industry and Security". That name is kept as the entry's first
program, so that a hit says which list the party is on (and so which rules apply: an Entity List
licence requirement is not an OFAC block).

Columns (found by header name; others, such as `_id` or the URLs, are ignored): source,
entity_number, type, programs, name, title, addresses, federal_register_notice, start_date,
end_date, standard_order, license_requirement, license_policy, call_sign, vessel_type, ...,
vessel_flag, vessel_owner, remarks, alt_names, citizenships, dates_of_birth, nationalities,
places_of_birth, ids. Multi-valued cells are '; '-separated. An address is
"street, city, state, postal code, country" with empty parts left out and the country as an ISO
alpha-2 code, so only a final two-letter code is read as the country.

Ids: the Treasury rows carry OFAC's ent_num (`entity_number`), the entry's uid. The Commerce and
State rows carry none, so theirs is derived from the list code, name and addresses
(parties.derived_uid: "EL-" + 24 hex digits). The `_id` column of the current file is not used: the
ITA does not say it stays the same from one release to the next. Two rows with the same uid (the
same OFAC party on two of the Treasury lists, or a row repeated word for word) are one party:
their names, addresses and programs are merged.

`type` is Individual / Entity / Vessel / Aircraft on the Treasury rows and empty on the others,
whose kind is then guessed from the name (parties.guess_kind).
"""

from __future__ import annotations

import re

from onboarding.models.sanctions import EntryKind, NameKind, SanctionsSource
from onboarding.sanctions.countries import country_code
from onboarding.sanctions.files import decode_text
from onboarding.sanctions.formats.dates import birth_dates, listing_date
from onboarding.sanctions.formats.parties import derived_uid, guess_kind
from onboarding.sanctions.formats.tables import read_table
from onboarding.sanctions.records import ParsedAddress, ParsedEntry, ParsedList, ParsedName, ParseReport, content_hash
from onboarding.sanctions.registry import ListSpec, register

CSL_FILE = "consolidated.csv"
CSL_URL = "https://data.trade.gov/downloadable_consolidated_screening_list/v1/consolidated.csv"
_KINDS = {"individual": EntryKind.INDIVIDUAL, "entity": EntryKind.ENTITY, "vessel": EntryKind.VESSEL, "aircraft": EntryKind.AIRCRAFT}
_LIST_CODE = re.compile(r"\(([A-Z0-9-]{2,10})\)")
_COUNTRY = re.compile(r"^[A-Z]{2}$")


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(";") if part.strip()]


def _address(text: str) -> ParsedAddress:
    parts = [part.strip() for part in text.split(",")]
    code = country_code(parts[-1]) if _COUNTRY.match(parts[-1]) else ""
    if code:
        return ParsedAddress(street=", ".join(parts[:-1]), country=parts[-1], country_code=code)
    return ParsedAddress(street=text)


def _countries(row: dict[str, str], addresses: list[ParsedAddress]) -> list[str]:
    places = [*_split(row.get("nationalities", "")), *_split(row.get("citizenships", "")), row.get("vessel_flag", "")]
    places += [place.split(",")[-1] for place in _split(row.get("places_of_birth", ""))]
    codes: list[str] = []
    for code in [*(country_code(place) for place in places), *(address.country_code for address in addresses)]:
        if code and code not in codes:
            codes.append(code)
    return codes


def _remarks(row: dict[str, str]) -> str:
    labelled = (("", "remarks"), ("Federal Register: ", "federal_register_notice"), ("Licence requirement: ", "license_requirement"),
                ("Licence policy: ", "license_policy"), ("Ends: ", "end_date"), ("Ids: ", "ids"))
    return "; ".join(f"{label}{row[column]}" for label, column in labelled if row.get(column))


def _uid(row: dict[str, str]) -> str:
    number = row.get("entity_number", "")
    if number.isdigit():
        return number
    code = _LIST_CODE.search(row["source"])
    return derived_uid(row["source"], row["name"], row.get("addresses", ""), prefix=f"{code.group(1) if code else 'CSL'}-")


def _entry(row: dict[str, str]) -> ParsedEntry:
    name = row["name"]
    kind = _KINDS.get(row.get("type", "").lower()) or guess_kind(name)
    addresses = [_address(text) for text in _split(row.get("addresses", ""))]
    entry = ParsedEntry(
        uid=_uid(row),
        kind=kind,
        primary_name=name[:512],
        title=row.get("title", "")[:512],
        programs=[row["source"], *(program for program in _split(row.get("programs", "")) if program != row["source"])],
        remarks=_remarks(row),
        birth_dates=birth_dates(_split(row.get("dates_of_birth", ""))) if kind == EntryKind.INDIVIDUAL else [],
        countries=_countries(row, addresses),
        listed_on=listing_date(row.get("start_date", "")),
        names=[ParsedName(name, NameKind.PRIMARY)],
        addresses=addresses,
    )
    for alias in _split(row.get("alt_names", "")):
        _add_name(entry, alias)
    return entry


def _add_name(entry: ParsedEntry, name: str, kind: str = NameKind.ALIAS) -> None:
    if all(existing.name.lower() != name.lower() for existing in entry.names):
        entry.names.append(ParsedName(name, kind))


def _merge(entry: ParsedEntry, other: ParsedEntry) -> None:
    """Fold a second row of the same party into its entry."""
    for name in other.names:
        _add_name(entry, name.name)
    for field_name in ("programs", "birth_dates", "countries", "addresses"):
        values = getattr(entry, field_name)
        values.extend(value for value in getattr(other, field_name) if value not in values)
    if other.remarks and other.remarks not in entry.remarks:
        entry.remarks = f"{entry.remarks}; {other.remarks}" if entry.remarks else other.remarks


def parse_csl(blob: bytes, *, file: str = CSL_FILE, source_files: list[str] | None = None) -> ParsedList:
    """Read the Consolidated Screening List CSV from its bytes."""
    report = ParseReport()
    entries: dict[str, ParsedEntry] = {}
    for line, row in read_table(decode_text(blob), file=file, report=report, required=("source", "name")):
        if not row["name"]:
            report.skip(file=file, line=line, reason="no name")
            continue
        if not row["source"]:
            report.skip(file=file, line=line, reason="no source list")
            continue
        entry = _entry(row)
        if entry.uid in entries:
            _merge(entries[entry.uid], entry)
        else:
            entries[entry.uid] = entry
    return ParsedList(
        source=SanctionsSource.US_CSL,
        content_hash=content_hash({CSL_FILE: blob}),
        entries=list(entries.values()),
        report=report,
        source_files=source_files if source_files is not None else [file],
    )


register(ListSpec(
    source=SanctionsSource.US_CSL, name="US Consolidated Screening List",
    publisher="US Department of Commerce, International Trade Administration",
    parse=lambda blobs: parse_csl(blobs[CSL_FILE]), files=(CSL_FILE,), urls={CSL_FILE: CSL_URL}, bundled=True,
))
