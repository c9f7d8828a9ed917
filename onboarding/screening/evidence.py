"""Secondary evidence: date of birth, country and party kind move a name score up or down.

A name alone decides whether there is a hit; these only sharpen it, by small fixed amounts that
are written into the explanation so an analyst sees why a score moved:

| evidence | agrees | disagrees |
|---|---|---|
| kind (individual vs business) | 0 (field recorded as matched) | -0.10: a company is not a listed person |
| date of birth, full date | +0.05 | |
| date of birth, year (or listed year range) | +0.02 | every listed year 2+ years off: -0.10, and at least down to just under review |
| nationality (`country`: a person's nationality or citizenship) | +0.02 | -0.03 (people hold several; weak evidence) |
| jurisdiction (`jurisdiction`: where a business is registered) | +0.02 | 0: never lowers |

The listed countries (SanctionsEntry.countries) are the entry's nationalities, citizenships and
addresses: a customer's nationality or jurisdiction is compared with those only. A jurisdiction is
where a company was registered, which says nothing against a listed person or a listed company
with an address elsewhere: it can only raise a score. A contradicting date of birth takes any hit,
however exact the name, below review ("date_of_birth" finding "mismatch", effect as far as needed):
a namesake born ten years apart is not the listed person. A listed year only one year off changes
nothing (lists often give "circa"). Missing data on either side changes nothing. The result is
clamped to 0-1.
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


def _country(entry: EntryRecord, country: str | None, *, field: str = "country", mismatch: float = COUNTRY_MISMATCH) -> Adjustment | None:
    code = country_code(country) if country else ""
    if not code or not entry.countries:
        return None
    listed = sorted(entry.countries)
    if code in entry.countries:
        return Adjustment(field, code, listed, COUNTRY_MATCH, "match")
    return Adjustment(field, code, listed, mismatch, "mismatch")


def largest_raise(*, date_of_birth: date | None = None, country: str | None = None, jurisdiction: str | None = None) -> float:
    """The most the evidence given can add to any entry's name score (a full date of birth, a country or a
    jurisdiction agreeing): a name scoring under the reporting threshold less this can never be reported."""
    return (DOB_EXACT if date_of_birth is not None else 0.0) + (COUNTRY_MATCH if country or jurisdiction else 0.0)


def weigh_evidence(
    entry: EntryRecord, *, kind: str | None = None, date_of_birth: date | None = None, country: str | None = None,
    jurisdiction: str | None = None, name_score: float | None = None, review: float | None = None,
) -> list[Adjustment]:
    """The adjustments of the table above. With `name_score` and `review` (the review threshold), a
    contradicting date of birth takes the score below review whatever the name scored."""
    kind_found, born = _kind(entry, kind), _date_of_birth(entry, date_of_birth)
    nationality = _country(entry, country)
    registered = _country(entry, jurisdiction, field="jurisdiction", mismatch=0.0) if not country else None
    others = [adjustment for adjustment in (kind_found, nationality, registered) if adjustment is not None]
    if born is not None and born.finding == "mismatch" and name_score is not None and review is not None:
        needed = round(review - 0.01 - (name_score + sum(adjustment.effect for adjustment in others)), 4)
        if needed < born.effect:
            born = Adjustment(born.field, born.given, born.listed, needed, born.finding)
    return [adjustment for adjustment in (kind_found, born, nationality, registered) if adjustment is not None]
