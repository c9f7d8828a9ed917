"""Name-against-name scoring: pure functions over normalised tokens, no index, no database.

Token similarity (`token_similarity`), per pair of tokens:
- equal -> 1.0 ("exact");
- a single letter against a word it begins ("V" / "Vladimir") -> 0.8 ("initial"); 0.6 when the
  list gives only the initial and the customer the whole word ("Sofia Ioannou" is no "SONIA I");
- within the typo allowance (optimal string alignment distance, so a transposition is one edit: for
  tokens of 3-4 letters one transposition only ("omra" / "omar", "adb" / "abd"), 1 edit for 5-7
  letters, 2 for 8+), 1 - 0.6 * edits / length, less 0.05 when the first letters differ ("typo":
  "vladimr" 0.93, "putn" 0.88); a changed first letter is a typo only in words of 6+ letters
  ("banna" is not "anna", "tamas" not "hamas"); one other edit in three or four letters, the first
  letter kept, is a weak 0.60 ("short_typo": "alo" / "ali"), enough to keep a typo from counting as a
  missing word, not enough for a namesake of short syllables ("sun" / "son") to reach review;
- in words of 4+ letters, the same sound key (normalize.sound_keys: the anchored key, or the consonant
  skeleton that ignores where the vowels were; at most two letters longer or shorter, one for the
  skeleton: "jing" is no "jinghua") and fewer than half the letters edited -> 0.80 ("phonetic": "mohamed" /
  "muhammad", "umar" / "omar", "nrendr" / "narendra"); for a token of an abjad (Arabic, Hebrew, ...
  on either side) the spelling test is waived, because the romanisation dropped the short
  vowels ("hsyn" / "hussein"), when the key has three classes or more (a
  two-class key such as "st" is half the names of a list); such a word whose anchored key of three or
  more classes equals the listed word's scores 0.90 ("consonants": "sdam" / "saddam", "tkryty" /
  "tikriti": everything the script wrote agrees). Syllables of three letters ("sun" / "son") never
  match by sound.
Anything else is 0: "smith" and "smithson" are different names.

Name score (`score_tokens`): tokens are aligned one-to-one, best pairs first, whatever their order.
Each token weighs its inverse document frequency in the lists (the index supplies `weight`), so a
match on "zawahiri" counts for more than a match on "mohammed". Then
    coverage_query  = weighted share of the query explained by its aligned tokens
    coverage_listed = weighted share of the listed name explained
    score = share * max(coverages) + (1 - share) * min(coverages)
with share 0.5 for every listed party: the uncovered side counts for half. A full match of both sides
scores 1.0 in any word order. When one side has extra tokens (a patronymic, a second surname, a
middle name the customer gave), each missing word costs its rarity weight on that side's coverage:
"Ismael Garcia" against "ZAMBADA GARCIA, Ismael" falls under review (the rare surname is missing),
"Maria Garcia" against "GAXIOLA GARCIA, Maria Elena" to 0.73, "Pacific Shipping Company" against
"PACIFIC OCEAN SHIPPING LIMITED" stays under review. A listed patronymic (-ovich, -evna, -ogly, ...)
the customer left out costs half its weight, as people drop it abroad: "Anton Andreyev" against
"ANDREYEV, Anton Nikolaeyvich" stays in review.
(Before, a person's fully explained side carried 0.6, and a listed name missing one word still
reached 0.86: the false positive "a listed name with an extra word" of issue 29.)

Rules that keep namesakes out, each named in `NameScore.notes` (and so in every hit's explanation):
- "common_given_names_only": every matched listed word is a common given name (common_names.py) or a
  word of at most three letters (a romanised syllable: "lin", "na") and something is left unmatched:
  capped at GIVEN_NAMES_ONLY_CAP (0.80), under review. "Mohammed Ali" does not raise
  "MOHAMMED ALI HASSAN AL-TIKRITI"; the surname has to match too.
- "missing_listed_words": the listed words the query lacks, with their rarity weights: the listed
  side's coverage, and so the score, loses each one's weight (a missing rare surname costs more than
  a missing "Mohammed").
- "unknown_word_weight_capped": a query word the lists do not know weighs at most the index's
  `unseen_weight` (a word in about twenty listed names), not the rarest weight of all, so one
  misspelt word cannot sink a name (index._idf).

`score_compact` repairs word breaks: it compares the names with the spaces removed, in order (and the
query's last word first, for a surname written first), whatever the word counts, with the typo
allowance of the joined length (1 edit per 6 letters, at most 2; when the word counts are equal, none
under 12 letters and at most 1 above). It counts only where the breaks
really differ ("jong un" / "jon gun", "bin laden" / "binladen", "abdul-rahman" / "abdu lrahman"); where
the words line up the token score says it, and a whole-string allowance would let "turin" pass for
"putin".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz.distance import OSA

from onboarding.screening.common_names import ARABIC_GIVEN_NAMES, ARABIC_SURNAMES, COMMON_GIVEN_NAMES, COMMON_NAMES, COMMON_SURNAMES
from onboarding.screening.normalize import collapse_doubled, sound_keys

PHONETIC_SIMILARITY = 0.80
# One edit, not a transposition, in a word of three or four letters: a weak match, that keeps a typo from counting as
# a missing word ("alo" / "ali" in "Maalim Salman Alo") without making a namesake of "sun" / "son".
SHORT_TYPO_SIMILARITY = 0.60
# A vowel-lossy script's word whose consonants (three classes or more) are the listed word's: all the script wrote agrees.
CONSONANT_SIMILARITY = 0.90
GIVEN_NAMES_ONLY_CAP = 0.80
# A query word that is a common surname (common_names.COMMON_SURNAMES) against another listed word: how the pair is named.
DIFFERENT_WORD = "different_word"
# Common surnames that are not also common given names (a given name's spellings vary: "Mohammed" / "Muhammad").
_REAL_SURNAMES = COMMON_SURNAMES - COMMON_GIVEN_NAMES
# A listed patronymic the customer left out costs half its weight: people drop it abroad ("Anton Andreyev" for
# "ANDREYEV, Anton Nikolaeyvich"); a missing surname or given name costs its full rarity.
PATRONYMIC_MISSING_FACTOR = 0.5
_PATRONYMIC = re.compile(r"...(?:vich|vna|ichna|ogly|oglu|qizi|kyzy)$")
# Words this short ("li", "na", "kim") count as common given names for that rule: a romanised syllable says little.
SHORT_WORD = 3
# A changed first letter is a typo only in words this long ("banna" is no typo of "anna").
FIRST_LETTER_TYPO_LENGTH = 6
# Joined length from which score_compact allows an edit besides a moved word break, with as many words on both sides.
COMPACT_EDIT_LENGTH = 12
INITIAL_SIMILARITY = 0.8
LISTED_INITIAL_SIMILARITY = 0.6
TYPO_COST = 0.6
# What two swapped neighbours count for, in edits.
TRANSPOSITION_EDIT = 0.5
# Long vowels and the letters that write them in an abjad's romanisation (alif or ayn "a", waw "w", ya "y").
_ABJAD_VOWEL_LETTERS = frozenset("awy")
# The library's two-letter romanisations of one Arabic or Persian letter, as one symbol each, so that an edit counts
# letters as the script wrote them ("بشير" / "شبير": one swap, not three edits of "bshyr" / "shbyr").
_DIGRAPHS = (("sh", "S"), ("kh", "K"), ("th", "T"), ("dh", "D"), ("gh", "G"), ("ch", "C"), ("zh", "Z"))
FIRST_LETTER_COST = 0.05
# How much the better-covered side carries, for a listed person and for a listed organization
# (or vessel, aircraft). See the module docstring.
MAJOR_SHARE_INDIVIDUAL = 0.50
MAJOR_SHARE_ORGANIZATION = 0.50


@dataclass(frozen=True)
class TokenMatch:
    query: str
    listed: str
    similarity: float
    how: str  # exact | initial | typo | phonetic


@dataclass
class NameScore:
    score: float
    method: str
    matches: list[TokenMatch] = field(default_factory=list)
    unmatched_query: list[str] = field(default_factory=list)
    unmatched_listed: list[str] = field(default_factory=list)
    reordered: bool = False
    coverage_query: float = 0.0
    coverage_listed: float = 0.0
    notes: dict = field(default_factory=dict)  # the false-positive rules that applied (module docstring)


def typo_allowance(length: int) -> int:
    return 0 if length <= 2 else 1 if length <= 7 else 2


def _vowel_changed(first: str, second: str) -> bool:
    """Same length, and the one letter that differs is a vowel on both sides."""
    changed = [(a, b) for a, b in zip(first, second, strict=True) if a != b]
    return len(changed) == 1 and changed[0][0] in _VOWELS and changed[0][1] in _VOWELS


_VOWELS = frozenset("aeiou")


def _is_transposition(first: str, second: str) -> bool:
    return len(first) == len(second) and sum(a != b for a, b in zip(first, second, strict=True)) == 2 and sorted(first) == sorted(second)


def token_similarity(query: str, listed: str, *, abjad: bool = False) -> tuple[float, str]:
    if query == listed:
        return 1.0, "exact"
    if len(query) == 1 or len(listed) == 1:
        short, long_ = (query, listed) if len(query) == 1 else (listed, query)
        if len(long_) < 2 or not long_.startswith(short):
            return 0.0, ""
        # The customer's initial for a listed word is theirs to abbreviate; a list that gives only an initial says less
        # ("Sofia Ioannou" is no "SONIA I").
        return (INITIAL_SIMILARITY if len(query) == 1 else LISTED_INITIAL_SIMILARITY), "initial"
    length = max(len(query), len(listed))
    edits = OSA.distance(query, listed, score_cutoff=max(2, length // 2))
    if edits > 1 and edits * 2 >= length and not abjad:
        return 0.0, ""  # beyond every allowance below: no typo, no sound-alike with half the letters changed
    similarity, how = 0.0, ""
    first_differs = query[0] != listed[0]
    transposed = edits == 1 and _is_transposition(query, listed)
    if edits <= typo_allowance(length) and (length >= 5 or transposed) and (
            not first_differs or length >= FIRST_LETTER_TYPO_LENGTH or transposed):
        # Two neighbours swapped cost half an edit: the commonest slip, and no letter is lost ("eHq" / "Heq").
        cost = TRANSPOSITION_EDIT if transposed else edits
        similarity, how = 1.0 - TYPO_COST * cost / length - (FIRST_LETTER_COST if first_differs else 0.0), "typo"
    if not similarity and edits == 1 and 3 <= length <= 4 and len(query) == len(listed) and _vowel_changed(query, listed):
        # One vowel for another in a short word ("Oli" / "Ali", "Peya" / "Puya"): a spelling of the same syllables.
        similarity, how = 1.0 - TYPO_COST / length - (FIRST_LETTER_COST if first_differs else 0.0), "typo"
    if not similarity and edits == 1 and min(len(query), len(listed)) >= 3 and collapse_doubled(query) == collapse_doubled(listed):
        # A letter keyed twice (or a double keyed once), in a word of any length from three letters: "yyue" / "yue".
        similarity, how = 1.0 - TYPO_COST / length, "typo"
    if not similarity and edits == 1 and length >= 3 and not first_differs:
        similarity, how = SHORT_TYPO_SIMILARITY, "short_typo"
    if similarity < PHONETIC_SIMILARITY and length >= 4 and (abjad or edits / length < 0.5):
        anchored, skeleton = sound_keys(query)
        other_anchored, other_skeleton = sound_keys(listed)
        if abjad and len(anchored) >= 3 and anchored == other_anchored:
            similarity, how = CONSONANT_SIMILARITY, "consonants"
        elif ((anchored and anchored == other_anchored
               and (len(anchored) >= 3 or edits <= 1 or (edits / length < 0.5 and not first_differs))
               and (abjad or abs(len(query) - len(listed)) <= 2))
                or (len(skeleton) >= 3 and skeleton == other_skeleton and abs(len(query) - len(listed)) <= 1)):
            similarity, how = PHONETIC_SIMILARITY, "phonetic"
    return similarity, how


def _script_letters(token: str) -> str:
    for digraph, letter in _DIGRAPHS:
        if digraph in token:
            token = token.replace(digraph, letter)
    return token


def script_letter_deletions(token: str) -> set[str]:
    """`token` with one of the library's two-letter romanisations of a single Arabic or Persian letter left out ("dghdagh"
    -> "ddagh", "dghda"): one letter dropped as the script wrote it, which a one-character deletion does not reach. The
    index's blocking keys include these (index.deletion_keys); keys under three letters ("khan" -> "an") would meet
    every short word, and are left out."""
    found = set()
    for digraph, _letter in _DIGRAPHS:
        start = token.find(digraph)
        while start >= 0:
            found.add(token[:start] + token[start + 2:])
            start = token.find(digraph, start + 1)
    return {key for key in found if len(key) >= 3}


def native_similarity(query: str, listed: str) -> tuple[float, str]:
    """Two words both written in an abjad (Arabic, Persian, ...), compared letter by letter as the script wrote them:
    one letter dropped, added or changed, or two neighbours swapped, in words of three letters or more ("شبير" /
    "بشير", "الطي" / "الطيب", "عاور" / "عاشور"). Dropping, adding or changing a long vowel is a different name
    ("محمد" / "محمود", Muhammad / Mahmoud; "أحمد" / "محمد"), and a swap costs half an edit."""
    first, second = _script_letters(query), _script_letters(listed)
    length = max(len(first), len(second))
    if length < 3 or OSA.distance(first, second, score_cutoff=1) != 1:
        return 0.0, ""
    if len(first) == len(second) and sorted(first) == sorted(second):
        return 1.0 - TYPO_COST * TRANSPOSITION_EDIT / length, "native_typo"
    position = next((index for index, (a, b) in enumerate(zip(first, second, strict=False)) if a != b), min(len(first), len(second)))
    changed = {word[position] for word in (first, second) if position < len(word)}
    if len(first) != len(second):
        changed = {max(first, second, key=len)[position]}
    if changed & _ABJAD_VOWEL_LETTERS:
        return 0.0, ""
    return 1.0 - TYPO_COST / length, "native_typo"


@lru_cache(maxsize=1 << 18)
def _kept_similarity(query: str, listed: str, abjad: bool) -> tuple[float, str]:
    """token_similarity, kept across screenings (a pure function of its arguments): the same common words meet the
    same listed words in screening after screening."""
    return token_similarity(query, listed, abjad=abjad)


class Similarities(dict):
    """token_similarity of (query token, listed token) pairs, computed on first use and kept: one
    screening compares the same few query tokens with many listed names that share tokens.

        similarities = Similarities(abjad=False)
        value, how = similarities["vladimr", "vladimir"]
    """

    def __init__(self, *, abjad: bool = False, lossy: frozenset[str] = frozenset(), syllabic: bool = False,
                 family: frozenset[str] = frozenset(), native: frozenset[str] | None = None):
        super().__init__()
        self.family = family  # words an Arabic-script query marks as family names with the article (normalize.article_family_names)
        self.abjad = abjad  # the query is written in an abjad (normalize.is_abjad): its long vowels are written
        self.lossy = lossy  # listed tokens romanised from a vowel-lossy script (ScreeningIndex.lossy_tokens)
        # Listed tokens any name in an abjad spells, also those a Latin name spells too (ScreeningIndex.native_tokens): an
        # abjad query compares with them letter by letter as well ("غآا" / "آغا", whose "agha" is also a Latin word).
        self.native = lossy if native is None else native
        self.syllabic = syllabic  # the query is written in Chinese characters (normalize.is_han)

    def __missing__(self, pair: tuple[str, str]) -> tuple[float, str]:
        query, listed = pair
        if self.syllabic:
            # Pinyin syllables spelt by the characters themselves: the same syllables or a different name.
            found = self[pair] = (1.0, "exact") if query == listed else (0.0, "")
            return found
        lossy = listed in self.lossy
        found = _kept_similarity(query, listed, self.abjad or lossy)
        # Against a Latin spelling only: a listed word in an abjad writes its long vowels as the query does.
        if found[0] and found[1] != "exact" and self.abjad and not lossy and not written_vowels_agree(query, listed):
            found = (0.0, "")
        if self.abjad and found[0] < PHONETIC_SIMILARITY and listed in self.native:
            found = max(found, native_similarity(query, listed))
        if found[0] > SHORT_TYPO_SIMILARITY and found[1] != "exact" and query in _REAL_SURNAMES:
            # The customer's word is a common surname spelt exactly: that real name, not a typo of another listed word
            # ("Patel" is no misspelt "PATEK", "khan" no "kan"). A weak match keeps it from counting as a missing word.
            found = (SHORT_TYPO_SIMILARITY, DIFFERENT_WORD)
        self[pair] = found
        return found


# Written long vowels: an abjad writes "y" (i), "w" (u) and the alif (a) between its consonants; a Latin vowel of the
# same class must stand there in the listed name.
_VOWEL_CLASSES = {"a": "ae", "y": "iey", "w": "uow"}
_LATIN_VOWELS = frozenset("aeiouyw")
# Listed vowels that romanise a long one or a diphthong, which the abjad would have written with its waw or ya
# ("mahmoud", not "mhmd"; "hussain", not "hsn").
_LONG_VOWELS = ("ou", "oo", "ee", "ii", "aa", "uu", "ai", "ay", "ei", "ey", "au", "aw", "ow")


def _gaps(word: str, vowels: frozenset[str]) -> tuple[list[str], str]:
    """The vowel letters after each consonant of `word` (h a consonant, doubled consonants one), and its consonant
    classes; the letters before the first consonant are left out (an initial alif or ayn says little)."""
    gaps: list[str] = []
    consonants = ""
    for position, char in enumerate(word):
        if char in vowels and position > 0:
            if gaps:
                gaps[-1] += char
            continue
        if char in vowels:
            continue
        sound = char.translate(_GAP_CLASSES)
        if consonants and consonants[-1] == sound and not gaps[-1]:
            continue
        consonants += sound
        gaps.append("")
    return gaps, consonants


_GAP_CLASSES = str.maketrans(dict(zip("bpfvckqgjdtszx", "ppffkkkkjttsss", strict=True)))


def written_vowels_agree(query: str, listed: str) -> bool:
    """False when a query word in an abjad writes a long vowel where the listed word has none or one of another class,
    or the listed word spells a long vowel where the query writes none, between the same consonants: "khtyb" (الخطيب,
    al-Khatib) is no "khattab", "mhmd" (محمد, Muhammad) no "mahmoud", "amry" (العمري, al-Omari) no "ammar".
    Words whose consonants do not line up are left to the other tests."""
    query_gaps, query_consonants = _gaps(query, frozenset("ayw"))
    listed_gaps, listed_consonants = _gaps(listed, _LATIN_VOWELS)
    if len(query_consonants) != len(listed_consonants):
        return True
    last = len(query_gaps) - 1
    for position, (written, spelt) in enumerate(zip(query_gaps, listed_gaps, strict=True)):
        if not spelt:
            # Read "a", an ayn is a consonant the Latin spelling may leave without a vowel ("بعد" / "abd"): only a ya
            # or a waw needs a vowel there.
            written = written.replace("a", "")
        if written and not any(vowel in spelt for mark in written for vowel in _VOWEL_CLASSES[mark] + ("a" if position == last else "")):
            return False  # a final ya may be an alif maqsura ("مصطفى", Mustafa), read "a"
        if not written and any(long_vowel in spelt for long_vowel in _LONG_VOWELS):
            return False
    return True


def _align(query: tuple[str, ...], listed: tuple[str, ...], similarities: Similarities):
    pairs = []
    for q_position, q_token in enumerate(query):
        for l_position, l_token in enumerate(listed):
            value, how = similarities[q_token, l_token]
            if value > 0:
                pairs.append((value, len(l_token), q_position, l_position, how))
    pairs.sort(key=lambda pair: (-pair[0], -pair[1], pair[2], pair[3]))
    used_query: set[int] = set()
    used_listed: set[int] = set()
    aligned = []
    for value, _length, q_position, l_position, how in pairs:
        if q_position not in used_query and l_position not in used_listed:
            used_query.add(q_position)
            used_listed.add(l_position)
            aligned.append((q_position, l_position, value, how))
    return sorted(aligned)


def score_tokens(
    query: tuple[str, ...],
    listed: tuple[str, ...],
    *,
    weight: Callable[[str], float],
    similarities: Similarities | None = None,
    major_share: float = MAJOR_SHARE_INDIVIDUAL,
    explain: bool = True,
    listed_weights: tuple[float, ...] | None = None,
    listed_missing: tuple[float, ...] | None = None,
    unmatched_weight: Callable[[str], float] | None = None,
) -> NameScore:
    """Score two token sequences 0-1 (see the module docstring). With `explain=False` only the score and
    the coverages are filled in (the same numbers, without the token matches a hit shows): what a
    screening needs to rank its candidates, most of which never become hits. `listed_weights` and `listed_missing`:
    weight(token) and `_missing_weight` of each listed token when the caller keeps them (the index does, per form).
    `unmatched_weight`: what a query token aligned with nothing costs (default `weight`; the index's
    TokenWeights.unmatched lets a word that may be a misspelt title or legal form cost little)."""
    if similarities is None:
        similarities = Similarities()
    if not query or not listed:
        return NameScore(0.0, "none", unmatched_query=list(query), unmatched_listed=list(listed))
    aligned = _align(query, listed, similarities)
    matched_q = {q for q, _l, _v, _h in aligned}
    matched_l = {listed_position for _q, listed_position, _v, _h in aligned}
    # An aligned pair weighs what the listed token weighs on both sides: a misspelt query token
    # is not in the vocabulary, and would otherwise look rarer than the word it misspells.
    if listed_weights is None:
        listed_weights = tuple(weight(token) for token in listed)
    if listed_missing is None:
        listed_missing = missing_weights(listed, listed_weights)
    explained = sum(listed_weights[l_position] * value for _q, l_position, value, _h in aligned)
    pair_weight = sum(listed_weights[l_position] for _q, l_position, _v, _h in aligned)
    unmatched_weight = unmatched_weight or weight
    left = [token for position, token in enumerate(query) if position not in matched_q]  # the query tokens aligned with nothing
    query_total = pair_weight + sum(map(unmatched_weight, left))
    listed_total = pair_weight + sum(listed_missing[position] for position in range(len(listed)) if position not in matched_l)
    coverage_query = explained / query_total if query_total else 0.0
    coverage_listed = explained / listed_total if listed_total else 0.0
    score = _combined(coverage_query, coverage_listed, major_share)
    capped_by = (score > GIVEN_NAMES_ONLY_CAP or explain) and _common_names_cap(
        aligned, query, listed, complete=_family_as_given(aligned, query, listed, similarities),
        unmatched_query=any(unmatched_weight(token) >= weight(token) for token in left),
        lossy=similarities.lossy)
    if capped_by and score > GIVEN_NAMES_ONLY_CAP:
        score = GIVEN_NAMES_ONLY_CAP
    if not explain:
        return NameScore(score=score, method="", coverage_query=coverage_query, coverage_listed=coverage_listed)
    notes: dict = {}
    if capped_by:
        notes[capped_by] = {"cap": GIVEN_NAMES_ONLY_CAP, "matched": [listed[l_position] for _q, l_position, _v, _h in aligned]}
    if len(matched_l) < len(listed):
        notes["missing_listed_words"] = {listed[position]: round(listed_missing[position], 3)
                                         for position in range(len(listed)) if position not in matched_l}
    different = {query[q]: listed[l_position] for q, l_position, _v, how in aligned if how == DIFFERENT_WORD}
    if different:
        notes["different_common_surnames"] = {"similarity": SHORT_TYPO_SIMILARITY, "pairs": different}
    capped = [token for token in left if token not in _known(weight)]
    if capped:
        notes["unknown_word_weight_capped"] = {"words": capped, "weight": round(weight(capped[0]), 3)}
    noise_like = {token: round(unmatched_weight(token), 3) for token in left if unmatched_weight(token) < weight(token)}
    if noise_like:
        notes["title_or_legal_form_like_words"] = noise_like
    listed_order = [l_position for _q, l_position, _v, _h in aligned]
    matches = [TokenMatch(query[q], listed[l_position], round(value, 4), how) for q, l_position, value, how in aligned]
    exact = score >= 0.9999 and len(query) == len(listed)
    reordered = listed_order != sorted(listed_order)
    if exact:
        method = "reordered" if reordered else "exact"
    else:
        method = "initials" if any(match.how == "initial" for match in matches) else "token_set"
    return NameScore(
        score=score, method=method, matches=matches,
        unmatched_query=left,
        unmatched_listed=[token for position, token in enumerate(listed) if position not in matched_l],
        reordered=reordered, coverage_query=coverage_query, coverage_listed=coverage_listed, notes=notes,
    )


def score_bound(query: tuple[str, ...], listed: tuple[str, ...], *, query_weights: tuple[float, ...] | list[float],
                listed_weights: tuple[float, ...], missing_total: float, similarities: Similarities,
                major_share: float = MAJOR_SHARE_INDIVIDUAL) -> float:
    """An upper bound of `score_tokens(query, listed).score`, from the token similarities alone (no alignment, no
    explanation): what lets the matcher skip the full scoring of a listed name that cannot reach the reporting threshold.

    `query_weights`: what each query token costs when aligned with nothing (score_tokens' `unmatched_weight`);
    `listed_weights`: weight(token) of each listed token;
    `missing_total`: the sum of `_missing_weight` over the listed tokens (the index keeps both per form). Why it is a bound,
    with b(l) the best similarity of listed token l to any query token and A the aligned pairs of score_tokens:
    - listed side: explained = sum over A of w(l)·v <= sum of w(l)·b(l); listed_total = sum over A of w(l) + the missing
      weights of the others >= the missing weights of all (a missing weight is at most the weight), so
      coverage_listed <= min(1, sum w(l)·b(l) / missing_total);
    - query side: a query token similar to no listed token is never aligned, so with c the weight of those and
      P = sum over A of w(l) (at most the weight of the listed tokens similar to something), explained <= P and
      coverage_query <= P / (P + c) <= P_max / (P_max + c);
    - the score is increasing in both coverages; the common-given-names cap only lowers it.
    Words breaks (score_compact) are not bounded here: the caller scores those names in full."""
    best = [0.0] * len(listed)
    unmatched = 0.0
    for q_position, q_token in enumerate(query):
        found = False
        for l_position, l_token in enumerate(listed):
            value = similarities[q_token, l_token][0]
            if value > 0:
                found = True
                if value > best[l_position]:
                    best[l_position] = value
        if not found:
            unmatched += query_weights[q_position]
    reachable = explained = 0.0
    for l_position, value in enumerate(best):
        if value > 0:
            reachable += listed_weights[l_position]
            explained += listed_weights[l_position] * value
    if not reachable:
        return 0.0
    bound_query = reachable / (reachable + unmatched)
    bound_listed = min(1.0, explained / missing_total) if missing_total else 1.0
    return _combined(bound_query, bound_listed, major_share)


def _combined(coverage_query: float, coverage_listed: float, major_share: float) -> float:
    """A name's score from its two coverages: the larger weighs `major_share` (increasing in both, which score_bound
    relies on)."""
    return major_share * max(coverage_query, coverage_listed) + (1 - major_share) * min(coverage_query, coverage_listed)


def missing_weights(listed: tuple[str, ...], weights: tuple[float, ...]) -> tuple[float, ...]:
    """What each listed token costs when the query lacks it (`_missing_weight`), for the index to keep per form."""
    return tuple(_missing_weight(token, weight) for token, weight in zip(listed, weights, strict=True))


def _missing_weight(token: str, weight: float) -> float:
    """What a listed word the query lacks costs: its weight, half of it for a patronymic."""
    return weight * PATRONYMIC_MISSING_FACTOR if _PATRONYMIC.search(token) else weight


def _common_names_cap(aligned, query: tuple[str, ...], listed: tuple[str, ...], *, complete: bool, unmatched_query: bool,
                      lossy: frozenset[str]) -> str | None:
    """The rule that caps a match resting on common names, or None:
    - "common_given_names_only": every matched listed word a common given name or a short syllable, and something left
      unmatched on either side (`unmatched_query`: a query word other than a misspelt title or legal form), or, with
      `complete`, even with nothing left;
    - "common_names_only": every matched listed word a common given name, a common surname or a short syllable, and a
      listed word missing: "Mariam Saleh" is not "SALEH, Mariam Mahmoud", nor "Abdullah Saleh" "SALEH, Ali Abdullah"
      (the listed person's father's name, or his father). A rare listed word matched lifts both.
    A listed word romanised from an abjad (`lossy`: the UN list's original-script names, written without short vowels)
    is common when its sound key, of three classes or more, is a common Arabic name's ("abrahym" is Ibrahim's, "amry"
    Omar's)."""
    if not aligned:
        return None
    matched = [listed[l_position] for _q, l_position, _v, _h in aligned]
    if all(_is_common(word, COMMON_GIVEN_NAMES, _GIVEN_KEYS, lossy) for word in matched) and (
            complete or len(aligned) < len(listed) or unmatched_query):
        return "common_given_names_only"
    if len(aligned) < len(listed) and all(_is_common(word, COMMON_NAMES, _COMMON_KEYS, lossy) for word in matched):
        return "common_names_only"
    return None


def _is_common(word: str, names: frozenset[str], keys: frozenset[str], lossy: frozenset[str]) -> bool:
    return word in names or len(word) <= SHORT_WORD or (word in lossy and sound_keys(word)[0] in keys)


def _arabic_keys(names: frozenset[str]) -> frozenset[str]:
    """The anchored sound keys of three classes or more of common Arabic names: what an original-script listed word is
    compared with. Two classes ("mt", "tr") meet too many rare words ("dhwahry", Zawahiri, would meet "traore")."""
    return frozenset(key for key in (sound_keys(word)[0] for word in names) if len(key) >= 3)


_GIVEN_KEYS = _arabic_keys(ARABIC_GIVEN_NAMES)
_COMMON_KEYS = _arabic_keys(ARABIC_GIVEN_NAMES | ARABIC_SURNAMES)


def _family_as_given(aligned, query: tuple[str, ...], listed: tuple[str, ...], similarities: Similarities) -> bool:
    """An Arabic-script query marks a family name with the article ("أحمد الحسن", Ahmad al-Hasan) and that word met a
    Latin listed word: the Latin name cannot say whether its "Hasan" is a given name or a family name ("AHMAD, Hasan"
    is Hasan son or family of Ahmad), so a name of common given names is common given names alone even fully matched."""
    return bool(similarities.family) and any(query[q] in similarities.family and listed[l_position] not in similarities.lossy
                                             for q, l_position, _v, _h in aligned)


def _known(weight) -> frozenset | dict:
    """The vocabulary behind a `weight` callable, when it is a TokenWeights lookup (else nothing is known)."""
    return getattr(weight, "__self__", None) if isinstance(getattr(weight, "__self__", None), dict) else frozenset()


def _breaks(tokens: tuple[str, ...]) -> list[int]:
    positions, total = [], 0
    for token in tokens[:-1]:
        total += len(token)
        positions.append(total)
    return positions


def compact_possible(query: tuple[str, ...], query_length: int, listed: tuple[str, ...], listed_length: int) -> bool:
    """False when the joined lengths alone rule a compact match out (the matcher asks before calling score_compact)."""
    length = query_length if query_length > listed_length else listed_length
    allowed = min(2 if len(query) != len(listed) else 1 if length >= COMPACT_EDIT_LENGTH else 0, length // 6)
    return abs(query_length - listed_length) <= allowed


def score_compact(query: tuple[str, ...], listed: tuple[str, ...]) -> float:
    """Similarity of the names with the spaces removed, 0 beyond the typo allowance (see the module
    docstring): in the query's order, and with its first or last word moved to the other end (a
    surname written first or last); only where the word breaks differ from the listed name's."""
    if not query or not listed:
        return 0.0
    query_length, listed_length = sum(map(len, query)), sum(map(len, listed))
    if not compact_possible(query, query_length, listed, listed_length):
        return 0.0
    length = max(query_length, listed_length)
    # With as many words on both sides, an edit besides the moved break only in a long name: otherwise
    # "gao yang" would pass for "yan gao" and "jose rodriguez" for "jorge rodriguez".
    allowed = min(2 if len(query) != len(listed) else 1 if length >= COMPACT_EDIT_LENGTH else 0, length // 6)
    if abs(query_length - listed_length) > allowed:
        return 0.0
    joined_listed = "".join(listed)
    listed_breaks = _breaks(listed)
    orders = [query] if len(query) < 2 else [query, (*query[1:], query[0]), (query[-1], *query[:-1])]
    best = 0.0
    for order in orders:
        joined_query = "".join(order)
        if query_length == listed_length and _breaks(order) == listed_breaks:
            continue  # the same words: the token score decides
        if joined_query == joined_listed:
            return 1.0
        if allowed:
            edits = OSA.distance(joined_query, joined_listed, score_cutoff=allowed)
            if edits <= allowed:
                best = max(best, 1.0 - TYPO_COST * edits / length)
    return best
