"""314(a) scores: the table (matching.SCORING, docs/information-sharing.md) case by case, and its invariants
for random pairs: corroboration never lowers a score, a contradiction changes nothing, a stronger name tier
always outranks a weaker one."""

import datetime as dt
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from monitoring.fincen314a import matching

DOCS = Path(__file__).resolve().parents[2] / "docs" / "information-sharing.md"
DOB = dt.date(1970, 1, 2)
SSN, EIN = "123-45-6789", "98-7654321"
HOME = {"street": "1 Main St", "city": "Springfield", "state": "IL", "zip": "62701"}
PERSON = matching.party(id="person", names=["John Q Public"], individual=True, dob=DOB, email="jq@example.com",
                        phone="+1 217 555 0100", id_hashes={matching.id_hash(SSN): "tax_id"}, **HOME)
BUSINESS = matching.party(id="business", names=["Nova Traders LLC"], individual=False, registration=EIN, email="jq@example.com",
                          phone="+1 217 555 0100", **HOME)  # a business has no date of birth: the table leaves it out for it


def subject(name: str, *, individual: bool = True, **fields) -> matching.Party:
    return matching.party(id="subject", names=[name], individual=individual, **fields)


# (name on the 314(a) list, individual, the entity, score of the name alone, `match_fields` of the name)
NAMES = {
    "exact individual": ("John Q Public", True, PERSON, 0.9, "name"),
    "exact individual, SURNAME, Given": ("PUBLIC, JOHN Q", True, PERSON, 0.9, "name"),
    "exact business with its legal suffix": ("Nova Traders LLC", False, BUSINESS, 0.9, "name"),
    "exact business without the suffix": ("NOVA TRADERS", False, BUSINESS, 0.9, "name"),
    "exact business, another spelling of the suffix": ("Nova Traders, L.L.C.", False, BUSINESS, 0.9, "name"),
    "reordered": ("Public John Q", True, PERSON, 0.8, "name"),
    "partial": ("John Public", True, PERSON, 0.7, "name"),
    "partial business": ("Nova Traders International LLC", False, BUSINESS, 0.7, "name"),
    "fuzzy": ("Jon Q Publik", True, PERSON, 0.54, "name_fuzzy"),  # similarity 0.88: 0.5 + 0.1 × 0.08 / 0.2
}
# (the subject's other fields, what they add, the fields they add to `match_fields`); None: the identification number, 1.0
EVIDENCE = {
    "alone": ({}, 0, []),
    "dob": ({"dob": DOB}, 0.04, ["dob"]),
    "address": (HOME, 0.03, ["address", "city", "state", "zip"]),
    "zip only": ({"zip": "62701-1234"}, 0.01, ["zip"]),
    "city and state": ({"city": "SPRINGFIELD", "state": "il"}, 0.01, ["city", "state"]),
    "dob, address, e-mail, phone": ({"dob": DOB, **HOME, "email": "JQ@example.com", "phone": "(217) 555-0100"}, 0.09,
                                    ["dob", "address", "city", "state", "zip", "email", "phone"]),
    "id": ({"id_numbers": {"ssn_itin": SSN, "ein": EIN}}, None, None),
    "contradicting dob": ({"dob": dt.date(1981, 3, 4)}, 0, []),
    "contradicting address": ({"street": "9 Elm St", "city": "Chicago", "state": "IL", "zip": "60601"}, 0, []),
    "contradicting e-mail and phone": ({"email": "other@example.com", "phone": "312 555 0199"}, 0, []),
    "contradicting id": ({"id_numbers": {"ssn_itin": "111-22-3333", "ein": "44-5556666"}}, 0, []),
    "contradicting dob, corroborating address": ({"dob": dt.date(1981, 3, 4), **HOME}, 0.03, ["address", "city", "state", "zip"]),
}


@pytest.mark.parametrize(("name", "evidence"), [(name, evidence) for name in NAMES for evidence in EVIDENCE
                                                if NAMES[name][2] is PERSON or "dob" not in EVIDENCE[evidence][0]])
