"""UK Sanctions List: every designation under UK sanctions regulations, published by the Foreign,
Commonwealth and Development Office (FCDO) as XML. (It replaced OFSI's Consolidated List.)

Root `Designations`, its generation date either as an attribute or as a `DateGenerated` child
(ISO, or dd/mm/yyyy), which is the list's version and publication time. Each `Designation` has:

- `UniqueID` (the FCDO's reference, e.g. RUS0251: the uid), `OFSIGroupID` (kept as the reference),
  `RegimeName` (the programme), `DateDesignated`, `LastUpdated`, `OtherInformation`;
- `IndividualEntityShip`: Individual, Entity or Ship;
- `Names/Name`: `Name1`..`Name5` (given names, in order) and `Name6` (the family name, or the
  whole name of an entity or a ship), `NameType` "Primary Name", "Primary Name Variation" or
  "Alias"; an `AliasStrength` or `AliasQuality` reading "low"/"weak", where present, makes it a weak
  alias;
- `NonLatinNames/NonLatinName/NameNonLatinScript`: the name in its own script;
- `Addresses/Address`: `AddressLine1`..`AddressLine6`, `AddressPostalCode`, `AddressCountry`;
- `IndividualDetails/Individual`: `DOBs/DOB` as dd/mm/yyyy, where a 00 day or month means it is
  not known ("00/00/1960" is the year 1960), `Nationalities/Nationality`, `Positions/Position`,
  `BirthDetails/Location/CountryOfBirth`;
- for a ship, `CurrentBelievedFlagOfShip` wherever it is given.

A document that is not well-formed, or whose root is not `Designations`, is recorded as incomplete
(xmldoc) and refused by the loader; designations without a UniqueID or a name, and repeated
UniqueIDs, are skipped and counted.
"""

from __future__ import annotations

from onboarding.models.sanctions import EntryKind, NameKind, SanctionsSource
from onboarding.sanctions.countries import country_code
from onboarding.sanctions.formats.dates import birth_dates, listing_date
from onboarding.sanctions.formats.xmldoc import parse_entity_document, text, texts
from onboarding.sanctions.records import ParsedAddress, ParsedEntry, ParsedList, ParsedName, clean
from onboarding.sanctions.registry import ListSpec, register

UK_FILE = "UK-Sanctions-List.xml"
UK_URL = "https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.xml"
_KINDS = {"individual": EntryKind.INDIVIDUAL, "entity": EntryKind.ENTITY, "ship": EntryKind.VESSEL}
_NAME_PARTS = ("Name1", "Name2", "Name3", "Name4", "Name5", "Name6")


def _name(node) -> str:
    return " ".join(part for part in (text(node, tag) for tag in _NAME_PARTS) if part)


def _names(designation) -> list[ParsedName]:
    """The designation's names, the primary first (the first "Primary Name", else the first name)."""
    listed = []
    for node in designation.findall("Names/Name"):
        name = _name(node)
        if not name:
            continue
        name_type = text(node, "NameType").lower()
        strength = (text(node, "AliasStrength") or text(node, "AliasQuality")).lower()
        weak = "low" in strength or "weak" in strength
        listed.append((name, name_type, weak))
    if not listed:
        return []
    primary = next((item for item in listed if item[1] == "primary name"), listed[0])
    names = [ParsedName(primary[0], NameKind.PRIMARY)]
    for name, name_type, weak in listed:
        if all(existing.name.lower() != name.lower() for existing in names):
            qualifier = "variation" if name_type == "primary name variation" else ""
            names.append(ParsedName(name, NameKind.WEAK_ALIAS if weak else NameKind.ALIAS, qualifier))
    for original in texts(designation, "NonLatinNames/NonLatinName/NameNonLatinScript"):
        if all(existing.name != original for existing in names):
            names.append(ParsedName(original, NameKind.ORIGINAL_SCRIPT))
    return names


def _addresses(designation) -> list[ParsedAddress]:
    addresses = []
    for node in designation.findall("Addresses/Address"):
        lines = [text(node, f"AddressLine{number}") for number in range(1, 7)]
        country = text(node, "AddressCountry")
        address = ParsedAddress(street=", ".join(line for line in lines if line), postal_code=text(node, "AddressPostalCode"),
                                country=country, country_code=country_code(country))
        if address.street or address.country:
            addresses.append(address)
    return addresses


def _countries(designation, addresses: list[ParsedAddress]) -> list[str]:
    places = [*texts(designation, ".//Nationalities/Nationality"), *texts(designation, ".//BirthDetails/Location/CountryOfBirth"),
              *texts(designation, ".//CurrentBelievedFlagOfShip")]
    codes: list[str] = []
    for code in [*(country_code(place) for place in places), *(address.country_code for address in addresses)]:
        if code and code not in codes:
            codes.append(code)
    return codes


def _entry(designation) -> ParsedEntry:
    kind = _KINDS.get(text(designation, "IndividualEntityShip").lower(), EntryKind.ENTITY)
    names = _names(designation)
    addresses = _addresses(designation)
    regime = text(designation, "RegimeName")
    return ParsedEntry(
        uid=text(designation, "UniqueID")[:64],
        kind=kind,
        primary_name=names[0].name[:512] if names else "",
        reference=text(designation, "OFSIGroupID")[:64],
        title="; ".join(texts(designation, ".//Positions/Position"))[:512],
        programs=[regime] if regime else [],
        remarks=text(designation, "OtherInformation"),
        birth_dates=birth_dates(texts(designation, ".//DOBs/DOB")) if kind == EntryKind.INDIVIDUAL else [],
        countries=_countries(designation, addresses),
        listed_on=listing_date(text(designation, "DateDesignated")),
        names=names,
        addresses=addresses,
    )


def _generated(root) -> str:
    for name in ("DateGenerated", "dateGenerated", "GenerationDate", "generationDate"):
        if root.get(name):
            return clean(root.get(name))
    return text(root, "DateGenerated")


def parse_uk(blob: bytes, *, file: str = UK_FILE, source_files: list[str] | None = None) -> ParsedList:
    """Read the UK Sanctions List (XML) from its bytes."""
    return parse_entity_document(blob, file=file, source=SanctionsSource.UK_SANCTIONS, root_tag="Designations", element="Designation",
                                 id_name="UniqueID", entry=_entry, generated=_generated, source_files=source_files)

register(ListSpec(
    source=SanctionsSource.UK_SANCTIONS, name="UK Sanctions List", publisher="UK Foreign, Commonwealth and Development Office",
    parse=lambda blobs: parse_uk(blobs[UK_FILE]), files=(UK_FILE,), urls={UK_FILE: UK_URL}, bundled=False,
))
