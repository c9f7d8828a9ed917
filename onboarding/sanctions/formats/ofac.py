"""OFAC's lists in OFAC's legacy CSV layout: the SDN list (sdn.csv, alt.csv, add.csv,
sdn_comments.csv) and the Consolidated (non-SDN) list, which OFAC publishes in the same layout
under other names (cons_prim.csv, cons_alt.csv, cons_add.csv, cons_comments.csv). `OfacFiles`
names the four files of a list; everything below reads either. Columns are given for the SDN names.

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
from dataclasses import dataclass
from pathlib import Path

from onboarding.models.sanctions import EntryKind, NameKind, SanctionsSource
from onboarding.sanctions.countries import country_code
from onboarding.sanctions.files import decode_text, read_files
from onboarding.sanctions.formats import ofac_remarks
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


@dataclass(frozen=True)
class OfacFiles:
    """The file names of one OFAC list in the legacy CSV layout."""

    primary: str  # the entries (sdn.csv), required
    aliases: str  # alt.csv
    addresses: str  # add.csv
    comments: str  # the continuation of remarks cut at 1,000 characters (sdn_comments.csv)

    @property
    def names(self) -> tuple[str, ...]:
        """Every file, the required one first (ListSpec.files)."""
        return (self.primary, self.addresses, self.aliases, self.comments)

    @property
    def marked(self) -> tuple[str, ...]:
        """The files OFAC ends with _DOS_EOF (the comments file of the SDN list does not)."""
        return (self.primary, self.aliases, self.addresses)


SDN_FILES = OfacFiles(primary="sdn.csv", aliases="alt.csv", addresses="add.csv", comments="sdn_comments.csv")
CONSOLIDATED_FILES = OfacFiles(primary="cons_prim.csv", aliases="cons_alt.csv", addresses="cons_add.csv", comments="cons_comments.csv")
SDN_FILE, ALT_FILE, ADD_FILE, COMMENTS_FILE = SDN_FILES.primary, SDN_FILES.aliases, SDN_FILES.addresses, SDN_FILES.comments
_KINDS = {"individual": EntryKind.INDIVIDUAL, "vessel": EntryKind.VESSEL, "aircraft": EntryKind.AIRCRAFT, "": EntryKind.ENTITY}
_DOS_EOF = "\x1a"


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


def _comments(text: str, report: ParseReport, file: str) -> dict[str, str]:
    continued: dict[str, str] = {}
    for _line, row in _rows(text, file=file, width=2, report=report):
        continued[row[0]] = continued.get(row[0], "") + row[1]
    return continued


def _entries(text: str, comments: dict[str, str], report: ParseReport, file: str) -> dict[str, ParsedEntry]:
    entries: dict[str, ParsedEntry] = {}
    for line, row in _rows(text, file=file, width=12, report=report):
        if not row[1]:
            report.skip(file=file, line=line, reason="no name")
        elif row[0] in entries:
            report.skip(file=file, line=line, reason=f"ent_num {row[0]} repeated")
        else:
            # The continuation is glued on as is: OFAC cut the field mid-word.
            entries[row[0]] = _entry(row, row[11] + comments.get(row[0], ""))
    return entries


def _attach_aliases(text: str, entries: dict[str, ParsedEntry], report: ParseReport, file: str) -> None:
    for line, row in _rows(text, file=file, width=5, report=report):
        entry = entries.get(row[0])
        if entry is None or not row[3]:
            report.skip(file=file, line=line, reason="unknown ent_num" if entry is None else "no alias name")
            continue
        _add_name(entry, ParsedName(row[3], NameKind.ALIAS, row[2].lower()))


def _attach_addresses(text: str, entries: dict[str, ParsedEntry], report: ParseReport, file: str) -> None:
    for line, row in _rows(text, file=file, width=6, report=report):
        entry = entries.get(row[0])
        if entry is None:
            report.skip(file=file, line=line, reason="unknown ent_num")
            continue
        code = country_code(row[4])
        entry.addresses.append(ParsedAddress(street=row[2], city=row[3], country=row[4], country_code=code, note=row[5]))
        if code and code not in entry.countries:
            entry.countries.append(code)


def _check_complete(blobs: dict[str, bytes], files: OfacFiles, report: ParseReport) -> None:
    for name in files.marked:
        if name in blobs and not blobs[name].rstrip(b"\r\n\t ").endswith(_DOS_EOF.encode()):
            report.incomplete.append(f"{name} does not end with OFAC's end-of-file byte (0x1A): the download was cut short")


def parse_ofac_files(blobs: dict[str, bytes], *, files: OfacFiles = SDN_FILES, source: str = SanctionsSource.OFAC_SDN,
                     source_files: list[str] | None = None) -> ParsedList:
    """Read one OFAC list's CSV set from `blobs` (file name -> content as published) as list `source`:
    by default the SDN list; `files=CONSOLIDATED_FILES` for the Consolidated list. The primary file
    (sdn.csv, cons_prim.csv) is required."""
    if files.primary not in blobs:
        raise FileNotFoundError(f"{files.primary} is missing")
    report = ParseReport()
    _check_complete(blobs, files, report)
    comments = _comments(decode_text(blobs[files.comments]), report, files.comments) if files.comments in blobs else {}
    entries = _entries(decode_text(blobs[files.primary]), comments, report, files.primary)
    if files.aliases in blobs:
        _attach_aliases(decode_text(blobs[files.aliases]), entries, report, files.aliases)
    if files.addresses in blobs:
        _attach_addresses(decode_text(blobs[files.addresses]), entries, report, files.addresses)
    return ParsedList(
        source=source,
        content_hash=content_hash(blobs),
        entries=list(entries.values()),
        report=report,
        source_files=source_files if source_files is not None else sorted(blobs),
    )


def parse_ofac(directory: str | Path, *, files: OfacFiles = SDN_FILES, source: str = SanctionsSource.OFAC_SDN) -> ParsedList:
    """Read an OFAC CSV set from `directory` (each file plain or gzip-compressed): the SDN list by
    default, the Consolidated list with `files=CONSOLIDATED_FILES, source="ofac_consolidated"`."""
    directory = Path(directory)
    blobs, paths = read_files(directory, files.names)
    if files.primary not in blobs:
        raise FileNotFoundError(f"{directory / files.primary} not found")
    return parse_ofac_files(blobs, files=files, source=source, source_files=paths)


def parse_consolidated_files(blobs: dict[str, bytes]) -> ParsedList:
    """The OFAC Consolidated (non-SDN) list's CSV set (cons_prim.csv required)."""
    return parse_ofac_files(blobs, files=CONSOLIDATED_FILES, source=SanctionsSource.OFAC_CONSOLIDATED)


# OFAC's Sanctions List Service: the legacy CSV exports of each list, named as the files in upper case.
OFAC_EXPORTS = "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/"

register(ListSpec(
    source=SanctionsSource.OFAC_SDN, name="OFAC Specially Designated Nationals (SDN)", publisher="US Treasury (OFAC)",
    parse=parse_ofac_files, files=SDN_FILES.names, urls={name: OFAC_EXPORTS + name.upper() for name in SDN_FILES.names}, bundled=True,
))
# The non-SDN lists OFAC keeps beside the SDN list (Sectoral Sanctions Identifications, Foreign
# Sanctions Evaders, Non-SDN Menu-Based Sanctions, the Palestinian Legislative Council list, ...).
register(ListSpec(
    source=SanctionsSource.OFAC_CONSOLIDATED, name="OFAC Consolidated (non-SDN) list", publisher="US Treasury (OFAC)",
    parse=parse_consolidated_files, files=CONSOLIDATED_FILES.names,
    urls={name: OFAC_EXPORTS + name.upper() for name in CONSOLIDATED_FILES.names}, bundled=True,
))
