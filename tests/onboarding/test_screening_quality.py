"""Issue 29 on the real bundled lists: each edit class of a listed name is found, each false-positive class is not
raised (or stays below review with the reason in the explanation), every major script screens without error, and a
listed original-script alias is found from its romanised form and the reverse."""

from datetime import date

import pytest

from onboarding.screening import REVIEW_THRESHOLD, UnscreenableName, screen_name
from onboarding.screening.normalize import shifted_readings
from onboarding.screening.scoring import token_similarity

OFAC, UN = "ofac_sdn", "un_consolidated"
pytestmark = pytest.mark.django_db


@pytest.fixture
def screen(sanctions_index):
    def run(name, **options):
        return screen_name(name, index=sanctions_index, min_score=0.0, limit=20, **options)

    return run


def hit_for(hits, source, uid):
    return next((hit for hit in hits if (hit.source, hit.entry_uid) == (source, uid)), None)


# (edit class, query, list, entry uid, listed name that should match, method)
EDITS = [
    ("transposition", "Ismael Zmabada Garcia", OFAC, "7226", "ZAMBADA GARCIA, Ismael", "token_set"),
    ("transposition, three letters", "Kmi Jong Un", OFAC, "20157", "KIM, Jong Un", "token_set"),
    ("transposition, five letters", "Ayamn Zawahiri", OFAC, "2676", "AL-ZAWAHIRI, Ayman", "token_set"),
    ("dropped letter", "Ismael Zambda Garcia", OFAC, "7226", "ZAMBADA GARCIA, Ismael", "token_set"),
    ("doubled letter", "Ismael Zammbada Garcia", OFAC, "7226", "ZAMBADA GARCIA, Ismael", "token_set"),
    ("vowel change", "Ismael Zambada Gercia", OFAC, "7226", "ZAMBADA GARCIA, Ismael", "token_set"),
    ("word order", "Garcia Zambada Ismael", OFAC, "7226", "ZAMBADA GARCIA, Ismael", "reordered"),
    ("letter moved across a space", "Kim Jon Gun", OFAC, "20157", "KIM, Jong Un", "compact"),
    ("letter moved across a space, same word count", "Ismael Zambad Agarcia", OFAC, "7226", "ZAMBADA GARCIA, Ismael", "compact"),
    ("hyphen", "Kim Jong-un", OFAC, "20157", "KIM, Jong Un", "reordered"),
    ("letter moved out of a title", "HafizA bdul REHMAN", OFAC, "12295", "REHMAN, Hafiz Abdul", "exact"),
    ("letter moved into a title", "Hafi zAbdul Rehman", OFAC, "12295", "REHMAN, Hafiz Abdul", "exact"),
    ("letter moved out of a legal form", "SBERBANK-FINANSO-OO", "ofac_consolidated", "18744", "SBERBANK-FINANS OOO", "exact"),
    ("doubled first letter, short word", "YYue YAODONG", OFAC, "21549", "YAODONG, Yue", "token_set"),
    ("doubled first letter, four letters", "Yupeng CCHI", OFAC, "22612", "CHI, Yupeng", "token_set"),
    ("accents", "Ismaël Zambáda García", OFAC, "7226", "ZAMBADA GARCIA, Ismael", "exact"),
    ("typo in a legal form", "Secondeye Solution Limitde", OFAC, "30518", "SECONDEYE SOLUTION", "exact"),
    ("native script", "صدام حسين التكريتي", UN, "6908048", "صدام حسين التكريتي", "exact"),
    ("native script, edited", "صدام حسن التكريتي", UN, "6908048", "صدام حسين التكريتي", "token_set"),
    ("native script, Cyrillic, edited", "Умаров Доку Хаматовч", UN, "2960872", "Умаров Доку Хаматович", "token_set"),
]


