"""EU Financial Sanctions Files (FSF): the consolidated list of persons, groups and entities under EU
financial sanctions, as the European Commission exports it in XML.

The document's root is `export` (in the namespace
http://eu.europa.eu/fsd/fsf/public/xsd/fsf_publicexport.xsd, which is not relied on: namespaces are
dropped on reading) with a `generationDate` attribute, the list's version and publication time. Each
`sanctionEntity` (attributes logicalId, euReferenceNumber, unitedNationId, designationDetails) has:

- `regulation` elements (attribute programme, e.g. "RUS", "IRQ"; publicationDate): the programmes,
  and the earliest publication date is the listing date;
- `subjectType` (code "person" or "enterprise");
- `nameAlias` elements (wholeName, or firstName / middleName / lastName; function; nameLanguage;
  strong="true"/"false"). The list has no "primary" name: the first strong name in Latin letters is
  taken as the primary. A name marked strong="false" is what the EU calls a weak alias (too broad to
  identify anyone alone): NameKind.WEAK_ALIAS. A strong name in another script (Cyrillic, Arabic,
  Greek, ...) is NameKind.ORIGINAL_SCRIPT, as with the UN list, with its nameLanguage as qualifier;
- `citizenship` (countryIso2Code), `birthdate` (birthdate="YYYY-MM-DD", or year / monthOfYear /
  dayOfMonth, or yearRangeFrom / yearRangeTo; countryIso2Code of the place of birth), `address`
  (street, poBox, city, zipCode, region, countryIso2Code, countryDescription), `remark`.
The EU writes "00" for an unknown country; it is not used.

The file's URL carries a token each user gets from the Commission's Financial Sanctions Database, so
the spec has no default URL: the operator sets it in settings.SANCTIONS_URLS["eu_fsf"]
["eu_fsf.xml"] (environment: SANCTIONS_URL_EU_FSF_<FILE>), or downloads the file and loads it with
`load_sanctions --list eu_fsf --file <the file>`.

A document that is not well-formed, or whose root is not `export`, is recorded as incomplete
(xmldoc) and refused by the loader; entities without a logicalId or a name, and repeated
logicalIds, are skipped and counted.
"""

from __future__ import annotations

import re

from onboarding.models.sanctions import EntryKind, NameKind, SanctionsSource
from onboarding.sanctions.countries import country_code
from onboarding.sanctions.formats.dates import birth_date, listing_date
from onboarding.sanctions.formats.xmldoc import parse_entity_document
from onboarding.sanctions.records import (
    ParsedAddress,
    ParsedEntry,
    ParsedList,
    ParsedName,
    clean,
    in_other_script,
)
from onboarding.sanctions.registry import ListSpec, register

EU_FILE = "eu_fsf.xml"
_KINDS = {"person": EntryKind.INDIVIDUAL, "enterprise": EntryKind.ENTITY}


def _attr(element, name: str) -> str:
    return clean(element.get(name))


def _code(value: str) -> str:
    """An ISO alpha-2 code as the EU writes it ('RU', '00' for unknown) -> 'RU' or ''."""
    return country_code(value) if re.fullmatch(r"[A-Za-z]{2}", value) else ""


def _whole_name(alias) -> str:
    return _attr(alias, "wholeName") or " ".join(
        part for part in (_attr(alias, "firstName"), _attr(alias, "middleName"), _attr(alias, "lastName")) if part
    )


def _names(entity) -> list[ParsedName]:
    """The entity's names, the primary first."""
    listed = []
    for alias in entity.findall("nameAlias"):
        name = _whole_name(alias)
        if name:
            strong = _attr(alias, "strong").lower() != "false"
            listed.append((name, strong, in_other_script(name), _attr(alias, "nameLanguage").lower()[:16]))
    if not listed:
        return []
    primary = next((item for item in listed if item[1] and not item[2]), next((item for item in listed if not item[2]), listed[0]))
    names = [ParsedName(primary[0], NameKind.PRIMARY)]
    for name, strong, non_latin, language in listed:
        if any(existing.name.lower() == name.lower() for existing in names):
            continue
        kind = NameKind.WEAK_ALIAS if not strong else NameKind.ORIGINAL_SCRIPT if non_latin else NameKind.ALIAS
        names.append(ParsedName(name, kind, language))
    return names


