"""Matching 314(a) subjects against an organization's entities: pure functions over prepared rows.

Deterministic scoring, one table (SCORING here, the same table in docs/information-sharing.md):

- An identification number that agrees (the subject's SSN/ITIN or EIN, digits only, against the
  entity's tax id through its keyed hash, or an EIN against the registration number): 1.0.
- Otherwise the best pair of names sets a tier, whose score is the base (names are compared
  normalised: case, accents, punctuation, "SURNAME, Given", legal forms and honorifics):
  exact (the same words in the same order) 0.9 > reordered (the same words) 0.8 > partial (every
  word of the shorter name is in the longer one, at least two words or the whole name) 0.7 >
  fuzzy (token-sorted similarity ≥ FUZZY_MIN) 0.5 to below 0.6.
- Corroborating fields that agree add points: date of birth, street address (else ZIP, or city and
  state), e-mail, telephone. They add 0.09 at most, less than the 0.1 between tiers, so a stronger
  name always outranks a weaker one whatever corroborates it, and the score stays ≤ CAP = 0.99.
- A field known on both sides that differs neither adds nor subtracts (a contradiction does not
  lower: a lowered score could drop a real subject under REPORT_MIN or below a weaker name; the
  reviewer sees both records). So adding a field never lowers a score.
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


@dataclass(frozen=True)
class Evidence:
    points: float  # a name tier's base score, or what a corroborating field adds to it
    match_fields: str  # what it puts in `match_fields`
    when: str


# The scoring table. docs/information-sharing.md shows the same rows (a test holds them equal).
SCORING: dict[str, Evidence] = {
    "id_number": Evidence(1.0, "ssn_itin, ein", "SSN/ITIN or EIN equal to the entity's tax id (digits), or EIN equal to its "
                                                "registration number: 1.0 whatever the name and the other fields"),
    "exact_name": Evidence(0.9, "name", "the normalised names are the same words in the same order"),
    "reordered_name": Evidence(0.8, "name", "the same words in another order"),
    "partial_name": Evidence(0.7, "name", "every word of the shorter name is in the longer (at least two words, or the whole name)"),
    "fuzzy_name": Evidence(0.5, "name_fuzzy", "token-sorted similarity s ≥ 0.8: 0.5 + 0.1 × (s − 0.8) / 0.2, below 0.6"),
    "dob": Evidence(0.04, "dob", "date of birth equal"),
    "address": Evidence(0.03, "address", "street address equal (with `city`, `state`, `zip` that agree)"),
    "place": Evidence(0.01, "zip / city, state", "else ZIP equal, or city and state equal"),
    "email": Evidence(0.01, "email", "e-mail equal"),
    "phone": Evidence(0.01, "phone", "telephone (last 10 digits) equal"),
}
NAME_TIERS = ("exact_name", "reordered_name", "partial_name", "fuzzy_name")  # strongest first
TIER_GAP = 0.1  # from one name tier to the next: more than corroboration adds (0.09); the span of the fuzzy tier
FUZZY_MIN = 0.8
REPORT_MIN = 0.5
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


def name_tier(subject: tuple[str, ...], entity: tuple[str, ...]) -> tuple[str, float] | None:
    """The tier of two normalised names (a key of NAME_TIERS) and its score, or None when they do not match."""
    if subject == entity:
        return "exact_name", SCORING["exact_name"].points
    if sorted(subject) == sorted(entity):
        return "reordered_name", SCORING["reordered_name"].points
    shorter, longer = sorted((subject, entity), key=len)
    if set(shorter) <= set(longer) and (len(shorter) >= 2 or len(shorter) == len(longer)):
        return "partial_name", SCORING["partial_name"].points
    similarity = fuzz.token_sort_ratio(" ".join(subject), " ".join(entity)) / 100
    if similarity >= FUZZY_MIN:
        # similarity < 1 here (1 is the same words: exact or reordered), so the fuzzy tier stays below 0.5 + TIER_GAP
        return "fuzzy_name", SCORING["fuzzy_name"].points + TIER_GAP * (similarity - FUZZY_MIN) / (1 - FUZZY_MIN)
    return None


def _best_name(subject: Party, entity: Party) -> tuple[float, list[str]] | None:
    best = None
    for index, subject_name in enumerate(subject.names):
        for entity_name in entity.names:
            scored = name_tier(subject_name, entity_name)
            if scored and (best is None or scored[1] > best[0]):
                best = (scored[1], [SCORING[scored[0]].match_fields] + (["alt_name"] if index else []))
    return best


def _corroboration(subject: Party, entity: Party) -> tuple[float, list[str]]:
    """What the fields other than names and numbers add: only agreements count (a difference adds and subtracts nothing)."""
    points, fields = 0.0, []
    if subject.dob and subject.dob == entity.dob:
        points, fields = points + SCORING["dob"].points, [*fields, "dob"]
    place = [name for name, a, b in (("city", subject.city, entity.city), ("state", subject.state, entity.state),
                                     ("zip", subject.zip5, entity.zip5)) if a and a == b]
    if subject.street and subject.street == entity.street:
        points, fields = points + SCORING["address"].points, [*fields, "address", *place]
    elif "zip" in place or {"city", "state"} <= set(place):
        points, fields = points + SCORING["place"].points, [*fields, *place]
    for name in ("email", "phone"):
        if getattr(subject, name) and getattr(subject, name) == getattr(entity, name):
            points, fields = points + SCORING[name].points, [*fields, name]
    return points, fields


def score(subject: Party, entity: Party) -> Found | None:
    shared = subject.id_hashes & entity.id_hashes
    id_fields = sorted({subject.id_fields[value] for value in shared})
    if subject.ein_digits and subject.ein_digits == entity.registration_digits and "ein" not in id_fields:
        id_fields.append("ein")
    name = _best_name(subject, entity)
    points, corroborating = _corroboration(subject, entity)
    if id_fields:
        return Found(subject.id, entity.id, SCORING["id_number"].points, tuple([*id_fields, *(name[1] if name else []), *corroborating]))
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
