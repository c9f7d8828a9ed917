"""Matching 314(a) subjects against an organization's entities: pure functions over prepared rows.

Deterministic scoring (docs/information-sharing.md):

- An identification number that agrees (the subject's SSN/ITIN or EIN, digits only, against the
  entity's tax id through its keyed hash, or an EIN against the registration number): 1.0.
- Otherwise the name decides whether there is a match at all, and the other fields add to it:
  - partial name match (case-, accent- and punctuation-insensitive; every meaningful word of the
    shorter name is in the longer one, at least two words or the whole name): 0.7, field `name`;
  - fuzzy name match (token-sorted similarity of the normalised names ≥ FUZZY_MIN): 0.7 × the
    similarity, field `name_fuzzy`;
  - date of birth equal: +0.15 (`dob`); both known and different: −0.2;
  - street address equal: +0.1 (`address`), else ZIP equal or city and state equal: +0.05
    (`zip`, `city`, `state` list what agreed);
  - e-mail equal +0.05 (`email`), telephone (last 10 digits) equal +0.05 (`phone`);
  - capped at 0.99 (only an identification number gives certainty), reported from REPORT_MIN.
  Alternative names of the subject are scored too; the best name counts (`alt_name` is added).

Blocking: entities are indexed by the phonetic keys of their name words (onboarding's screening
normalisation, which also folds accents and scripts). A subject of n words needs k = min(2, n)
shared keys, so only the entities in the rarest n − k + 1 of its keys' postings can be candidates;
each is then counted and scored. Identification numbers are looked up in a dict.
"""

import datetime as dt
import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz

from common.crypto import keyed_hash
from onboarding.screening.normalize import fold, name_tokens, phonetic_key

PARTIAL_NAME = 0.7
FUZZY_MIN = 0.8
REPORT_MIN = 0.5
DOB_AGREES, DOB_DIFFERS = 0.15, -0.2
STREET_AGREES, PLACE_AGREES, CONTACT_AGREES = 0.1, 0.05, 0.05
CAP = 0.99
_DIGITS = re.compile(r"\D")


def digits(value: str) -> str:
    return _DIGITS.sub("", value or "")


def id_hash(value: str) -> str:
    """The keyed hash onboarding stores for a tax id (common.crypto.tax_id_fields), of the digits."""
    return keyed_hash(digits(value), "tax-id") if digits(value) else ""


_NON_ALNUM = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=65536)
def _street(value: str) -> str:
    """Lower-case words of an address line or a city, accents folded ('12 Elm St.' → '12 elm st')."""
    text = value.lower() if value.isascii() else fold(value)  # folding costs 30 times a lower()
    return " ".join(_NON_ALNUM.sub(" ", text).split())


@dataclass(frozen=True)
class Party:
    """An entity or a subject reduced to what matching compares."""

    id: object
    names: tuple[tuple[str, ...], ...]  # the meaningful tokens of each name; the first is the primary name
    individual: bool
    id_hashes: frozenset[str] = frozenset()
    ein_digits: str = ""
    registration_digits: str = ""
    dob: dt.date | None = None
    street: str = ""
    city: str = ""
    state: str = ""
    zip5: str = ""
    email: str = ""
    phone: str = ""
    id_fields: dict = field(default_factory=dict, compare=False, hash=False)  # hash → field name ("ssn_itin", "ein")


def party(*, id, names: list[str], individual: bool, id_numbers: dict[str, str] | None = None, registration: str = "",
          dob=None, street: str = "", city: str = "", state: str = "", zip: str = "", email: str = "", phone: str = "",
          id_hashes: dict[str, str] | None = None) -> Party:
    """`id_numbers` maps a field name to a number in clear (a subject's); `id_hashes` a hash to a field (an entity's)."""
    fields = dict(id_hashes or {})
    for name, number in (id_numbers or {}).items():
        if digits(number):
            fields[id_hash(number)] = name
    tokens = tuple(t for t in (name_tokens(n, individual=individual) for n in names if n and n.strip()) if t)
    return Party(id=id, names=tokens, individual=individual, id_hashes=frozenset(fields), id_fields=fields,
                 ein_digits=digits((id_numbers or {}).get("ein", "")), registration_digits=digits(registration),
                 dob=dob, street=_street(street or ""), city=_street(city or ""), state=(state or "").strip().upper(),
                 zip5=digits(zip)[:5], email=(email or "").strip().lower(), phone=digits(phone)[-10:])


@dataclass(frozen=True)
class Found:
    subject_id: object
    entity_id: object
    score: float
    fields: tuple[str, ...]