def _birth_dates(entity) -> list[str]:
    dates: list[str] = []
    for node in entity.findall("birthdate"):
        start, end = _attr(node, "yearRangeFrom"), _attr(node, "yearRangeTo")
        year, month, day = _attr(node, "year"), _attr(node, "monthOfYear"), _attr(node, "dayOfMonth")
        value = birth_date(_attr(node, "birthdate"))
        if not value and year:  # a day without a month says nothing
            value = birth_date("-".join((year, month, day) if month and day else (year, month) if month else (year,)))
        if not value and start and end:
            value = birth_date(f"{start}/{end}")
        if value and value not in dates:
            dates.append(value)
    return dates


def _addresses(entity) -> list[ParsedAddress]:
    addresses = []
    for node in entity.findall("address"):
        street = ", ".join(part for part in (_attr(node, "street"), _attr(node, "poBox") and f"PO Box {_attr(node, 'poBox')}") if part)
        code = _code(_attr(node, "countryIso2Code"))
        description = _attr(node, "countryDescription")
        address = ParsedAddress(
            street=street, city=_attr(node, "city"), state_province=_attr(node, "region"), postal_code=_attr(node, "zipCode"),
            country=description if description.upper() != "UNKNOWN" else "", country_code=code, note=_attr(node, "place"),
        )
        if any((address.street, address.city, address.state_province, address.country, address.country_code)):
            addresses.append(address)
    return addresses


def _countries(entity, addresses: list[ParsedAddress]) -> list[str]:
    codes: list[str] = []
    listed = [_code(_attr(node, "countryIso2Code")) for tag in ("citizenship", "birthdate") for node in entity.findall(tag)]
    for code in [*listed, *(address.country_code for address in addresses)]:
        if code and code not in codes:
            codes.append(code)
    return codes


def _entry(entity) -> ParsedEntry:
    subject = entity.find("subjectType")
    kind = _KINDS.get(_attr(subject, "code").lower(), EntryKind.ENTITY) if subject is not None else EntryKind.ENTITY
    names = _names(entity)
    addresses = _addresses(entity)
    regulations = entity.findall("regulation")
    programs: list[str] = []
    for regulation in regulations:
        programme = _attr(regulation, "programme")
        if programme and programme not in programs:
            programs.append(programme)
    published = [day for day in (listing_date(_attr(regulation, "publicationDate")) for regulation in regulations) if day]
    functions: list[str] = []
    for alias in entity.findall("nameAlias"):
        function = _attr(alias, "function")
        if function and function not in functions:
            functions.append(function)
    remarks = [clean(node.text) for node in entity.findall("remark") if clean(node.text)]
    if _attr(entity, "designationDetails"):
        remarks.append(_attr(entity, "designationDetails"))
    if _attr(entity, "unitedNationId"):
        remarks.append(f"UN reference: {_attr(entity, 'unitedNationId')}")
    return ParsedEntry(
        uid=_attr(entity, "logicalId")[:64],
        kind=kind,
        primary_name=names[0].name[:512] if names else "",
        reference=_attr(entity, "euReferenceNumber")[:64],
        title="; ".join(functions)[:512],
        programs=programs,
        remarks="; ".join(remarks),
        birth_dates=_birth_dates(entity) if kind == EntryKind.INDIVIDUAL else [],
        countries=_countries(entity, addresses),
        listed_on=min(published, default=None),
        names=names,
        addresses=addresses,
    )


def parse_eu(blob: bytes, *, file: str = EU_FILE, source_files: list[str] | None = None) -> ParsedList:
    """Read an EU Financial Sanctions File (XML) from its bytes."""
    return parse_entity_document(blob, file=file, source=SanctionsSource.EU_FSF, root_tag="export", element="sanctionEntity",
                                 id_name="logicalId", entry=_entry, generated=lambda root: _attr(root, "generationDate"),
                                 source_files=source_files)

register(ListSpec(
    source=SanctionsSource.EU_FSF, name="EU Financial Sanctions Files (consolidated list)",
    publisher="European Commission (DG FISMA)",
    parse=lambda blobs: parse_eu(blobs[EU_FILE]), files=(EU_FILE,),
    # No default URL: the Commission's file URL carries a per-user token (see the module's docstring).
    urls={}, bundled=False,
))
