"""Screening a name or a wallet address against the loaded sanctions lists.

    screen_name(name, *, kind=None, date_of_birth=None, country=None, limit=10, min_score=None, sources=None) -> list[Hit]
    screen_address(address, *, chain_id=None, sources=None) -> list[Hit]

Both read the process's in-memory index (onboarding.screening.index) and never query the database
per call. A name is normalised (normalize.py), candidate listed names are found through the
index's blocking keys, the most promising are scored in full (scoring.py), the best name of each
listed entry is kept, a weak alias is capped at 0.9 of its score, and date of birth / country /
kind move the score a little (evidence.py). Hits come back best first, one per listed entry.

`sources` (a set of SanctionsList sources; None = every loaded list) keeps to the entries of those
lists: names of the other lists are dropped as candidates are gathered, before they are ranked and
cut to CANDIDATE_LIMIT, so a list left out can never push the chosen lists' names out.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from datetime import date

from onboarding.sanctions.addresses import canonical_address
from onboarding.screening.evidence import BUSINESS, INDIVIDUAL, largest_raise, party_kind, weigh_evidence
from onboarding.screening.index import EntryRecord, NameRecord, ScreeningIndex, get_index
from onboarding.screening.normalize import (
    INDIVIDUAL_PARTY,
    ORGANIZATION_PARTY,
    article_family_names,
    is_abjad,
    is_han,
    name_tokens,
    shifted_readings,
    unreadable_letters,
)
from onboarding.screening.scoring import (
    MAJOR_SHARE_INDIVIDUAL,
    MAJOR_SHARE_ORGANIZATION,
    NameScore,
    Similarities,
    compact_possible,
    score_bound,
    score_compact,
    score_tokens,
)
from onboarding.screening.thresholds import FAIL, PASS, REVIEW, fail_threshold, report_threshold, review_threshold

# Listed names scored in full per query, after ranking all candidates by what their tokens can explain.
CANDIDATE_LIMIT = 60
# A weak alias ("a.k.a. 'BNC'", UN quality "Low") is too generic to be a confident match on its own.
WEAK_ALIAS_FACTOR = 0.90
# What a query token that may have lost or gained a letter across a word break adds to a name's candidate
# rank (its score comes from scoring.score_compact).
BREAK_SHIFT_GAIN = 0.5
# Below the reporting threshold less the evidence's largest raise by more than this, a listed name is not scored in full
# (scoring.score_bound): a hit's score is rounded to 4 places, and float sums differ by far less.
BOUND_MARGIN = 1e-4
# A query token shorter than this (an initial) does not look names up; it only scores.
MIN_BLOCKING_LENGTH = 2


class ListsNotLoaded(RuntimeError):
    """No sanctions list is loaded: screening cannot say 'pass' (run `manage.py load_sanctions`)."""


class UnscreenableName(ValueError):
    """The name has letters but none the normaliser can read (no transliteration at all, which the
    library leaves to very few scripts): no hits would mean 'not screened', not 'pass'. The entity
    screening records it as `review` with this reason for an analyst."""


@dataclass(frozen=True)
class Hit:
    score: float
    outcome: str  # pass | review | fail, by the thresholds in force
    source: str  # the list: ofac_sdn, un_consolidated, ofac_consolidated, us_csl, bis_dpl, eu_fsf, uk_sanctions, os_<dataset>
    entry_id: str  # SanctionsEntry.pk (stable while the entry stays on the list)
    entry_uid: str  # the publisher's id (OFAC ent_num, UN DATAID, EU logicalId, UK UniqueID, ...), or one derived where none
    entry_kind: str
    primary_name: str
    matched_name: str  # the listed name that matched (primary, alias, ...), as listed
    name_kind: str  # primary | alias | weak_alias | original_script | digital_address
    method: str  # exact | reordered | token_set | initials | compact | exact_address
    matched_fields: tuple[str, ...]
    entry_version_hash: str
    explanation: dict = field(default_factory=dict)  # JSON-serialisable, for the check's details
    matched_address: str = ""

    def as_dict(self) -> dict:
        data = asdict(self)
        data["matched_fields"] = list(self.matched_fields)
        return data


def _candidates(index: ScreeningIndex, tokens: tuple[str, ...], similarities: Similarities, mask: bytes | None = None) -> list[int]:
    """The forms (distinct token sequences of listed names, ScreeningIndex.forms) most worth scoring: ranked by the
    weighted share of the query their tokens can match, then by closeness of length.

    Rare query tokens go first; a broad token (in hundreds of forms) then only adds to forms
    already reached, unless nothing was reached yet. That keeps "Mohammed X" from walking every
    Mohammed on the lists while still finding them all for a bare "Mohammed". A name listed on several
    lists (SDN, the CSL, the UN list) is one form: it takes one place among the CANDIDATE_LIMIT, not one per list,
    so twenty listed "MOHAMMED, Ali" leave room for the one the query really spells.

    With a `mask` (ScreeningIndex.form_mask) only the forms of names it marks are gathered at all, so the
    ranking and the limit see the chosen lists' names alone.
    """
    explained: dict[int, float] = {}
    weights = index.weights
    postings = index.form_postings
    for token in sorted(blocking_tokens(tokens), key=lambda token: (-weights[token], token)):
        best: dict[int, float] = {}
        for listed, gain in _token_gains(index, token, similarities):
            members = index.broad.get(listed)
            if members is not None and explained:
                reach = [form for form in explained if form in members]  # masked already
            elif mask is None:
                reach = postings[listed]
            else:
                reach = [form for form in postings[listed] if mask[form]]
            for form in reach:
                if gain > best.get(form, 0.0):
                    best[form] = gain
        for form, gain in best.items():
            explained[form] = explained.get(form, 0.0) + gain
    size, sizes = len(tokens), index.form_sizes
    # Ties go to the earlier form (forms are numbered in the lists' own order), not to the order of a set.
    return heapq.nlargest(CANDIDATE_LIMIT, explained, key=lambda form: (explained[form] - 0.05 * abs(sizes[form] - size), -form))


def _token_gains(index: ScreeningIndex, token: str, similarities: Similarities) -> tuple[tuple[str, float], ...]:
    """The vocabulary tokens `token` reaches (index.similar_tokens) with what each adds to a form's candidate rank: its
    similarity (BREAK_SHIFT_GAIN for a letter moved across a word break) times its weight, or times `token`'s own weight
    when that is less and the lists know `token`. A pure function of the token,
    the index and the query's script (Similarities' flags), kept in the index (ScreeningIndex.gains_of) across
    screenings: customers' names share most of their words."""
    key = (token, similarities.abjad, similarities.syllabic)
    kept = similarities.lossy is index.lossy_tokens and similarities.native is index.native_tokens
    found = index.gains_of(key) if kept else None
    if found is None:
        weights = index.weights
        # A word the lists know adds at most its own weight through any listed word: "muhammad" must not count as the
        # rarer "mohamad" it resembles, or the forms spelling the variants outrank the listed "'ALI, Muhammad" itself.
        ceiling = weights[token] if token in weights else float("inf")
        gains = []
        for listed in index.similar_tokens(token):
            value, _how = similarities[token, listed]
            if value <= 0:
                if abs(len(token) - len(listed)) != 1 or not _break_shifted(token, listed):
                    continue
                value = BREAK_SHIFT_GAIN
            gains.append((listed, value * min(weights[listed], ceiling)))
        found = tuple(gains)
        if kept:
            index.keep_gains(key, found)
    return found