def test_the_table(name, evidence):
    listed, individual, entity, base, name_field = NAMES[name]
    fields, added, added_fields = EVIDENCE[evidence]
    found = matching.score(subject(listed, individual=individual, **fields), entity)
    if added is None:  # an identification number: certainty, whatever the name
        id_field = "ssn_itin" if entity is PERSON else "ein"
        assert (found.score, found.fields) == (1.0, (id_field, name_field))
    else:
        assert (found.score, found.fields) == (round(base + added, 4), (name_field, *added_fields))


@pytest.mark.parametrize("evidence", ["alone", "dob", "address", "contradicting dob"])
def test_an_identification_number_alone_is_certain(evidence):
    fields = {key: value for key, value in EVIDENCE[evidence][0].items() if key != "id_numbers"}
    found = matching.score(subject("Somebody Else Entirely", id_numbers={"ssn_itin": SSN}, **fields), PERSON)
    assert found.score == 1.0 and found.fields[0] == "ssn_itin" and "name" not in found.fields
    found = matching.score(subject("Other Holdings", individual=False, id_numbers={"ein": EIN}, **fields), BUSINESS)
    assert found.score == 1.0 and found.fields[0] == "ein"


def test_the_reported_case_an_exact_business_name_outranks_a_reordered_name_with_its_date_of_birth():
    exact = matching.score(subject("Nova Traders LLC", individual=False), BUSINESS).score
    reordered = matching.score(subject("Public John Q", dob=DOB), PERSON).score
    assert (exact, reordered) == (0.9, 0.84)


def test_the_docs_show_the_table_of_the_code():
    rows = {}
    for line in DOCS.read_text().splitlines():
        if cells := re.fullmatch(r"\| `(\w+)` \|([^|]*)\|([^|]*)\|([^|]*)\|", line):
            rows[cells[1]] = float(re.search(r"\d+(\.\d+)?", cells[3])[0])
    assert rows == {key: evidence.points for key, evidence in matching.SCORING.items()}


def test_the_tiers_keep_their_bands():
    """What corroboration adds at most is less than the gap between two tiers, and the best case is the cap."""
    tiers = [matching.SCORING[tier].points for tier in matching.NAME_TIERS]
    corroboration = sum(matching.SCORING[key].points for key in ("dob", "address", "email", "phone"))  # `place` is instead of `address`
    assert tiers == sorted(tiers, reverse=True) and [round(a - b, 4) for a, b in zip(tiers[:2], tiers[1:3], strict=True)] == [0.1, 0.1]
    assert corroboration < matching.TIER_GAP and round(tiers[0] + corroboration, 4) == matching.CAP
    assert tiers[3] + matching.TIER_GAP + corroboration < tiers[2]  # the fuzzy tier spans TIER_GAP, below the partial one
    assert matching.SCORING["place"].points < matching.SCORING["address"].points
    assert tiers[-1] == matching.REPORT_MIN


# --- Properties, for random pairs ------------------------------------------------------------------

WORDS = ["john", "jon", "q", "public", "publik", "maria", "garcia", "nova", "novak", "traders", "trader", "llc", "smith", "smyth"]
OPTIONAL = {
    "dob": st.sampled_from([None, DOB, dt.date(1981, 3, 4)]),
    "street": st.sampled_from(["", "1 Main St", "9 Elm St"]),
    "city": st.sampled_from(["", "Springfield", "Chicago"]),
    "state": st.sampled_from(["", "IL", "TX"]),
    "zip": st.sampled_from(["", "62701", "60601"]),
    "email": st.sampled_from(["", "jq@example.com", "other@example.com"]),
    "phone": st.sampled_from(["", "2175550100", "3125550199"]),
}
CORROBORATING = ["dob", "street", "city", "state", "zip", "email", "phone", "ssn_itin"]
DIFFERENT = {"dob": dt.date(1999, 9, 9), "street": "77 Other Rd", "city": "Nowhere", "state": "NV", "zip": "89001",
             "email": "nobody@example.org", "phone": "7025550000", "ssn_itin": "555-44-3333"}