# Session 21, the classes docs/screening.md listed as known gaps: (class, query, list, entry uid).
EDITS_SESSION_21 = [
    ("a title's first two letters swapped", "aHji Bashir NOORZAI", OFAC, "8240"),
    ("a letter dropped from a doubled title", "Sayid Salah AL-MUSAWI", OFAC, "15558"),
    ("a doubled letter in a legal form", "JSSC VO TEKHNOPROMEXPORT", OFAC, "18962"),
    ("a doubled letter in a legal form, four letters", "MELLI BANK PLCC", OFAC, "25420"),
    ("a vowel changed in a short word", "IRAN PEYA", OFAC, "15564"),
    ("a vowel changed in a short word, first letter", "Uli NAWA'EE", OFAC, "9754"),
    ("a legal form split by a break", "RIM GROUP INVESTMENTS,C ORP.", OFAC, "26201"),
    ("a letter moved between a title and a particle", "SOCIETE GENERAL-EDES PAINS", OFAC, "28178"),
    ("a name of initials and a legal form", "B S CEMPANY", OFAC, "26884"),
    ("native script, two letters swapped", "ایوب شبیر", UN, "2999481"),
    ("native script, a consonant dropped", "عبد الرو ذاکر", UN, "3000769"),
    ("native script, two letters of Allah swapped", "عادل عبد الهل مهدي", UN, "6908099"),
    ("native script, a letter of Allah moved", "مطيع لاله", UN, "111094"),
]


# ... and what those allowances must not let in: (case, query, listed) tokens that stay apart.
APART_SESSION_21 = [
    ("a vowel is no consonant", "peya", "pexa"),
    ("native script: a long vowel written is another name (Muhammad / Mahmoud)", "mhmd", "mhmwd"),
    ("native script: a long vowel for a consonant (Ahmad / Muhammad)", "ahmd", "mhmd"),
    ("native script: two letters changed", "shbyr", "bshyd"),
]


@pytest.mark.parametrize(("case", "query", "listed"), APART_SESSION_21, ids=[row[0] for row in APART_SESSION_21])
def test_what_the_session_21_allowances_keep_apart(case, query, listed):
    from onboarding.screening.scoring import native_similarity

    assert native_similarity(query, listed) == (0.0, "")
    if query.isalpha() and not case.startswith("native"):
        assert token_similarity(query, listed)[0] < 0.8


@pytest.mark.parametrize(("name", "tokens"), [
    ("Hafez Assad", ("hafez", "assad")),  # a changed letter does not make a title: Hafez is no Hafiz
    ("Saeed Sayed", ("saeed",)),  # Sayed is a title; Saeed is not
    ("Sara Inca", ("sara", "inca")),  # four letters: no legal form by a changed letter
    ("Coll Smith", ("coll", "smith")),  # a doubled letter makes no three-letter title ("col")
])
def test_misspelt_titles_and_legal_forms_only_by_a_doubled_or_swapped_letter(name, tokens):
    from onboarding.screening.normalize import name_tokens

    assert name_tokens(name) == tokens


@pytest.mark.parametrize(("edit", "query", "source", "uid", "matched", "method"), EDITS, ids=[row[0] for row in EDITS])
def test_each_edit_class_is_found(screen, edit, query, source, uid, matched, method):
    hit = hit_for(screen(query), source, uid)
    assert hit is not None
    assert (hit.matched_name, hit.method) == (matched, method)
    assert hit.score >= REVIEW_THRESHOLD and hit.outcome in ("review", "fail")


def test_a_repaired_word_break_says_so(screen):
    hit = hit_for(screen("Kim Jon Gun"), OFAC, "20157")
    assert hit.explanation["rules"] == {"word_breaks_repaired": True} and hit.explanation["method"] == "compact"


def test_a_break_repaired_next_to_a_title_says_so(screen):
    hit = hit_for(screen("HafizA bdul REHMAN"), OFAC, "12295")
    assert hit.explanation["rules"] == {"word_breaks_repaired": True}
    assert hit.explanation["query"]["normalized"] == "abdul rehman"