def _break_shifted(token: str, listed: str) -> bool:
    """With one letter more or less (the caller checks the lengths), the same word at either end: perhaps a letter
    moved across a word break ("jon" / "jong")."""
    return (token.startswith(listed) or listed.startswith(token) or token.endswith(listed) or listed.endswith(token))


def query_tokens(name: str, *, kind: str | None = None) -> tuple[str, ...]:
    """The normalised tokens `screen_name` screens for `name` of this `kind`: surname first only for
    an individual written with a comma ("PUTIN, Vladimir"); legal forms dropped only from an
    organization's name, or one of unknown kind (normalize.name_tokens)."""
    return name_tokens(name or "", individual=query_individual(name, kind), party=query_party(kind))


def query_party(kind: str | None) -> str | None:
    """normalize's party for a screening's `kind`: individual, organization or None (not known)."""
    return {INDIVIDUAL: INDIVIDUAL_PARTY, BUSINESS: ORGANIZATION_PARTY}.get(party_kind(kind))


def query_individual(name: str | None, kind: str | None) -> bool:
    """An individual's name written with a comma, surname first ("PUTIN, Vladimir")."""
    return query_party(kind) == INDIVIDUAL_PARTY and "," in (name or "")


def readings(name: str, tokens: tuple[str, ...], kind: str | None, index: ScreeningIndex) -> tuple[tuple[str, ...], ...]:
    """What `screen_name` screens for `name` (its `tokens`, query_tokens): the name as written; any reading with a letter
    moved back across a word break into or out of a legal form or title (normalize.shifted_readings: the noise words are
    gone before score_compact could repair that break); and any reading with a letter moved across a break between a word
    the lists do not know and its neighbour where that makes two listed words ("AbdulH ADI" as "abdul hadi"): score_compact
    repairs such a break, but when both words are common ("Abdul", "Mohammad") the listed name may rank below the
    CANDIDATE_LIMIT names that share the common word. The re-screening pre-filter (rescreen.py) reads the same."""
    shifted = shifted_readings(name or "", individual=query_individual(name, kind), party=query_party(kind))
    return (tokens, *shifted, *(reading for reading in _break_readings(tokens, index) if reading not in shifted))


