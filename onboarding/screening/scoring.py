"""Name-against-name scoring: pure functions over normalised tokens, no index, no database.

Token similarity (`token_similarity`), per pair of tokens:
- equal -> 1.0 ("exact");
- a single letter against a word it begins ("V" / "Vladimir") -> 0.8 ("initial");
- within the typo allowance (optimal string alignment distance: 0 edits for tokens of up to 4
  letters, 1 for 5-7 letters, 2 for 8+), 1 - 0.6 * edits / length, less 0.05 when the first
  letters differ ("typo": "vladimr" 0.93, "putn" 0.88, "tamas" for "hamas" 0.83);
- the same phonetic key (normalize.phonetic_key) and fewer than half the letters edited -> 0.80
  ("phonetic": "mohamed" / "muhammad"); for Arabic-script queries the spelling test is waived,
  because transliterating an abjad drops the short vowels ("hsyn" / "hussein").
Anything else is 0: "smith" and "smithson" are different names.

Name score (`score_tokens`): tokens are aligned one-to-one, best pairs first, whatever their order.
Each token weighs its inverse document frequency in the lists (the index supplies `weight`), so a
match on "zawahiri" counts for more than a match on "mohammed". Then
    coverage_query  = weighted share of the query explained by its aligned tokens
    coverage_listed = weighted share of the listed name explained
    score = share * max(coverages) + (1 - share) * min(coverages)
with share 0.6 for a listed person and 0.5 for a listed organization. A full match of both sides
scores 1.0 in any word order. When one side has extra tokens (a patronymic, a second surname, a
middle name the customer gave) the fully explained side carries the score and the other side's
shortfall costs up to 0.4: "Anton Andreyev" against "ANDREYEV, Anton Nikolaeyvich" stays at 0.86,
while "Maria Garcia" against "GAXIOLA GARCIA, Maria Elena" falls to 0.78. An organization's name
is a distinctive part plus generic words, and customers do not drop words of it the way people
drop patronymics, so for organizations the uncovered side counts for half: "Pacific Shipping
Company" against "PACIFIC OCEAN SHIPPING LIMITED" stays under review.

`score_compact` compares the names with spaces removed, for words split or joined differently
("bin laden" / "binladen"), with the same typo allowance per 6 characters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rapidfuzz.distance import OSA

from onboarding.screening.normalize import phonetic_key

PHONETIC_SIMILARITY = 0.80
INITIAL_SIMILARITY = 0.8
TYPO_COST = 0.6
FIRST_LETTER_COST = 0.05
# How much the better-covered side carries, for a listed person and for a listed organization
# (or vessel, aircraft). See the module docstring.
MAJOR_SHARE_INDIVIDUAL = 0.60
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


def typo_allowance(length: int) -> int:
    return 0 if length <= 4 else 1 if length <= 7 else 2


def token_similarity(query: str, listed: str, *, abjad: bool = False) -> tuple[float, str]:
    if query == listed:
        return 1.0, "exact"
    if len(query) == 1 or len(listed) == 1:
        short, long_ = (query, listed) if len(query) == 1 else (listed, query)
        return (INITIAL_SIMILARITY, "initial") if len(long_) > 1 and long_.startswith(short) else (0.0, "")
    length = max(len(query), len(listed))
    edits = OSA.distance(query, listed)
    similarity, how = 0.0, ""
    if edits <= typo_allowance(length):
        # A different first letter is rarely a slip of the keyboard ("hamas" / "tamas").
        similarity, how = 1.0 - TYPO_COST * edits / length - (FIRST_LETTER_COST if query[0] != listed[0] else 0.0), "typo"
    if similarity < PHONETIC_SIMILARITY and (abjad or edits / length < 0.5):
        sound = phonetic_key(query)
        if len(sound) >= 2 and sound == phonetic_key(listed):
            similarity, how = PHONETIC_SIMILARITY, "phonetic"
    return similarity, how


class Similarities(dict):
    """token_similarity of (query token, listed token) pairs, computed on first use and kept: one
    screening compares the same few query tokens with many listed names that share tokens.

        similarities = Similarities(abjad=False)
        value, how = similarities["vladimr", "vladimir"]
    """

    def __init__(self, *, abjad: bool = False):
        super().__init__()
        self.abjad = abjad

    def __missing__(self, pair: tuple[str, str]) -> tuple[float, str]:
        found = self[pair] = token_similarity(pair[0], pair[1], abjad=self.abjad)
        return found


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
) -> NameScore:
    """Score two token sequences 0-1 (see the module docstring). With `explain=False` only the score and
    the coverages are filled in (the same numbers, without the token matches a hit shows): what a
    screening needs to rank its candidates, most of which never become hits."""
    if similarities is None:
        similarities = Similarities()
    if not query or not listed:
        return NameScore(0.0, "none", unmatched_query=list(query), unmatched_listed=list(listed))
    aligned = _align(query, listed, similarities)
    matched_q = {q for q, _l, _v, _h in aligned}
    matched_l = {listed_position for _q, listed_position, _v, _h in aligned}
    # An aligned pair weighs what the listed token weighs on both sides: a misspelt query token
    # is not in the vocabulary, and would otherwise look rarer than the word it misspells.
    listed_weights = [weight(token) for token in listed]
    explained = sum(listed_weights[l_position] * value for _q, l_position, value, _h in aligned)
    pair_weight = sum(listed_weights[l_position] for _q, l_position, _v, _h in aligned)
    query_total = pair_weight + sum(weight(token) for position, token in enumerate(query) if position not in matched_q)
    listed_total = pair_weight + sum(listed_weights[position] for position in range(len(listed)) if position not in matched_l)
    coverage_query = explained / query_total if query_total else 0.0
    coverage_listed = explained / listed_total if listed_total else 0.0
    score = major_share * max(coverage_query, coverage_listed) + (1 - major_share) * min(coverage_query, coverage_listed)
    if not explain:
        return NameScore(score=score, method="", coverage_query=coverage_query, coverage_listed=coverage_listed)
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
        unmatched_query=[token for position, token in enumerate(query) if position not in matched_q],
        unmatched_listed=[token for position, token in enumerate(listed) if position not in matched_l],
        reordered=reordered, coverage_query=coverage_query, coverage_listed=coverage_listed,
    )


def score_compact(query: tuple[str, ...], listed: tuple[str, ...]) -> float:
    """Similarity of the names with the spaces removed (in order), 0 beyond the typo allowance.

    Only for names split into a different number of words: where the words line up, the token
    score already says it, and a whole-string typo allowance would let "turin" pass for "putin".
    """
    if len(query) == len(listed):
        return 0.0
    joined_query, joined_listed = "".join(query), "".join(listed)
    if joined_query == joined_listed:
        return 1.0 if joined_query else 0.0
    length = max(len(joined_query), len(joined_listed))
    allowed = min(2, length // 6)
    if allowed == 0:
        return 0.0
    edits = OSA.distance(joined_query, joined_listed, score_cutoff=allowed)
    return 0.0 if edits > allowed else 1.0 - TYPO_COST * edits / length