@pytest.mark.parametrize(("name", "readings"), [
    ("HafizA bdul Rehman", (("abdul", "rehman"),)),
    ("SBERBANK-FINANSO-OO", (("sberbank", "finans"),)),
    ("John Smith", ()),
    ("משה כהן", ()),  # "ms hkhhn" would make the title "ms": two-letter words are never made
])
def test_shifted_readings_only_where_a_title_or_legal_form_appears_or_vanishes(name, readings):
    assert shifted_readings(name) == readings


@pytest.mark.parametrize(("query", "listed", "found"), [
    ("yyue", "yue", True), ("cchi", "chi", True), ("peyya", "peya", True), ("anna", "ana", True),
    ("yue", "yun", False), ("li", "lli", False),
])
def test_a_doubled_letter_is_a_typo_in_a_short_word(query, listed, found):
    assert (token_similarity(query, listed)[1] == "typo") is found


# (false-positive class, query, options, list, entry uid that must stay below review, rule named in its explanation)
FALSE_POSITIVES = [
    ("a listed word missing costs its rarity", "Ismael Garcia", {}, OFAC, "7226", "missing_listed_words"),
    ("common given names alone", "Anna", {}, OFAC, "20274", "common_given_names_only"),
    ("a word the lists do not know weighs no more than a word in twenty names", "Ismael Garcia Petrovitsch", {}, OFAC,
     "7226", "unknown_word_weight_capped"),
    # Session 21: a common surname spelt exactly is that real name, not a typo of another listed word.
    ("a common surname is no typo of another listed word", "Omar Patel", {}, OFAC, "12599", "different_common_surnames"),
    ("a common surname is no sound-alike of another listed word", "Muhammad Moore", {}, OFAC, "23719",
     "different_common_surnames"),
    ("a common surname, two letters off", "David Anderson", {}, OFAC, "24918", "different_common_surnames"),
    ("a common surname, from Greek script", "Γιώργος Μαυρίδης", {}, OFAC, "26684", "different_common_surnames"),
    # An Arabic-script family name (the article) made of a common given name: "Ahmad al-Hasan" is not "AHMAD, Hasan".
    ("common given names, one marked as a family name in Arabic script", "أحمد الحسن", {}, OFAC, "22060",
     "common_given_names_only"),
]

# The same listed people are still found: spelt as listed, or with a typo that makes no common surname.
STILL_FOUND = [
    ("the listed surname exactly", "Omar Patek", OFAC, "12599"),
    ("a typo that is no common surname", "Omar Pateek", OFAC, "12599"),
    ("the listed surname exactly, sound-alike given name", "Mohamed Mire", OFAC, "23719"),
    ("common given names as listed, in Latin letters", "Hasan Ahmad", OFAC, "22060"),
    ("common given names, no article, in Arabic script", "عمر حسين", OFAC, "18595"),
    ("a name with Allah, which only looks like the article", "حمد الله الله نور", UN, "111182"),
]


def test_a_missing_patronymic_costs_half_its_weight(screen):
    hit = hit_for(screen("Anton Andreyev"), OFAC, "29703")
    assert hit.score >= REVIEW_THRESHOLD and hit.explanation["rules"]["missing_listed_words"] == {"nikolaeyvich": 5.157}


def test_a_contradicting_date_of_birth_takes_an_exact_namesake_below_review(screen):
    plain = hit_for(screen("Ismael Zambada Garcia"), OFAC, "7226")
    born_elsewhere = hit_for(screen("Ismael Zambada Garcia", date_of_birth=date(1990, 1, 1)), OFAC, "7226")
    assert plain.score == 1.0 and plain.method == "exact"
    assert born_elsewhere.score < REVIEW_THRESHOLD and born_elsewhere.outcome == "pass"
    adjustment = born_elsewhere.explanation["adjustments"][0]
    assert adjustment["field"] == "date_of_birth" and adjustment["finding"] == "mismatch" and adjustment["effect"] <= -0.1


def test_a_person_s_last_word_sa_is_not_a_legal_form(screen):
    """'Cecoex Sá' as a person keeps "sa": it does not become the one-word company 'CECOEX, S.A.'."""
    as_person = hit_for(screen("Cecoex Sá", kind="individual"), OFAC, "480")
    as_company = hit_for(screen("Cecoex S.A.", kind="business"), OFAC, "480")
    assert as_company.score == 1.0
    assert as_person.score < REVIEW_THRESHOLD and as_person.explanation["query"]["normalized"] == "cecoex sa"