def _break_readings(tokens: tuple[str, ...], index: ScreeningIndex) -> list[tuple[str, ...]]:
    vocabulary = index.form_postings
    found: list[tuple[str, ...]] = []
    for position in range(len(tokens) - 1):
        left, right = tokens[position], tokens[position + 1]
        if left in vocabulary and right in vocabulary:
            continue  # two listed words: the break is where the lists have it
        for moved in ((left[:-1], left[-1] + right), (left + right[0], right[1:])):
            if min(map(len, moved)) >= 2 and moved[0] in vocabulary and moved[1] in vocabulary:
                reading = (*tokens[:position], *moved, *tokens[position + 2:])
                if reading not in found:
                    found.append(reading)
    return found


def blocking_tokens(tokens) -> set[str]:
    """The query tokens that look listed names up in the index: an initial reaches too many names to block on.
    A listed name is a candidate only through one of these (see `_candidates`)."""
    blocking = {token for token in tokens if len(token) >= MIN_BLOCKING_LENGTH}
    # A name of initials alone ("B. S. Company", the legal form dropped) blocks on them: nothing else can reach it.
    return blocking or set(tokens)


def _score_form(tokens: tuple[str, ...], form: int, index: ScreeningIndex, similarities: Similarities, query_length: int,
                query_weights: tuple[float, ...], cutoff: float) -> float | None:
    """The score of a form (ScreeningIndex.forms) before a weak alias's factor: what every name of that form scores (a listed
    person and a listed organization share 0.5 alike, scoring.MAJOR_SHARE_*, so the entry's kind does not enter).
    None when the form surely scores under `cutoff` (scoring.score_bound; a form whose word breaks may differ from the
    query's is always scored): none of its names could be reported, so its exact score does not matter."""
    listed = index.forms[form]
    compact = compact_possible(tokens, query_length, listed, index.form_lengths[form])
    if not compact and score_bound(tokens, listed, query_weights=query_weights, listed_weights=index.form_weights[form],
                                   missing_total=index.form_missing_totals[form], similarities=similarities,
                                   major_share=MAJOR_SHARE_INDIVIDUAL) < cutoff:
        return None
    scored = score_tokens(tokens, listed, weight=index.weights.__getitem__, similarities=similarities, major_share=MAJOR_SHARE_INDIVIDUAL,
                          explain=False, listed_weights=index.form_weights[form], listed_missing=index.form_missing[form],
                          unmatched_weight=index.weights.unmatched).score
    if compact:
        scored = max(scored, score_compact(tokens, listed))
    return scored


