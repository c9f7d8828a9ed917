"""BIS Denied Persons List (dpl.txt): parties the US Bureau of Industry and Security has denied
export privileges.

Tab-separated text with a quoted header row: Name, Street_Address, City, State, Country,
Postal_Code, Effective_Date, Expiration_Date, Standard_Order, Last_Update, Action, FR_Citation.
Dates are the US month-first 10/16/2017, except Last_Update (ISO). Country is an ISO alpha-2 code,
or empty for many US addresses (the State column then holds a US state: the country is taken to be
the US).

One row is one party at one address: a person with three addresses is three rows, and an alias is
written in the name ("PEARL (A.K.A. NEI-CHIEN CHU) LI": primary "PEARL LI", alias "NEI-CHIEN CHU";
"FUYI SUN A/K/A FRANK SUN").

The list has no ids, so the uid is derived from the name and address as listed
(parties.derived_uid: "DPL-" + 24 hex digits): together they are what tells one denial from
another, and neither changes from one release to the next unless BIS corrects the listing itself.
A row repeated word for word is the same party and is read once. Nor does the list say whether a
party is a person or a firm: parties.guess_kind guesses from the name.

There is no publication date in the file: the newest Last_Update is the list's version.
"""

from __future__ import annotations

import re
from datetime import date

from onboarding.models.sanctions import NameKind, SanctionsSource
from onboarding.sanctions.countries import country_code
from onboarding.sanctions.files import decode_text
from onboarding.sanctions.formats.dates import listing_date
from onboarding.sanctions.formats.parties import derived_uid, guess_kind
from onboarding.sanctions.formats.tables import read_table
from onboarding.sanctions.records import ParsedAddress, ParsedEntry, ParsedList, ParsedName, ParseReport, content_hash
from onboarding.sanctions.registry import ListSpec, register

DPL_FILE = "dpl.txt"
DPL_URL = "https://www.bis.doc.gov/dpl/dpl.txt"
_AKA = re.compile(r"\(\s*(?:a\.?\s?k\.?\s?a\.?|f\.?\s?k\.?\s?a\.?)\s*:?\s*([^)]+)\)", re.IGNORECASE)
_AKA_INLINE = re.compile(r"\s+(?:a/k/a|a\.k\.a\.?)\s+", re.IGNORECASE)
# The states, DC and the territories: a State cell with an empty Country is a US address.
_STATES = ("AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA "
           "RI SC SD TN TX UT VT VA WA WV WI WY PR GU VI AS MP")
_US_STATES = frozenset(_STATES.split())


def _names(listed: str) -> tuple[str, list[str]]:
    """(primary name, aliases) of the Name cell: each '(A.K.A. X)' is an alias taken out of the name,
    and in 'X A/K/A Y' the name is X and Y an alias."""
    aliases = [" ".join(match.group(1).split()) for match in _AKA.finditer(listed)]
    primary = " ".join(_AKA.sub(" ", listed).split()) if aliases else listed
    primary, *inline = _AKA_INLINE.split(primary)
    return primary or listed, [alias for alias in [*aliases, *inline] if alias]


def _address(row: dict[str, str]) -> ParsedAddress:
    code = country_code(row["country"])
    if not row["country"] and row.get("state", "").upper() in _US_STATES:
        code = "US"
    return ParsedAddress(street=row["street_address"], city=row.get("city", ""), state_province=row.get("state", ""),
                         postal_code=row.get("postal_code", ""), country=row["country"] or code, country_code=code)


def _remarks(row: dict[str, str]) -> str:
    labelled = (("", "action"), ("Federal Register: ", "fr_citation"), ("Expires: ", "expiration_date"),
                ("Standard order: ", "standard_order"), ("Last update: ", "last_update"))
    return "; ".join(f"{label}{row[column]}" for label, column in labelled if row.get(column))


def _entry(row: dict[str, str]) -> ParsedEntry:
    primary, aliases = _names(row["name"])
    address = _address(row)
    uid = derived_uid(row["name"], address.street, address.city, address.state_province, address.postal_code, row["country"],
                      prefix="DPL-")
    entry = ParsedEntry(
        uid=uid,
        kind=guess_kind(primary),
        primary_name=primary[:512],
        remarks=_remarks(row),
        countries=[address.country_code] if address.country_code else [],
        listed_on=listing_date(row.get("effective_date", ""), day_first=False),
        names=[ParsedName(primary, NameKind.PRIMARY)],
        addresses=[address] if any((address.street, address.city, address.country)) else [],
    )
    for alias in aliases:
        if alias.lower() != primary.lower():
            entry.names.append(ParsedName(alias, NameKind.ALIAS, "aka"))
    return entry


def parse_dpl(blob: bytes, *, file: str = DPL_FILE, source_files: list[str] | None = None) -> ParsedList:
    """Read the Denied Persons List from its bytes."""
    report = ParseReport()
    entries: dict[str, ParsedEntry] = {}
    newest, today = "", date.today().isoformat()
    rows = read_table(decode_text(blob), file=file, report=report, required=("name", "street_address", "country"), delimiter="\t")
    for line, row in rows:
        if not row["name"]:
            report.skip(file=file, line=line, reason="no name")
            continue
        entry = _entry(row)
        entries.setdefault(entry.uid, entry)
        updated = row.get("last_update", "")
        # A date after today is a typing error in the list (the snapshot has a row "updated" in 3017).
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", updated) and updated <= today:
            newest = max(newest, updated)
    return ParsedList(
        source=SanctionsSource.BIS_DPL,
        content_hash=content_hash({DPL_FILE: blob}),
        entries=list(entries.values()),
        report=report,
        source_files=source_files if source_files is not None else [file],
        version=newest,
    )


register(ListSpec(
    source=SanctionsSource.BIS_DPL, name="BIS Denied Persons List", publisher="US Department of Commerce, Bureau of Industry and Security",
    parse=lambda blobs: parse_dpl(blobs[DPL_FILE]), files=(DPL_FILE,), urls={DPL_FILE: DPL_URL}, bundled=True,
))