def test_short_syllables_do_not_match_by_sound(screen):
    """'Banna' is no typo of 'Anna', 'sun' no sound-alike of 'son'."""
    assert all(hit.score < REVIEW_THRESHOLD for hit in screen("Banna"))
    assert all(hit.score < REVIEW_THRESHOLD for hit in screen("Sun Min"))


class TestJurisdiction:
    def test_only_raises_never_lowers(self, screen):
        plain = hit_for(screen("Anton Andreyev"), OFAC, "29703")
        elsewhere = hit_for(screen("Anton Andreyev", jurisdiction="US"), OFAC, "29703")
        registered_there = hit_for(screen("Anton Andreyev", jurisdiction="RU"), OFAC, "29703")
        assert elsewhere.score == plain.score
        assert [a["effect"] for a in elsewhere.explanation["adjustments"] if a["field"] == "jurisdiction"] == [0.0]
        assert round(registered_there.score - plain.score, 4) == 0.02

    def test_nationality_is_still_weak_evidence_both_ways(self, screen):
        plain = hit_for(screen("Anton Andreyev"), OFAC, "29703").score
        assert round(hit_for(screen("Anton Andreyev", country="RU"), OFAC, "29703").score - plain, 4) == 0.02
        assert round(hit_for(screen("Anton Andreyev", country="US"), OFAC, "29703").score - plain, 4) == -0.03


SCRIPTS = [
    ("Han", "习近平"), ("Hiragana", "やまだ たろう"), ("Katakana", "ヤマダ タロウ"), ("Hangul", "김정은"), ("Devanagari", "नरेंद्र मोदी"),
    ("Thai", "ทักษิณ ชินวัตร"), ("Hebrew", "בנימין נתניהו"), ("Arabic", "صدام حسين"), ("Cyrillic", "Владимир Путин"),
    ("Greek", "Αλέξης Τσίπρας"),
]


@pytest.mark.parametrize(("script", "name"), SCRIPTS, ids=[row[0] for row in SCRIPTS])
def test_a_name_in_every_major_script_screens_without_error(screen, script, name):
    hits = screen(name)
    assert isinstance(hits, list)
    assert all(hit.explanation["query"]["normalized"] for hit in hits)


def test_only_letters_with_no_transliteration_at_all_are_unreadable(screen):
    with pytest.raises(UnscreenableName):
        screen("𒀀𒀁")
    assert screen("  ...  ") == []  # no letters at all: nothing to screen


class TestOriginalScriptAliases:
    """The UN list carries names in their own script; both ways round they meet the customer's form."""

    def positions(self, index, name):
        return [position for position, record in enumerate(index.names) if record.name == name]

    def test_a_native_alias_is_found_from_its_romanised_form(self, sanctions_index):
        among = self.positions(sanctions_index, "صدام حسين التكريتي")
        hit = screen_name("Saddam Hussein al-Tikriti", index=sanctions_index, among=among, min_score=0.0)[0]
        assert (hit.name_kind, hit.entry_uid) == ("original_script", "6908048") and hit.score >= REVIEW_THRESHOLD
        assert {match["how"] for match in hit.explanation["token_matches"]} <= {"consonants", "phonetic"}

        among = self.positions(sanctions_index, "Умаров Доку Хаматович")
        hit = screen_name("Doku Khamatovich Umarov", index=sanctions_index, among=among, min_score=0.0)[0]
        assert (hit.name_kind, hit.score) == ("original_script", 1.0)

    def test_a_romanised_listed_name_is_found_from_the_native_form(self, sanctions_index):
        among = self.positions(sanctions_index, "DOKU KHAMATOVICH UMAROV")
        hit = screen_name("Умаров Доку Хаматович", index=sanctions_index, among=among, min_score=0.0)[0]
        assert (hit.matched_name, hit.score) == ("DOKU KHAMATOVICH UMAROV", 1.0)

        among = self.positions(sanctions_index, "SADDAM HUSSEIN AL-TIKRITI")
        hit = screen_name("صدام حسين التكريتي", index=sanctions_index, among=among, min_score=0.0)[0]
        assert hit.entry_uid == "6908048" and hit.score >= REVIEW_THRESHOLD