def _score_name(tokens: tuple[str, ...], position: int, index: ScreeningIndex, similarities: Similarities, *,
                explain: bool = True, query_length: int | None = None) -> NameScore:
    """The score of the listed name at `position`; with `explain=False` the score alone (scoring.score_tokens), to rank.
    `query_length`: the query's letters, counted once per screening."""
    name = index.names[position]
    if query_length is None:
        query_length = sum(map(len, tokens))
    individual = index.entries[name.entry].kind == "individual"
    share = MAJOR_SHARE_INDIVIDUAL if individual else MAJOR_SHARE_ORGANIZATION
    scored = score_tokens(tokens, name.tokens, weight=index.weights.__getitem__, similarities=similarities, major_share=share,
                          explain=explain, unmatched_weight=index.weights.unmatched)
    listed_length = index.name_lengths[position]
    compact = score_compact(tokens, name.tokens) if compact_possible(tokens, query_length, name.tokens, listed_length) else 0.0
    if compact > scored.score:
        scored.score, scored.method = compact, "compact"
        scored.notes = {"word_breaks_repaired": True}
    if name.kind == "weak_alias":
        scored.score *= WEAK_ALIAS_FACTOR
    return scored


def _explain(query: str, tokens, entry: EntryRecord, name: NameRecord, scored: NameScore, adjustments, score, context) -> dict:
    info = context["lists"].get(entry.source)
    matched_fields = ["name", *(a.field for a in adjustments if a.finding in ("match", "year_match"))]
    return {
        "list": entry.source,
        "list_version": info.version if info else "",
        "list_content_hash": info.content_hash if info else "",
        "entry_id": entry.id,
        "entry_uid": entry.uid,
        "entry_reference": entry.reference,
        "entry_kind": entry.kind,
        "entry_version_hash": entry.version_hash,
        "primary_name": entry.primary_name,
        "programs": list(entry.programs),
        "matched_name": name.name,
        "name_kind": name.kind,
        "method": scored.method,
        "query": {"name": query, "normalized": " ".join(tokens)},
        "listed_normalized": " ".join(name.tokens),
        "token_matches": [asdict(match) for match in scored.matches],
        "unmatched_query_tokens": scored.unmatched_query,
        "unmatched_listed_tokens": scored.unmatched_listed,
        "reordered": scored.reordered,
        "rules": scored.notes,
        "name_score": round(scored.score, 4),
        "weak_alias_factor": WEAK_ALIAS_FACTOR if name.kind == "weak_alias" else None,
        "adjustments": [adjustment.as_dict() for adjustment in adjustments],
        "matched_fields": matched_fields,
        "score": score,
        "outcome": _outcome(score, context["thresholds"]),
        "thresholds": dict(context["thresholds"]),
    }


def _outcome(score: float, thresholds: dict) -> str:
    return FAIL if score >= thresholds["fail"] else REVIEW if score >= thresholds["review"] else PASS


def _context(index: ScreeningIndex) -> dict:
    """What every hit of one call shares: the lists, and the thresholds read once from settings."""
    return {"lists": index.lists, "thresholds": {"review": review_threshold(), "fail": fail_threshold()}}


