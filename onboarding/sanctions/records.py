"""What a parser hands the loader: plain dataclasses, independent of the database and of the format.

Each parser (`ofac.py`, `un.py`, `csl.py`, `dpl.py`, `eu.py`, `uk.py`, `opensanctions.py`) reads its
publisher's files into a `ParsedList`; the loader (`loader.py`) writes any `ParsedList` the same way.
`ParsedEntry.version_hash` is computed from the parsed content (not from the raw row), so a
reformatting of the source that changes nothing about the entry does not make it look changed.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from datetime import date, datetime

# How many skipped rows a list keeps as examples for the operator; the count is always exact.
SKIPPED_SAMPLE_LIMIT = 20


@dataclass(frozen=True)
class ParsedName:
    name: str
    kind: str  # onboarding.models.sanctions.NameKind value
    qualifier: str = ""


@dataclass(frozen=True)
class ParsedAddress:
    street: str = ""
    city: str = ""
    state_province: str = ""
    postal_code: str = ""
    country: str = ""
    country_code: str = ""
    note: str = ""


@dataclass(frozen=True)
class ParsedDigitalAddress:
    currency: str
    address: str
    address_as_listed: str


@dataclass
class ParsedEntry:
    uid: str
    kind: str  # onboarding.models.sanctions.EntryKind value
    primary_name: str
    reference: str = ""
    title: str = ""
    programs: list[str] = field(default_factory=list)
    remarks: str = ""
    birth_dates: list[str] = field(default_factory=list)  # "1966-09-08", "1966-09", "1966" or "1960/1962" (dates.py)
    countries: list[str] = field(default_factory=list)
    listed_on: date | None = None
    names: list[ParsedName] = field(default_factory=list)
    addresses: list[ParsedAddress] = field(default_factory=list)
    digital_addresses: list[ParsedDigitalAddress] = field(default_factory=list)

    @property
    def version_hash(self) -> str:
        content = asdict(self)
        content["listed_on"] = self.listed_on.isoformat() if self.listed_on else None
        encoded = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(encoded.encode()).hexdigest()


@dataclass
class ParseReport:
    """Rows the parser could not use. Counted exactly; a few kept as examples (file, line, why).

    `rows` counts, per file, every row (OFAC) or record (UN) read, usable or not, so that the loader
    can tell a stray bad row from a damaged file; `incomplete` says why the files look cut short (no
    end-of-file marker, XML that is not well-formed), which the loader refuses whatever was read."""

    skipped: int = 0
    samples: list[dict] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    skipped_by_file: dict[str, int] = field(default_factory=dict)
    incomplete: list[str] = field(default_factory=list)

    def read(self, *, file: str) -> None:
        self.rows[file] = self.rows.get(file, 0) + 1

    def skip(self, *, file: str, line: int | str, reason: str) -> None:
        self.skipped += 1
        self.skipped_by_file[file] = self.skipped_by_file.get(file, 0) + 1
        if len(self.samples) < SKIPPED_SAMPLE_LIMIT:
            self.samples.append({"file": file, "line": line, "reason": reason})

    def keep(self, entries: dict, entry: ParsedEntry, *, file: str, line: int | str, id_name: str) -> None:
        """Add `entry` to `entries` by uid, or count it skipped: no id, no name, or an id seen before."""
        if not entry.uid or not entry.primary_name:
            self.skip(file=file, line=line, reason=f"no {id_name}" if not entry.uid else "no name")
        elif entry.uid in entries:
            self.skip(file=file, line=line, reason=f"{id_name} {entry.uid} repeated")
        else:
            entries[entry.uid] = entry

    def most_malformed(self) -> tuple[str, int, int, float]:
        """(file, skipped rows, rows read, share) of the file with the largest share of skipped rows
        (parser errors count as rows)."""
        shares = [(file, skipped, max(self.rows.get(file, 0), skipped), skipped / max(self.rows.get(file, 0), skipped))
                  for file, skipped in self.skipped_by_file.items()]
        return max(shares, key=lambda share: share[3], default=("", 0, 0, 0.0))


@dataclass
class ParsedList:
    source: str  # onboarding.models.sanctions.SanctionsSource value
    content_hash: str
    entries: list[ParsedEntry]
    report: ParseReport
    source_files: list[str]
    version: str = ""
    published_at: datetime | None = None

    @property
    def name_count(self) -> int:
        return sum(len(entry.names) for entry in self.entries)

    @property
    def address_count(self) -> int:
        return sum(len(entry.addresses) for entry in self.entries)

    @property
    def digital_address_count(self) -> int:
        return sum(len(entry.digital_addresses) for entry in self.entries)


def content_hash(files: dict[str, bytes]) -> str:
    """SHA-256 over the files as read (role name and length first, so that boundaries count)."""
    digest = hashlib.sha256()
    for role, blob in sorted(files.items()):
        digest.update(f"{role}:{len(blob)}:".encode())
        digest.update(blob)
    return digest.hexdigest()


def clean(value: str | None) -> str:
    """Collapse whitespace; OFAC's '-0-' null marker (often with a trailing space) becomes ''."""
    text = " ".join((value or "").split())
    return "" if text == "-0-" else text


# Letters of a script other than Latin: Greek, Cyrillic, Armenian, Hebrew, Arabic, the Indic and
# South-East Asian scripts, Georgian, Hangul, CJK, ... (Latin letters with accents are all below U+0250).
_NON_LATIN = re.compile(r"[\u0370-\u1dff\u2c00-\ufaff\ufb1d-\ufdff\ufe70-\ufeff]")


def in_other_script(name: str) -> bool:
    """True for a name written in a script other than Latin: a list's name in its original script
    (NameKind.ORIGINAL_SCRIPT) rather than a romanised alias."""
    return bool(_NON_LATIN.search(name or ""))
