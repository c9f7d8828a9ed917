"""Secondary evidence: date of birth, country and party kind move a name score up or down.

A name alone decides whether there is a hit; these only sharpen it, by small fixed amounts that
are written into the explanation so an analyst sees why a score moved:

| evidence | agrees | disagrees |
|---|---|---|
| kind (individual vs business) | 0 (field recorded as matched) | -0.10: a company is not a listed person |
| date of birth, full date | +0.05 | |
| date of birth, year (or listed year range) | +0.02 | -0.10 when every listed year is 2+ years off |
| country (nationality, citizenship, address) | +0.02 | -0.03 (people move; weak evidence) |

A listed year only one year off changes nothing (lists often give "circa"). Missing data on either
side changes nothing. The result is clamped to 0-1.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from onboarding.sanctions.countries import country_code
from onboarding.screening.index import EntryRecord

KIND_MISMATCH = -0.10
DOB_EXACT = 0.05
DOB_YEAR = 0.02
DOB_MISMATCH = -0.10
COUNTRY_MATCH = 0.02
COUNTRY_MISMATCH = -0.03
INDIVIDUAL, BUSINESS = "individual", "business"
_BUSINESS_WORDS = {"business", "entity", "organization", "organisation", "company", "vessel", "aircraft"}


@dataclass(frozen=True)
class Adjustment:
    field: str
    given: str
    listed: list[str]
    effect: float
    finding: str  # match | year_match | mismatch | near

    def as_dict(self) -> dict:
        return {"field": self.field, "given": self.given, "listed": self.listed, "effect": self.effect, "finding": self.finding}


def party_kind(kind: str | None) -> str | None:
    """'individual' | 'business' from the caller's words (entity_type, 'entity', 'company', ...)."""
    text = (kind or "").strip().lower()
    if not text:
        return None
    return BUSINESS if text in _BUSINESS_WORDS else INDIVIDUAL if text in {"individual", "person", "natural_person"} else None


def _kind(entry: EntryRecord, kind: str | None) -> Adjustment | None:
    wanted = party_kind(kind)
    if wanted is None:
        return None
    listed = INDIVIDUAL if entry.kind == "individual" else BUSINESS
    if wanted == listed:
        return Adjustment("kind", wanted, [entry.kind], 0.0, "match")
    return Adjustment("kind", wanted, [entry.kind], KIND_MISMATCH, "mismatch")


def _years(listed: str) -> range:
    start, _, end = listed.partition("/")
    first = int(start[:4])
    return range(first, int(end[:4]) + 1 if end[:4].isdigit() else first + 1)


def _date_of_birth(entry: EntryRecord, born: date | None) -> Adjustment | None:
    if born is None or entry.kind != "individual" or not entry.birth_dates:
        return None
    listed = list(entry.birth_dates)
    given = born.isoformat()
    if given in listed:
        return Adjustment("date_of_birth", given, listed, DOB_EXACT, "match")
    years = [year for value in listed if value[:4].isdigit() for year in _years(value)]
    if not years:
        return None
    distance = min(abs(year - born.year) for year in years)
    if distance == 0:
        return Adjustment("date_of_birth", given, listed, DOB_YEAR, "year_match")
    if distance == 1:
        return Adjustment("date_of_birth", given, listed, 0.0, "near")
    return Adjustment("date_of_birth", given, listed, DOB_MISMATCH, "mismatch")


def _country(entry: EntryRecord, country: str | None) -> Adjustment | None:
    code = country_code(country) if country else ""
    if not code or not entry.countries:
        return None
    listed = sorted(entry.countries)
    if code in entry.countries:
        return Adjustment("country", code, listed, COUNTRY_MATCH, "match")
    return Adjustment("country", code, listed, COUNTRY_MISMATCH, "mismatch")


def weigh_evidence(
    entry: EntryRecord, *, kind: str | None = None, date_of_birth: date | None = None, country: str | None = None
) -> list[Adjustment]:
    found = (_kind(entry, kind), _date_of_birth(entry, date_of_birth), _country(entry, country))
    return [adjustment for adjustment in found if adjustment is not None]