SIMILAR = {"john": "jon", "jon": "john", "public": "publik", "publik": "public", "nova": "novak", "novak": "nova",
           "traders": "trader", "trader": "traders", "smith": "smyth", "smyth": "smith"}


@st.composite
def pairs(draw):
    """A subject and an entity with names alike in every way (the same, reordered, fewer words, a word spelt
    otherwise, unrelated) and some of the optional fields each; the entity carries SSN, the subject no number."""
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
    kind = draw(st.sampled_from(["same", "reordered", "fewer", "spelt otherwise", "unrelated"]))
    if kind == "reordered":
        other = draw(st.permutations(words))
    elif kind == "fewer":
        other = words[:draw(st.integers(1, len(words)))]
    elif kind == "spelt otherwise":
        other = [SIMILAR.get(word, word) if draw(st.booleans()) else word for word in words]
    else:
        other = words if kind == "same" else draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
    entity_fields = {key: draw(strategy) for key, strategy in OPTIONAL.items()}
    entity = matching.party(id="e", names=[" ".join(other)], individual=True, id_hashes={matching.id_hash(SSN): "tax_id"},
                            **entity_fields)
    fields = {key: draw(strategy) for key, strategy in OPTIONAL.items()}
    return " ".join(words), fields, entity, entity_fields


def _score(name: str, fields: dict, entity: matching.Party) -> float:
    ssn = fields.get("ssn_itin")
    other = {key: value for key, value in fields.items() if key != "ssn_itin"}
    found = matching.score(subject(name, id_numbers={"ssn_itin": ssn} if ssn else None, **other), entity)
    return found.score if found else 0.0


def _agreeing(field: str, entity_fields: dict):
    return SSN if field == "ssn_itin" else entity_fields[field]


PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(pairs(), st.sampled_from(CORROBORATING))
def test_a_corroborating_field_never_lowers_a_score(pair, field):
    name, fields, entity, entity_fields = pair
    if field != "ssn_itin" and not entity_fields[field]:
        return  # nothing on the entity to corroborate
    for before in ({**fields, field: None}, {**fields, field: DIFFERENT[field]}):  # from absent, and from contradicting
        assert _score(name, {**fields, field: _agreeing(field, entity_fields)}, entity) >= _score(name, before, entity)


@PROPERTY
@given(pairs(), st.sampled_from(CORROBORATING))
def test_a_contradicting_field_neither_raises_nor_lowers(pair, field):
    name, fields, entity, _ = pair
    absent = {**fields, field: None}
    assert _score(name, {**absent, field: DIFFERENT[field]}, entity) == _score(name, absent, entity)


@PROPERTY
@given(pairs(), pairs())
def test_an_exact_full_name_outranks_any_partial_or_fuzzy_one(exact, other):
    """Whatever corroborates the weaker name, and whatever contradicts the exact one (no identification number on either)."""
    _, fields, entity, _ = exact
    name = " ".join(entity.names[0])
    other_name, other_fields, other_entity, _ = other
    tier = matching.name_tier(matching.name_tokens(other_name, individual=True), other_entity.names[0])
    exact_score = _score(name, fields, entity)
    assert 0.9 <= exact_score <= 0.99
    if tier and tier[0] != "exact_name":
        assert exact_score > _score(other_name, other_fields, other_entity)


@PROPERTY
@given(pairs(), pairs())
def test_a_stronger_name_tier_always_scores_higher(first, second):
    scored = []
    for name, fields, entity, _ in (first, second):
        tier = matching.name_tier(matching.name_tokens(name, individual=True), entity.names[0])
        scored.append((matching.NAME_TIERS.index(tier[0]) if tier else len(matching.NAME_TIERS), _score(name, fields, entity)))
    (rank_a, score_a), (rank_b, score_b) = sorted(scored)
    event(f"tiers {rank_a} < {rank_b}" if rank_a < rank_b else "the same tier")
    if rank_a < rank_b:
        assert score_a > score_b