class EntityIndex:
    def __init__(self, entities: list[Party]):
        self.entities = entities
        self.by_key: dict[str, list[int]] = defaultdict(list)
        self.by_id: dict[str, list[int]] = defaultdict(list)
        self.by_registration: dict[str, list[int]] = defaultdict(list)
        for position, entity in enumerate(entities):
            for key in {phonetic_key(token) for tokens in entity.names for token in tokens}:
                self.by_key[key].append(position)
            for value in entity.id_hashes:
                self.by_id[value].append(position)
            if len(entity.registration_digits) == 9:
                self.by_registration[entity.registration_digits].append(position)

    def candidates(self, subject: Party) -> set[int]:
        found: set[int] = set()
        for value in subject.id_hashes:
            found.update(self.by_id.get(value, ()))
        if subject.ein_digits:
            found.update(self.by_registration.get(subject.ein_digits, ()))
        for tokens in subject.names:
            found |= self._by_name(tokens)
        return found

    def _by_name(self, tokens: tuple[str, ...]) -> set[int]:
        keys = sorted({phonetic_key(token) for token in tokens}, key=lambda key: len(self.by_key.get(key, ())))
        needed = min(2, len(keys))
        counts: dict[int, int] = defaultdict(int)
        for key in keys[:len(keys) - needed + 1]:  # an entity sharing `needed` keys is in one of these postings
            for position in self.by_key.get(key, ()):
                counts[position] += 1
        if needed > 1:
            for key in keys[len(keys) - needed + 1:]:
                members = self.by_key.get(key, ())
                if len(members) < 4 * len(counts):
                    for position in members:
                        if position in counts:
                            counts[position] += 1
                else:
                    positions = set(members)
                    for position in counts:
                        counts[position] += position in positions
        return {position for position, count in counts.items() if count >= needed}


def _name_score(subject: tuple[str, ...], entity: tuple[str, ...]) -> tuple[float, str] | None:
    shorter, longer = sorted((subject, entity), key=len)
    if set(shorter) <= set(longer) and (len(shorter) >= 2 or len(shorter) == len(longer)):
        return PARTIAL_NAME, "name"
    similarity = fuzz.token_sort_ratio(" ".join(subject), " ".join(entity)) / 100
    if similarity >= FUZZY_MIN:
        return round(PARTIAL_NAME * similarity, 4), "name_fuzzy"
    return None


def _best_name(subject: Party, entity: Party) -> tuple[float, list[str]] | None:
    best = None
    for index, subject_name in enumerate(subject.names):
        for entity_name in entity.names:
            scored = _name_score(subject_name, entity_name)
            if scored and (best is None or scored[0] > best[0]):
                best = (scored[0], [scored[1]] + (["alt_name"] if index else []))
    return best


def _corroboration(subject: Party, entity: Party) -> tuple[float, list[str]]:
    points, fields = 0.0, []
    if subject.dob and entity.dob:
        if subject.dob == entity.dob:
            points, fields = points + DOB_AGREES, [*fields, "dob"]
        else:
            points += DOB_DIFFERS
    place = [name for name, a, b in (("city", subject.city, entity.city), ("state", subject.state, entity.state),
                                     ("zip", subject.zip5, entity.zip5)) if a and a == b]
    if subject.street and subject.street == entity.street:
        points, fields = points + STREET_AGREES, [*fields, "address", *place]
    elif "zip" in place or {"city", "state"} <= set(place):
        points, fields = points + PLACE_AGREES, [*fields, *place]
    for name in ("email", "phone"):
        if getattr(subject, name) and getattr(subject, name) == getattr(entity, name):
            points, fields = points + CONTACT_AGREES, [*fields, name]
    return points, fields


def score(subject: Party, entity: Party) -> Found | None:
    shared = subject.id_hashes & entity.id_hashes
    id_fields = sorted({subject.id_fields[value] for value in shared})
    if subject.ein_digits and subject.ein_digits == entity.registration_digits and "ein" not in id_fields:
        id_fields.append("ein")
    name = _best_name(subject, entity)
    points, corroborating = _corroboration(subject, entity)
    if id_fields:
        return Found(subject.id, entity.id, 1.0, tuple([*id_fields, *(name[1] if name else []), *corroborating]))
    if name is None:
        return None
    total = round(min(CAP, name[0] + points), 4)
    return Found(subject.id, entity.id, total, tuple([*name[1], *corroborating])) if total >= REPORT_MIN else None


def match(subjects: list[Party], index: EntityIndex) -> list[Found]:
    found = []
    for subject in subjects:
        for position in sorted(index.candidates(subject)):
            result = score(subject, index.entities[position])
            if result is not None:
                found.append(result)
    return found
