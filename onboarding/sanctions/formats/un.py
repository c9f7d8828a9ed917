"""UN Security Council consolidated list (XML, `CONSOLIDATED_LIST` with INDIVIDUALS and ENTITIES).

An individual's name is FIRST_NAME .. FOURTH_NAME in that order (the UN does not put the surname
first). Aliases carry a QUALITY: 'Good' and 'a.k.a.'/'f.k.a.' are aliases, 'Low' is a weak alias
(the UN's own "low quality" marker, like OFAC's quoted a.k.a.s); an empty alias element is the
list's placeholder and is ignored. NAME_ORIGINAL_SCRIPT (Arabic, Cyrillic, ...) is kept as its own
name kind. Dates of birth come as DATE, YEAR, or FROM_YEAR/TO_YEAR for a range.

The document must be well-formed: the published file is, and one that is not was cut short or
damaged in transit. It is then read with lxml's recovering parser only to report what could be
read (every parser error counted as a skipped row), and marked `incomplete`, which the loader
refuses (xmldoc.read_document). Entries without an id or a name are skipped and counted.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

from onboarding.models.sanctions import EntryKind, NameKind, SanctionsSource
from onboarding.sanctions.countries import country_code
from onboarding.sanctions.files import read_blob
from onboarding.sanctions.formats.xmldoc import read_document
from onboarding.sanctions.records import (
    ParsedAddress,
    ParsedEntry,
    ParsedList,
    ParsedName,
    ParseReport,
    clean,
    content_hash,
)
from onboarding.sanctions.registry import ListSpec, register

_NAME_PARTS = ("FIRST_NAME", "SECOND_NAME", "THIRD_NAME", "FOURTH_NAME")
_ALIAS_KINDS = {
    "good": (NameKind.ALIAS, "good"), "low": (NameKind.WEAK_ALIAS, "low"),
    "a.k.a.": (NameKind.ALIAS, "aka"), "f.k.a.": (NameKind.ALIAS, "fka"), "": (NameKind.ALIAS, ""),
}


def _text(element, path: str) -> str:
    return clean(element.findtext(path))


def _values(element, path: str) -> list[str]:
    return [value for value in (clean(node.text) for node in element.findall(f"{path}/VALUE")) if value]


def _date(value: str) -> date | None:
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def _birth_dates(record) -> list[str]:
    dates: list[str] = []
    for node in record.findall("INDIVIDUAL_DATE_OF_BIRTH"):
        exact, year = _text(node, "DATE"), _text(node, "YEAR")
        start, end = _text(node, "FROM_YEAR"), _text(node, "TO_YEAR")
        value = exact[:10] if _date(exact) else year if year.isdigit() else f"{start}/{end}" if start.isdigit() and end.isdigit() else ""
        if value and value not in dates:
            dates.append(value)
    return dates


def _names(record, primary: str, alias_tag: str) -> list[ParsedName]:
    names = [ParsedName(primary, NameKind.PRIMARY)]
    for node in record.findall(alias_tag):
        alias = _text(node, "ALIAS_NAME")
        kind, qualifier = _ALIAS_KINDS.get(_text(node, "QUALITY").lower(), (NameKind.ALIAS, ""))
        if alias and all(existing.name.lower() != alias.lower() for existing in names):
            names.append(ParsedName(alias, kind, qualifier))
    for node in record.findall("NAME_ORIGINAL_SCRIPT"):
        original = clean(node.text)
        if original:
            names.append(ParsedName(original, NameKind.ORIGINAL_SCRIPT))
    return names


def _addresses(record, tag: str) -> list[ParsedAddress]:
    addresses = []
    for node in record.findall(tag):
        address = ParsedAddress(
            street=_text(node, "STREET"),
            city=_text(node, "CITY"),
            state_province=_text(node, "STATE_PROVINCE"),
            postal_code=_text(node, "ZIP_CODE"),
            country=_text(node, "COUNTRY"),
            country_code=country_code(_text(node, "COUNTRY")),
            note=_text(node, "NOTE"),
        )
        if any((address.street, address.city, address.state_province, address.country, address.note)):
            addresses.append(address)
    return addresses


def _countries(record, addresses: list[ParsedAddress]) -> list[str]:
    places = [*_values(record, "NATIONALITY"), *(_text(node, "COUNTRY") for node in record.findall("INDIVIDUAL_PLACE_OF_BIRTH"))]
    codes: list[str] = []
    for code in [*(country_code(place) for place in places), *(address.country_code for address in addresses)]:
        if code and code not in codes:
            codes.append(code)
    return codes


def _entry(record, *, individual: bool) -> ParsedEntry:
    if individual:
        primary = " ".join(part for part in (_text(record, tag) for tag in _NAME_PARTS) if part)
    else:
        primary = _text(record, "FIRST_NAME")
    addresses = _addresses(record, "INDIVIDUAL_ADDRESS" if individual else "ENTITY_ADDRESS")
    program = _text(record, "UN_LIST_TYPE")
    return ParsedEntry(
        uid=_text(record, "DATAID"),
        kind=EntryKind.INDIVIDUAL if individual else EntryKind.ENTITY,
        primary_name=primary,
        reference=_text(record, "REFERENCE_NUMBER"),
        title="; ".join(_values(record, "TITLE")),
        programs=[program] if program else [],
        remarks=_text(record, "COMMENTS1"),
        birth_dates=_birth_dates(record) if individual else [],
        countries=_countries(record, addresses),
        listed_on=_date(_text(record, "LISTED_ON")),
        names=_names(record, primary, "INDIVIDUAL_ALIAS" if individual else "ENTITY_ALIAS") if primary else [],
        addresses=addresses,
    )


def _published_at(root) -> datetime | None:
    stamp = (root.get("dateGenerated") or "").replace("Z", "+00:00")
    try:
        return datetime.fromisoformat(stamp)
    except ValueError:
        return None


UN_FILE = "consolidated.xml"


def parse_un_file(blob: bytes, *, file: str = UN_FILE, source_files: list[str] | None = None) -> ParsedList:
    """Read the UN consolidated list XML from its bytes."""
    report = ParseReport()
    root = read_document(blob, file, report)
    entries: dict[str, ParsedEntry] = {}
    for tag, individual in (("INDIVIDUALS/INDIVIDUAL", True), ("ENTITIES/ENTITY", False)):
        for record in root.findall(tag) if root is not None else []:
            report.read(file=file)
            report.keep(entries, _entry(record, individual=individual), file=file, line=record.sourceline, id_name="DATAID")
    published = _published_at(root) if root is not None else None
    return ParsedList(
        source=SanctionsSource.UN_CONSOLIDATED,
        content_hash=content_hash({UN_FILE: blob}),
        entries=list(entries.values()),
        report=report,
        source_files=source_files if source_files is not None else [file],
        version=root.get("dateGenerated", "") if root is not None else "",
        published_at=published,
    )


def parse_un(path: str | Path) -> ParsedList:
    """Read the UN consolidated list XML at `path` (plain or gzip-compressed)."""
    path = Path(path)
    return parse_un_file(read_blob(path), file=path.name.removesuffix(".gz"), source_files=[str(path)])


register(ListSpec(
    source=SanctionsSource.UN_CONSOLIDATED, name="UN Security Council Consolidated List", publisher="United Nations Security Council",
    parse=lambda blobs: parse_un_file(blobs[UN_FILE]), files=(UN_FILE,),
    urls={UN_FILE: "https://scsanctions.un.org/resources/xml/en/consolidated.xml"}, bundled=True,
))
