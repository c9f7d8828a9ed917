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
        ("tamas", "hamas", False, 0.0, ""),  # a changed first letter is no typo in a word under six letters
        ("kaddafi", "qaddafi", False, 0.8643, "typo"),  # from six letters it is, at 0.05 more
        ("omra", "omar", False, 0.925, "typo"),  # a transposition in a four-letter word: half an edit
        ("adb", "abd", False, 0.9, "typo"),  # and in a three-letter one
        ("ehq", "heq", False, 0.85, "typo"),  # the first letter swapped: less 0.05
        ("peya", "puya", False, 0.85, "typo"),  # a vowel for another in a short word
        ("oli", "ali", False, 0.75, "typo"),  # the first letter too, both vowels
        ("peya", "pexa", False, 0.6, "short_typo"),  # a consonant changed: a weak match only
        ("abc", "abd", False, 0.6, "short_typo"),  # any other edit under five letters is a weak match only
        ("banna", "anna", False, 0.0, ""),  # a letter put before a common given name: another name
        ("mendoza", "meadows", False, 0.0, ""),  # m and n apart in the sound key
        ("umar", "omar", False, 0.8, "phonetic"),
        ("nrendr", "narendra", False, 0.85, "typo"),  # Devanagari romanised without its inherent vowels
        ("v", "vladimir", False, 0.8, "initial"),
        ("mohamed", "muhammad", False, 0.8, "phonetic"),
        ("hsyn", "hussein", True, 0.9, "consonants"),  # Arabic script: no vowels to compare, the consonants agree
        ("mhmd", "mahmoud", True, 0.8, "phonetic"),  # a two-class key ("mt"): only a sound-alike
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

    def test_missing_listed_token_costs_half_its_share(self):
        result = score_tokens(("vladimir", "putin"), ("vladimir", "vladimirovich", "putin"), weight=uniform)
        # query fully covered (1.0), listed name 2/3 covered: 0.5 * 1 + 0.5 * 2/3; a patronymic missing counts half
        assert round(result.score, 4) == round(0.5 + 0.5 * 2 / 2.5, 4) and result.unmatched_listed == ["vladimirovich"]
        result = score_tokens(("vladimir", "putin"), ("vladimir", "vasily", "putin"), weight=uniform)
        assert round(result.score, 4) == 0.8333

    def test_rare_tokens_weigh_more(self):
        weights = {"mohammed": 1.0, "zawahiri": 4.0, "ayman": 2.0}
        common_missing = score_tokens(("ayman", "zawahiri"), ("ayman", "mohammed", "zawahiri"), weight=weights.get)
        rare_missing = score_tokens(("ayman", "mohammed"), ("ayman", "mohammed", "zawahiri"), weight=weights.get)
        assert round(common_missing.score, 4) == round(0.5 + 0.5 * 6 / 7, 4)
        assert round(rare_missing.score, 4) == round(0.5 + 0.5 * 3 / 7, 4)

    def test_initials(self):
        result = score_tokens(("i", "zambada", "garcia"), ("ismael", "zambada", "garcia"), weight=uniform)
        assert result.method == "initials" and round(result.score, 4) == round(2.8 / 3, 4)

    def test_different_names(self):
        assert score_tokens(("john", "brown"), ("john", "smith"), weight=uniform).score == 0.5
        assert score_tokens((), ("john",), weight=uniform).score == 0.0

    def test_compact_repairs_word_breaks(self):
        assert score_compact(("usama", "binladen"), ("usama", "bin", "laden")) == 1.0
        assert score_compact(("kim", "jon", "gun"), ("jong", "un", "kim")) == 1.0  # a letter moved across a space, surname first
        assert score_compact(("abdu", "lrahman"), ("abdul", "rahman")) == 1.0  # as many words on both sides
        assert score_compact(("vladimir", "putin"), ("vladimir", "turin")) == 0.0  # the same breaks: tokens decide
        assert score_compact(("jose", "rodriguez"), ("jorge", "rodriguez")) == 0.0  # two edits with as many words: another name

    def test_common_given_names_alone_never_carry_a_match(self):
        result = score_tokens(("mohammed", "ali"), ("mohammed", "ali", "zawahiri"), weight=uniform)
        assert result.score == 0.8 and result.notes["common_given_names_only"] == {"cap": 0.8, "matched": ["mohammed", "ali"]}
        assert result.notes["missing_listed_words"] == {"zawahiri": 1.0}
        surname = score_tokens(("mohammed", "zawahiri"), ("mohammed", "ali", "zawahiri"), weight=uniform)
        assert surname.score > 0.8 and "common_given_names_only" not in surname.notes