# Near-namesakes in Arabic and Chinese script: (class, query, list, entry uid that must stay below review, listed word the
# query's word must not match). The listed person is another one: a different given name with the same consonants, or
# another pinyin syllable.
NEAR_NAMESAKES = [
    ("Arabic: al-Khatib (a written ya) is no Khattab", "عمر الخطيب", OFAC, "20441", "khattab"),
    ("Arabic: Muhammad (no written waw) is no Mahmoud", "محمد الخطيب", "ofac_consolidated", "9687", "mahmoud"),
    ("Arabic: Hasan (no written ya) is no Hussain", "عمر الحسن", OFAC, "18595", "hussain"),
    ("Arabic: al-Omari (a written final ya) is no Ammar", "حسن العمري", OFAC, "21926", "ammar"),
    ("Han: juan is no jian", "张娟", OFAC, "21042", "jian"),
    ("Han: qiang is no quanguo", "陈强", OFAC, "29220", "quanguo"),
]


@pytest.mark.parametrize(("case", "query", "source", "uid", "word"), NEAR_NAMESAKES, ids=[row[0] for row in NEAR_NAMESAKES])
def test_a_near_namesake_in_another_script_is_not_raised(screen, case, query, source, uid, word):
    hit = hit_for(screen(query), source, uid)
    assert hit is None or (hit.score < REVIEW_THRESHOLD and word in hit.explanation["unmatched_listed_tokens"])


# The same listed people, spelt as their own script spells them, are still found.
NATIVE_NAMESAKES = [
    ("Arabic: Saddam Husayn", "صدام حسين", OFAC, "7843"),
    ("Arabic: Mahmoud al-Khatib", "محمود الخطيب", "ofac_consolidated", "9687"),
    ("Arabic: Omar Hussain", "عمر حسين", OFAC, "18595"),
    ("Han: Zhang Jian", "张建", OFAC, "21042"),
]


@pytest.mark.parametrize(("case", "query", "source", "uid"), NATIVE_NAMESAKES, ids=[row[0] for row in NATIVE_NAMESAKES])
def test_the_listed_name_in_its_own_script_is_still_found(screen, case, query, source, uid):
    hit = hit_for(screen(query), source, uid)
    assert hit is not None and hit.score >= REVIEW_THRESHOLD


WRITTEN_VOWELS = [
    ("khtyb", "khatib", True), ("khtyb", "khattab", False), ("mhmd", "muhammad", True), ("mhmd", "mohammed", True),
    ("mhmd", "mahmoud", False), ("hsyn", "hussein", True), ("hsyn", "husayn", True), ("hsyn", "hassan", False),
    ("hsn", "hussain", False), ("hsn", "hasan", True), ("mhmwd", "mahmoud", True), ("ywsf", "yousef", True),
    ("mstfy", "mustafa", True), ("sdam", "saddam", True),
    ("amry", "ammar", False), ("amry", "omari", True), ("bad", "abd", True), ("jna", "jan", True),
    ("asmaayl", "ismail", True), ("sayd", "saeed", True),
]


@pytest.mark.parametrize(("written", "listed", "agree"), WRITTEN_VOWELS)
def test_an_abjad_s_written_long_vowels_must_agree(written, listed, agree):
    from onboarding.screening.scoring import written_vowels_agree

    assert written_vowels_agree(written, listed) is agree


def test_a_han_syllable_matches_only_the_same_syllable():
    from onboarding.screening.scoring import Similarities

    han = Similarities(syllabic=True)
    assert han["zhang", "zhang"] == (1.0, "exact")
    assert han["juan", "jian"] == (0.0, "") and han["qiang", "quanguo"] == (0.0, "")
    assert Similarities()["juan", "jian"][0] > 0  # a Latin query keeps its typo allowance


