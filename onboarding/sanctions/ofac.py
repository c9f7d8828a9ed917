"""OFAC SDN list in OFAC's legacy CSV layout (sdn.csv, alt.csv, add.csv, sdn_comments.csv).

The files have no header row and use '-0-' (often '-0- ') for an empty field; they end with a DOS
end-of-file byte (0x1A) on a line of its own. Columns:

- sdn.csv: ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type, Tonnage, GRT,
  Vess_flag, Vess_owner, Remarks. SDN_Type is 'individual', 'vessel', 'aircraft' or empty
  (an organization). Programs are joined as 'SDGT] [IFSR'.
- alt.csv: ent_num, alt_num, alt_type (aka/fka/nka), alt_name, alt_remarks.
- add.csv: ent_num, add_num, address, 'city state postal', country, add_remarks.
- sdn_comments.csv (optional): ent_num, the rest of a Remarks field OFAC cut at 1,000 characters.
  The cut falls anywhere, even inside a digital-currency address, so the two are joined as they are.

Malformed rows (wrong column count, non-numeric ids, no name, a reference to an unknown entry, a
repeated ent_num) are skipped and counted in the report, never fatal here: the loader refuses a list
with more than a few (loader.py). sdn.csv, alt.csv and add.csv as OFAC publishes them end with the
DOS end-of-file byte; one that does not was cut short in transit, which the report records
(`incomplete`) for the loader to refuse. sdn_comments.csv carries no such byte, so it cannot be checked.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from onboarding.models.sanctions import EntryKind, NameKind, SanctionsSource
from onboarding.sanctions import ofac_remarks
from onboarding.sanctions.countries import country_code
from onboarding.sanctions.files import read_files
from onboarding.sanctions.records import (
    ParsedAddress,
    ParsedDigitalAddress,
    ParsedEntry,
    ParsedList,
    ParsedName,
    ParseReport,
    clean,
    content_hash,
)
from onboarding.sanctions.registry import ListSpec, register

SDN_FILE, ALT_FILE, ADD_FILE, COMMENTS_FILE = "sdn.csv", "alt.csv", "add.csv", "sdn_comments.csv"
_KINDS = {"individual": EntryKind.INDIVIDUAL, "vessel": EntryKind.VESSEL, "aircraft": EntryKind.AIRCRAFT, "": EntryKind.ENTITY}
_DOS_EOF = "\x1a"
# The files OFAC ends with _DOS_EOF (sdn_comments.csv does not).
_MARKED_FILES = (SDN_FILE, ALT_FILE, ADD_FILE)


def _decode(blob: bytes) -> str:
    try:
        return blob.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Older OFAC files are Windows-1252.
        return blob.decode("cp1252", errors="replace")


def _rows(text: str, *, file: str, width: int, report: ParseReport):
    """(line number, cleaned row) for every row of the expected width; the rest are reported."""
    reader = csv.reader(io.StringIO(text))
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            report.read(file=file)
            report.skip(file=file, line=reader.line_num, reason=f"unreadable CSV: {error}")
            continue
        if not row or row == [_DOS_EOF] or all(not cell.strip() for cell in row):
            continue
        report.read(file=file)
        if len(row) != width:
            report.skip(file=file, line=reader.line_num, reason=f"{len(row)} columns, expected {width}")
            continue
        ent_num = row[0].strip()
        if not ent_num.isdigit():
            report.skip(file=file, line=reader.line_num, reason=f"ent_num {ent_num[:20]!r} is not a number")
            continue
        yield reader.line_num, [row[0].strip(), *(clean(cell) for cell in row[1:])]


def _programs(value: str) -> list[str]:
    return [program.strip(" []") for program in value.split("] [") if program.strip(" []")]


def _entry(row: list[str], remarks: str) -> ParsedEntry:
    ent_num, name, sdn_type, program, title = row[0], row[1], row[2].lower(), row[3], row[4]
    kind = _KINDS.get(sdn_type, EntryKind.ENTITY)
    countries = ofac_remarks.nationalities(remarks)
    flag = country_code(row[9])
    if flag and flag not in countries:
        countries.append(flag)
    entry = ParsedEntry(
        uid=ent_num,
        kind=kind,
        primary_name=name,
        title=title,
        programs=_programs(program),
        remarks=remarks,
        birth_dates=ofac_remarks.birth_dates(remarks) if kind == EntryKind.INDIVIDUAL else [],
        countries=countries,
        names=[ParsedName(name, NameKind.PRIMARY)],
    )
    for alias in ofac_remarks.weak_aliases(remarks):
        _add_name(entry, ParsedName(alias, NameKind.WEAK_ALIAS, "aka"))
    entry.digital_addresses = [
        ParsedDigitalAddress(currency, address, listed) for currency, address, listed in ofac_remarks.digital_addresses(remarks)
    ]
    return entry


def _add_name(entry: ParsedEntry, name: ParsedName) -> None:
    if all(existing.name.lower() != name.name.lower() for existing in entry.names):
        entry.names.append(name)


def _comments(text: str, report: ParseReport) -> dict[str, str]:
    continued: dict[str, str] = {}
    for _line, row in _rows(text, file=COMMENTS_FILE, width=2, report=report):
        continued[row[0]] = continued.get(row[0], "") + row[1]
    return continued


def _entries(text: str, comments: dict[str, str], report: ParseReport) -> dict[str, ParsedEntry]:
    entries: dict[str, ParsedEntry] = {}
    for line, row in _rows(text, file=SDN_FILE, width=12, report=report):
        if not row[1]:
            report.skip(file=SDN_FILE, line=line, reason="no name")
        elif row[0] in entries:
            report.skip(file=SDN_FILE, line=line, reason=f"ent_num {row[0]} repeated")
        else:
            # The continuation is glued on as is: OFAC cut the field mid-word.
            entries[row[0]] = _entry(row, row[11] + comments.get(row[0], ""))
    return entries


def _attach_aliases(text: str, entries: dict[str, ParsedEntry], report: ParseReport) -> None:
    for line, row in _rows(text, file=ALT_FILE, width=5, report=report):
        entry = entries.get(row[0])
        if entry is None or not row[3]:
            report.skip(file=ALT_FILE, line=line, reason="unknown ent_num" if entry is None else "no alias name")
            continue
        _add_name(entry, ParsedName(row[3], NameKind.ALIAS, row[2].lower()))


def _attach_addresses(text: str, entries: dict[str, ParsedEntry], report: ParseReport) -> None:
    for line, row in _rows(text, file=ADD_FILE, width=6, report=report):
        entry = entries.get(row[0])
        if entry is None:
            report.skip(file=ADD_FILE, line=line, reason="unknown ent_num")
            continue
        code = country_code(row[4])
        entry.addresses.append(ParsedAddress(street=row[2], city=row[3], country=row[4], country_code=code, note=row[5]))
        if code and code not in entry.countries:
            entry.countries.append(code)


def _check_complete(blobs: dict[str, bytes], report: ParseReport) -> None:
    for name in _MARKED_FILES:
        if name in blobs and not blobs[name].rstrip(b"\r\n\t ").endswith(_DOS_EOF.encode()):
            report.incomplete.append(f"{name} does not end with OFAC's end-of-file byte (0x1A): the download was cut short")


def parse_ofac_files(blobs: dict[str, bytes], *, source_files: list[str] | None = None) -> ParsedList:
    """Read the SDN CSV set from `blobs` (file name -> content as published). sdn.csv is required."""
    if SDN_FILE not in blobs:
        raise FileNotFoundError(f"{SDN_FILE} is missing")
    report = ParseReport()
    _check_complete(blobs, report)
    comments = _comments(_decode(blobs[COMMENTS_FILE]), report) if COMMENTS_FILE in blobs else {}
    entries = _entries(_decode(blobs[SDN_FILE]), comments, report)
    if ALT_FILE in blobs:
        _attach_aliases(_decode(blobs[ALT_FILE]), entries, report)
    if ADD_FILE in blobs:
        _attach_addresses(_decode(blobs[ADD_FILE]), entries, report)
    return ParsedList(
        source=SanctionsSource.OFAC_SDN,
        content_hash=content_hash(blobs),
        entries=list(entries.values()),
        report=report,
        source_files=source_files if source_files is not None else sorted(blobs),
    )


def parse_ofac(directory: str | Path) -> ParsedList:
    """Read the SDN CSV set from `directory` (each file plain or gzip-compressed). sdn.csv is required."""
    directory = Path(directory)
    blobs, paths = read_files(directory, (SDN_FILE, ALT_FILE, ADD_FILE, COMMENTS_FILE))
    if SDN_FILE not in blobs:
        raise FileNotFoundError(f"{directory / SDN_FILE} not found")
    return parse_ofac_files(blobs, source_files=paths)


# OFAC's Sanctions List Service: the legacy CSV exports of the SDN list.
OFAC_EXPORTS = "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/"

register(ListSpec(
    source=SanctionsSource.OFAC_SDN, name="OFAC Specially Designated Nationals (SDN)", publisher="US Treasury (OFAC)",
    parse=parse_ofac_files, files=(SDN_FILE, ADD_FILE, ALT_FILE, COMMENTS_FILE),
    urls={name: OFAC_EXPORTS + name.upper() for name in (SDN_FILE, ADD_FILE, ALT_FILE, COMMENTS_FILE)}, bundled=True,
))