def _hit(query, tokens, entry: EntryRecord, name: NameRecord, scored: NameScore, adjustments, score: float, context) -> Hit:
    explanation = _explain(query, tokens, entry, name, scored, adjustments, score, context)
    return Hit(
        score=score, outcome=explanation["outcome"], source=entry.source, entry_id=entry.id, entry_uid=entry.uid, entry_kind=entry.kind,
        primary_name=entry.primary_name, matched_name=name.name, name_kind=name.kind, method=scored.method,
        matched_fields=tuple(explanation["matched_fields"]), entry_version_hash=entry.version_hash, explanation=explanation,
    )


def _loaded_index(index: ScreeningIndex | None, sources: frozenset[str] | None = None) -> ScreeningIndex:
    index = index or get_index()
    if not index.lists:
        raise ListsNotLoaded("no sanctions list is loaded; run `manage.py load_sanctions`")
    if sources is not None and not index.lists.keys() & sources:
        chosen = ", ".join(sorted(sources)) or "none"
        raise ListsNotLoaded(f"none of the lists to screen against is loaded (chosen: {chosen})")
    return index


def screen_name(
    name: str,
    *,
    kind: str | None = None,
    date_of_birth: date | None = None,
    country: str | None = None,
    jurisdiction: str | None = None,
    limit: int = 10,
    min_score: float | None = None,
    sources: frozenset[str] | None = None,
    index: ScreeningIndex | None = None,
    among: Collection[int] | None = None,
) -> list[Hit]:
    """Hits for `name` at or above `min_score` (default REPORT_THRESHOLD), best first, one per entry.

    `kind` is 'individual' or 'business' (also 'entity', 'company', ...); `country` the person's
    nationality (ISO alpha-2 or a country name); `jurisdiction` a business's country of registration,
    which only ever raises a score (evidence.py); `sources` the lists to screen against (None: every
    loaded list). Any script is read (normalize.fold). Raises ListsNotLoaded when no list (none of
    `sources`) is loaded, and UnscreenableName for a name whose letters have no transliteration at
    all (the caller records it for an analyst: never a pass, never an error).

    `among`: score these listed names (positions in `index.names`) instead of the candidates the
    blocking keys lead to, all of them, with no CANDIDATE_LIMIT. Scores and evidence are those of a
    full screening, so every hit a full screening finds on an entry whose names reachable by the
    blocking keys are all in `among` is found too (the re-screening pre-filter relies on that).
    """
    index = _loaded_index(index, sources)
    floor = report_threshold() if min_score is None else min_score
    # A name scoring under this cannot be reported whatever the evidence adds (BOUND_MARGIN: the hit's score is rounded).
    cutoff = floor - largest_raise(date_of_birth=date_of_birth, country=country, jurisdiction=jurisdiction) - BOUND_MARGIN
    tokens = query_tokens(name, kind=kind)
    if not tokens:
        if unreadable_letters(name):
            raise UnscreenableName(f"cannot read the letters of {name!r}; screen a romanised form of the name")
        return []
    similarities = Similarities(abjad=is_abjad(name), lossy=index.lossy_tokens, native=index.native_tokens, syllabic=is_han(name),
                                family=article_family_names(name))
    best: dict[int, tuple[float, NameRecord, int, tuple[str, ...]]] = {}
    mask = index.name_mask(sources)
    form_mask = index.form_mask(sources)
    if among is not None:
        wanted: dict[int, list[int]] = {}
        for position in sorted(among):
            if mask is None or mask[position]:
                wanted.setdefault(index.form_of[position], []).append(position)
    for reading in readings(name, tokens, kind, index):
        if among is None:
            forms = [(form, index.form_names[form]) for form in _candidates(index, reading, similarities, form_mask)]
        else:
            forms = list(wanted.items())
        query_length = sum(map(len, reading))
        query_weights = tuple(index.weights.unmatched(token) for token in reading)
        for form, positions in forms:
            form_score = _score_form(reading, form, index, similarities, query_length, query_weights, cutoff)
            if form_score is None:
                continue
            for position in positions:
                if mask is not None and not mask[position]:
                    continue
                listed = index.names[position]
                score = form_score * WEAK_ALIAS_FACTOR if listed.kind == "weak_alias" else form_score
                kept = best.get(listed.entry)
                # Of an entry's names, the best; of equals, the first in the index (the same name in every process).
                if kept is None or score > kept[0] or (score == kept[0] and position < kept[2]):
                    best[listed.entry] = (score, listed, position, reading)
    hits = []
    context = _context(index)
    written = tokens
    for entry_position, (name_score, listed, position, tokens) in best.items():
        if name_score < cutoff:
            continue  # under the floor whatever the evidence adds
        entry = index.entries[entry_position]
        adjustments = weigh_evidence(entry, kind=kind, date_of_birth=date_of_birth, country=country, jurisdiction=jurisdiction,
                                     name_score=name_score, review=context["thresholds"]["review"])
        score = round(min(1.0, max(0.0, name_score + sum(adjustment.effect for adjustment in adjustments))), 4)
        if score >= floor:  # explained in full only now: the same score, with the token matches
            explained = _score_name(tokens, position, index, similarities)
            if tokens != written:  # a shifted reading: the break moved back next to a legal form or title
                explained.notes = {**explained.notes, "word_breaks_repaired": True}
            hits.append(_hit(name, tokens, entry, listed, explained, adjustments, score, context))
    hits.sort(key=lambda hit: (-hit.score, hit.source, hit.entry_uid))
    return hits[:limit]