# Session 23 (issue 29, sixth pass): the classes the quality benchmark still missed. (class, query, list, entry uid, rule
# named in the hit's explanation or None).
EDITS_SESSION_23 = [
    ("a vowel changed in a title the lists also hold as a word", "Huji Ibrahim KHAN AFRIDI", OFAC, "7222",
     "title_or_legal_form_like_words"),
    ("a vowel changed in a title", "Wali Hafaz Sayid KHAN", OFAC, "18619", "title_or_legal_form_like_words"),
    ("a letter dropped from a title", "Mllah Gul Agha", UN, "2913442", "title_or_legal_form_like_words"),
    ("a vowel changed in a legal form", "AA ENERGY FZCE", OFAC, "16137", "title_or_legal_form_like_words"),
    ("a vowel changed in a three-letter legal form", "MAHRUS TRADING FZO", OFAC, "20089", "title_or_legal_form_like_words"),
    ("a four-letter legal form's letters swapped", "IT WAVE FCZO", "bis_dpl", "DPL-509a4beab36c3dfc5998f6ab",
     "title_or_legal_form_like_words"),
    ("an ambiguous legal form kept in a name of unknown kind", "VELCAM TRADE DOO BEOGRAD", OFAC, "28121",
     "title_or_legal_form_like_words"),
    ("a vowel changed in a particle", "Thi Soldiers of Aqsa", UN, "6908607", "title_or_legal_form_like_words"),
    ("native script: two letters swapped in a word a Latin name also spells (agha)", "تورک غآا", UN, "6908491", None),
    ("native script, presentation forms: two letters swapped in a word a Latin name also spells (krym)",
     "عبد الله حماد ﻤﺤﻤﺪ ﻛﻴﺮﻡ", UN, "111305", None),
    ("native script: a letter romanised as two dropped", "أحمد دداغ", UN, "2816243", None),
    ("native script: a letter dropped after the article, before a Persian letter", "نظر محمدعبد الصیر", UN, "110962", None),
    ("a legal phrase split across the name's end and start", "STOCK COMPANY VTB REGISTRAR JOINT", "ofac_consolidated", "18737",
     None),
    ("a legal phrase word apart from its phrase", "VTB BANK OPEN", "ofac_consolidated", "17013", "title_or_legal_form_like_words"),
]


# Every named edit class of sessions 21 and 23: found at review or above, with the rule it used where one is named.
NAMED_EDITS = [(*row, None) for row in EDITS_SESSION_21] + EDITS_SESSION_23


@pytest.mark.parametrize(("edit", "query", "source", "uid", "rule"), NAMED_EDITS, ids=[row[0] for row in NAMED_EDITS])
def test_each_named_edit_class_is_found(screen, edit, query, source, uid, rule):
    hit = hit_for(screen(query), source, uid)
    assert hit is not None and hit.score >= REVIEW_THRESHOLD and hit.outcome in ("review", "fail")
    if rule:
        assert rule in hit.explanation["rules"]


# ... and what they must not let in: (case, query, list, entry uid that must stay below review, rule named).
FALSE_POSITIVES_SESSION_23 = [
    # A name word near a title that the lists know ("Hafez", "Hadi") costs more than a misspelt title: the rest of the
    # name, common words, does not make the listed "KHAN, Ali".
    ("a real name near a title, the rest common", "Hafez Ali Khan", OFAC, "6864", "title_or_legal_form_like_words"),
    # Common names alone, a listed word missing: the listed person's father, or son, or a namesake.
    ("common names alone, the listed father's name missing", "Mariam Saleh", "ofac_consolidated", "9650", "common_names_only"),
    ("common names alone, the listed given name missing", "Abdullah Saleh", OFAC, "17387", "common_names_only"),
    ("common names alone, the listed first given name missing", "Youssef Mansour", OFAC, "16152", "common_names_only"),
    # Omar al-Hasan: a family name written with the article, a common given name (Ammar) on the Latin side.
    ("Arabic script: a family name with the article against common given names", "عمر الحسن", OFAC, "21926",
     "common_given_names_only"),
    # The UN list's original-script name without its first word: its words are common names by their sound keys.
    ("Arabic script: an original-script listed name of common names, its first word missing", "إبراهيم العمري", UN,
     "111067", "common_given_names_only"),
]