@pytest.mark.parametrize(("name", "family"), [
    ("أحمد الحسن", {"hsn"}),  # al-Hasan: a family name
    ("عمر حسين", set()),
    ("حمد الله الله نور", set()),  # Allah is one word, not the article
    ("Ahmad al-Hasan", set()),  # a Latin name says nothing by its "al"
])
def test_the_arabic_article_marks_family_names(name, family):
    from onboarding.screening.normalize import article_family_names

    assert article_family_names(name) == family


def test_is_abjad():
    assert is_abjad("صدام") and is_abjad("נתניהו")
    assert not is_abjad("Saddam") and not is_abjad("Владимир") and not is_abjad("习近平") and not is_abjad("नरेंद्र")


# One name in each major script: read into Latin tokens (anyascii, docs/decisions.md).
SCRIPTS = [
    ("han", "习近平", ("xi", "jinping")),
    ("hiragana", "やまだ たろう", ("yamada", "tarou")),
    ("katakana", "ヤマダ タロウ", ("yamada", "tarou")),
    ("hangul", "김정은", ("gim", "jeongeun")),
    ("devanagari", "नरेंद्र मोदी", ("nrendr", "modi")),
    ("thai", "ทักษิณ ชินวัตร", ("thaksin", "chinwatr")),
    ("hebrew", "בנימין נתניהו", ("vnymyn", "ntnyhv")),
    ("arabic", "صدام حسين", ("sdam", "hsyn")),
    ("cyrillic", "Владимир Путин", ("vladimir", "putin")),
    ("greek", "Αλέξης Τσίπρας", ("alexis", "tsipras")),
    # ELOT 743 for the diphthongs the library reads letter by letter (session 21).
    ("greek, av", "Γιώργος Μαυρίδης", ("giorgos", "mavridis")),
    ("greek, ef and ng", "Ευάγγελος Ευθυμίου", ("evangelos", "efthymiou")),
    ("greek, ou", "Νίκος Νικολάου", ("nikos", "nikolaou")),
    ("greek, af", "Αυτός", ("aftos",)),
    ("arabic, Allah is one word", "عبد الله", ("abd", "allh")),
    ("arabic, the article still split", "صدام حسين التكريتي", ("sdam", "hsyn", "tkryty")),
]


@pytest.mark.parametrize(("script", "name", "tokens"), SCRIPTS, ids=[row[0] for row in SCRIPTS])
def test_every_script_is_read(script, name, tokens):
    assert name_tokens(name) == tokens


@pytest.mark.parametrize(
    ("name", "party", "tokens"),
    [
        ("João Sá", "individual", ("joao", "sa")),  # a person's last word "Sá" is no "S.A."
        ("João Sá", None, ("joao", "sa")),  # of unknown kind, an ambiguous legal form goes only as an abbreviation
        ("Cecoex S.A.", None, ("cecoex",)),
        ("Cecoex SA", "organization", ("cecoex",)),
        ("Saab Trading", "organization", ("saab", "trading")),  # whole tokens only
        ("Acme LLC", "individual", ("acme", "llc")),
    ],
)
def test_legal_forms_are_dropped_from_organizations_only(name, party, tokens):
    assert name_tokens(name, party=party) == tokens


def test_symbols_are_spaces_and_letters_with_no_transliteration_are_unreadable():
    from onboarding.screening.normalize import unreadable_letters

    assert name_tokens("O´Brien 😀") == ("obrien",)
    assert unreadable_letters("𒀀𒀁") and not unreadable_letters("习近平") and not unreadable_letters("...")


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