def screen_address(address: str, *, chain_id: int | None = None, sources: frozenset[str] | None = None,
                   index: ScreeningIndex | None = None) -> list[Hit]:
    """Hits (score 1.0) for a wallet address equal to a listed digital-currency address.

    EVM (0x) and bech32 addresses compare case-insensitively, and any address on an EVM chain
    (`chain_id` > 0); other addresses (base58) compare exactly. `sources` as for screen_name.
    Raises ListsNotLoaded.
    """
    index = _loaded_index(index, sources)
    key = canonical_address(address, chain_id=chain_id)
    context = _context(index)
    by_entry: dict[int, list] = {}
    for record in index.addresses.get(key, []) if key else []:
        if sources is not None and index.entries[record.entry].source not in sources:
            continue
        by_entry.setdefault(record.entry, []).append(record)  # one address may be listed under several labels
    for records in by_entry.values():
        records.sort(key=lambda record: record.currency)
    return [_address_hit(address, chain_id, key, index.entries[position], records, context) for position, records in by_entry.items()]


def _address_hit(address: str, chain_id: int | None, key: str, entry: EntryRecord, records: list, context) -> Hit:
    info = context["lists"].get(entry.source)
    explanation = {
        "list": entry.source, "list_version": info.version if info else "", "list_content_hash": info.content_hash if info else "",
        "entry_id": entry.id, "entry_uid": entry.uid, "entry_reference": entry.reference, "entry_kind": entry.kind,
        "entry_version_hash": entry.version_hash, "primary_name": entry.primary_name, "programs": list(entry.programs),
        "query": {"address": address, "chain_id": chain_id, "normalized": key},
        "currency": records[0].currency, "currencies": sorted(record.currency for record in records),
        "listed_address": records[0].address_as_listed, "method": "exact_address",
        "matched_fields": ["digital_currency_address"], "score": 1.0, "outcome": _outcome(1.0, context["thresholds"]),
        "thresholds": dict(context["thresholds"]),
    }
    return Hit(
        score=1.0, outcome=explanation["outcome"], source=entry.source, entry_id=entry.id, entry_uid=entry.uid,
        entry_kind=entry.kind, primary_name=entry.primary_name, matched_name=entry.primary_name, name_kind="digital_address",
        method="exact_address", matched_fields=("digital_currency_address",), entry_version_hash=entry.version_hash,
        explanation=explanation, matched_address=records[0].address_as_listed,
    )