ALL_FALSE_POSITIVES = FALSE_POSITIVES + [(case, query, {}, source, uid, rule)
                                         for case, query, source, uid, rule in FALSE_POSITIVES_SESSION_23]


@pytest.mark.parametrize(("case", "query", "options", "source", "uid", "rule"), ALL_FALSE_POSITIVES,
                         ids=[row[0] for row in ALL_FALSE_POSITIVES])
def test_each_false_positive_class_stays_below_review_with_its_reason(screen, case, query, options, source, uid, rule):
    hit = hit_for(screen(query, **options), source, uid)
    assert hit is not None and hit.score < REVIEW_THRESHOLD and hit.outcome == "pass"
    assert rule in hit.explanation["rules"]


# The listed people themselves are still found, with the rare word given or nothing missing.
STILL_FOUND_SESSION_23 = [
    ("the whole listed name of common names", "Mariam Mahmoud Saleh", "ofac_consolidated", "9650"),
    ("the whole listed name, first given name and all", "Ali Abdullah Saleh", OFAC, "17387"),
    ("the listed original-script name", "محمد ابراهیم عمری", UN, "111067"),
    ("a title spelt right", "Haji Ibrahim KHAN AFRIDI", OFAC, "7222"),
    # Two common words, as listed: before, rarer spellings of them ("mohamad", "ala") ranked sixty other forms first.
    ("a listed name of two common words, as listed", "Muhammad Ali", OFAC, "22113"),
    ("a listed name of two common words, a letter dropped", "Muhmmad AL-IBRAHIM", OFAC, "21909"),
]


ALL_STILL_FOUND = STILL_FOUND + STILL_FOUND_SESSION_23
CAPPING_RULES = ("different_common_surnames", "common_given_names_only", "common_names_only")


@pytest.mark.parametrize(("case", "query", "source", "uid"), ALL_STILL_FOUND, ids=[row[0] for row in ALL_STILL_FOUND])
def test_the_listed_spelling_of_those_names_is_still_found(screen, case, query, source, uid):
    hit = hit_for(screen(query), source, uid)
    assert hit is not None and hit.score >= REVIEW_THRESHOLD
    assert not any(rule in hit.explanation["rules"] for rule in CAPPING_RULES)


@pytest.mark.parametrize(("token", "near"), [
    ("huji", True), ("hafaz", True), ("mllah", True), ("fzce", True), ("fczo", True), ("oaa", True), ("thi", True),
    ("ind", True), ("tthe", True), ("ibshchestvo", True), ("doo", True),
    ("xsa", False), ("sam", False), ("hadi", False), ("owen", False),  # a consonant for another is a name's
    ("smith", False), ("zambada", False), ("ab", False),
])
def test_what_may_be_a_misspelt_title_particle_or_legal_form(token, near):
    """normalize.near_noise, which TokenWeights.unmatched reads."""
    from onboarding.screening.normalize import near_noise

    assert near_noise(token) is near


def test_a_word_near_a_title_costs_little_only_when_it_is_no_common_name(sanctions_index):
    weights = sanctions_index.weights
    assert weights.unmatched("fzce") == weights.noise and weights.noise < weights.unseen  # unknown to the lists
    assert weights.noise < weights.unmatched("huji") < weights["huji"]  # a word the lists know: half-way
    assert weights.unmatched("ana") == weights["ana"]  # near "and", but a common given name
    assert weights.unmatched("zambada") == weights["zambada"]


def test_a_two_class_sound_key_with_two_edits_needs_the_first_letter():
    assert token_similarity("giulia", "cilia") == (0.0, "")  # "Giulia Flores" is no "FLORES, Cilia"
    assert token_similarity("siyyed", "seyed") == (0.8, "phonetic")
