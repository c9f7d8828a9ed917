"""Normalisation and name scoring: pure functions, no database."""

import pytest

from onboarding.sanctions.addresses import canonical_address
from onboarding.screening.normalize import is_abjad, name_tokens, normalize_name, phonetic_key
from onboarding.screening.scoring import score_compact, score_tokens, token_similarity


@pytest.mark.parametrize(
    ("name", "individual", "tokens"),
    [
        ("PUTIN, Vladimir Vladimirovich", True, ("vladimir", "vladimirovich", "putin")),
        ("PUTIN, Vladimir Vladimirovich", False, ("putin", "vladimir", "vladimirovich")),
        ("ANGLO-CARIBBEAN CO., LTD.", False, ("anglo", "caribbean")),
        ("COMERCIAL DE RODAJES Y MAQUINARIA, S.A. DE C.V.", False, ("comercial", "rodajes", "maquinaria")),
        ("GARCIA DURAN, Maria Del Rosario", True, ("maria", "rosario", "garcia", "duran")),
        ("Acme Trading L.L.C.", False, ("acme", "trading")),
        ("OOO Romashka", False, ("romashka",)),
        ("Obshchestvo s Ogranichennoy Otvetstvennostyu Romashka", False, ("romashka",)),
        ("Siemens GmbH", False, ("siemens",)),
        ("Mr. Patrick O'Brien", False, ("patrick", "obrien")),
        ("Sheikh Abdullah", False, ("abdullah",)),
        ("AL-QAIDA", False, ("qaida",)),
        ("Forces Démocratiques Alliées", False, ("forces", "democratiques", "alliees")),
        ("Владимир Путин", False, ("vladimir", "putin")),
        ("Андреев Сергеевич Елена", False, ("andreyev", "sergeyevich", "yelena")),
        ("صدام حسين التكريتي", False, ("sdam", "hsyn", "tkryty")),
        ("Straße Łódź Ørsted", False, ("strasse", "lodz", "orsted")),
        ("J.SMITH", False, ("j", "smith")),
        ("THE COMPANY LIMITED", False, ("the", "company", "limited")),  # nothing but noise: kept as is
        ("", False, ()),
    ],
)
def test_name_tokens(name, individual, tokens):
    assert name_tokens(name, individual=individual) == tokens


def test_normalize_name_joins_tokens():
    assert normalize_name("ZAMBADA GARCIA, Ismael", individual=True) == "ismael zambada garcia"


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("mohammed", "muhammad", True), ("mohamed", "muhammad", True), ("hussein", "husayn", True), ("saddam", "sdam", True),
        ("qaddafi", "kaddafi", True), ("ali", "wali", False), ("smith", "smithson", False), ("ali", "li", False),
    ],
)
def test_phonetic_key(first, second, same):
    assert (phonetic_key(first) == phonetic_key(second)) is same


@pytest.mark.parametrize(
    ("query", "listed", "abjad", "similarity", "how"),
    [
        ("zambada", "zambada", False, 1.0, "exact"),
        ("vladimr", "vladimir", False, 0.925, "typo"),  # one edit in eight letters
        ("putn", "putin", False, 0.88, "typo"),
        ("garsia", "garcia", False, 0.9, "typo"),
        ("hezbollah", "hizballah", False, 0.8667, "typo"),  # two edits allowed from eight letters
        ("tamas", "hamas", False, 0.83, "typo"),  # a different first letter costs 0.05 more
        ("v", "vladimir", False, 0.8, "initial"),
        ("mohamed", "muhammad", False, 0.8, "phonetic"),
        ("hsyn", "hussein", True, 0.8, "phonetic"),  # Arabic script: no vowels to compare
        ("hsyn", "hussein", False, 0.0, ""),
        ("smith", "smithson", False, 0.0, ""),  # three edits: another name
        ("wali", "ali", False, 0.0, ""),
        ("eric", "erik", False, 0.8, "phonetic"),  # four letters: no typo allowance, but the same sound
    ],
)
def test_token_similarity(query, listed, abjad, similarity, how):
    value, found = token_similarity(query, listed, abjad=abjad)
    assert (round(value, 4), found) == (similarity, how)


def uniform(_token):
    return 1.0


class TestScoreTokens:
    def test_reordered_tokens_score_one(self):
        result = score_tokens(("putin", "vladimir"), ("vladimir", "putin"), weight=uniform)
        assert (result.score, result.method, result.reordered) == (1.0, "reordered", True)

    def test_exact(self):
        result = score_tokens(("vladimir", "putin"), ("vladimir", "putin"), weight=uniform)
        assert (result.score, result.method, result.unmatched_query, result.unmatched_listed) == (1.0, "exact", [], [])

    def test_missing_listed_token_costs_up_to_forty_percent_of_its_share(self):
        result = score_tokens(("vladimir", "putin"), ("vladimir", "vladimirovich", "putin"), weight=uniform)
        # query fully covered (1.0), listed name 2/3 covered: 0.6 * 1 + 0.4 * 2/3
        assert round(result.score, 4) == 0.8667 and result.unmatched_listed == ["vladimirovich"]

    def test_organizations_weigh_the_uncovered_side_more(self):
        result = score_tokens(("vladimir", "putin"), ("vladimir", "vladimirovich", "putin"), weight=uniform, major_share=0.5)
        assert round(result.score, 4) == 0.8333

    def test_rare_tokens_weigh_more(self):
        weights = {"mohammed": 1.0, "zawahiri": 4.0, "ayman": 2.0}
        common_missing = score_tokens(("ayman", "zawahiri"), ("ayman", "mohammed", "zawahiri"), weight=weights.get)
        rare_missing = score_tokens(("ayman", "mohammed"), ("ayman", "mohammed", "zawahiri"), weight=weights.get)
        assert round(common_missing.score, 4) == round(0.6 + 0.4 * 6 / 7, 4)
        assert round(rare_missing.score, 4) == round(0.6 + 0.4 * 3 / 7, 4)

    def test_initials(self):
        result = score_tokens(("i", "zambada", "garcia"), ("ismael", "zambada", "garcia"), weight=uniform)
        assert result.method == "initials" and round(result.score, 4) == round(2.8 / 3, 4)

    def test_different_names(self):
        assert score_tokens(("john", "brown"), ("john", "smith"), weight=uniform).score == 0.5
        assert score_tokens((), ("john",), weight=uniform).score == 0.0

    def test_compact_joins_split_words_only(self):
        assert score_compact(("usama", "binladen"), ("usama", "bin", "laden")) == 1.0
        assert score_compact(("vladimir", "putin"), ("vladimir", "turin")) == 0.0  # same word count: tokens decide


def test_is_abjad():
    assert is_abjad("صدام") and not is_abjad("Saddam") and not is_abjad("Владимир")


@pytest.mark.parametrize(
    ("address", "chain_id", "canonical"),
    [
        ("0x7Db418b5D567A4e0E8c59Ad71BE1FcE48f3E6107", None, "0x7db418b5d567a4e0e8c59ad71be1fce48f3e6107"),
        ("  1NE2NiGhhbkFPSEyNWwj7hKGhGDedBtSrQ ", None, "1NE2NiGhhbkFPSEyNWwj7hKGhGDedBtSrQ"),
        ("BC1QXY2KGDYGJRSQTZQ2N0YRF2493P83KKFJHX0WLH", None, "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh"),
        ("SomeChainAddress", 137, "somechainaddress"),
    ],
)
def test_canonical_address(address, chain_id, canonical):
    assert canonical_address(address, chain_id=chain_id) == canonical
