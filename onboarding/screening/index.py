"""The in-memory screening index: every listed name, blocked by token, typo and sound.

Why in memory: scoring a name against ~30,000 listed names one by one takes hundreds of
milliseconds; looking up a handful of keys and scoring the few dozen names they lead to takes a
millisecond or two. The index is derived from the database only, so every process (web, worker)
builds the same one, and a list loaded by another process reaches this one at the next freshness
check: at most every `INDEX_CHECK_SECONDS` one small query compares the lists' content hashes and
load times with those the index was built from, and rebuilds it (about a second) if they differ.
Nothing here queries the database per screening call.

Blocking keys, per vocabulary token (a distinct normalised token of some listed name):
- the token itself;
- its single-character deletions, for tokens of 3+ letters (SymSpell): a query token that is one
  edit away (insert, delete, substitute, transpose) from a listed token shares one of these keys;
- its two sound keys (normalize.sound_keys), for spelling variants further apart: the anchored key
  ("mohammed"/"muhammad", an Arabic-script "hsyn"/"hussein") and the consonant skeleton of 3+
  classes, which does not depend on the first letter ("omar"/"umar", "yusuf"/"usuf").
A name is a candidate when one of its tokens is reached; the matcher ranks candidates by how much
of the query they can explain and scores only the best few in full.
"""

from __future__ import annotations

import math
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field

from anyascii import anyascii

from onboarding.screening.common_names import COMMON_NAMES
from onboarding.screening.normalize import INDIVIDUAL_PARTY, ORGANIZATION_PARTY, is_abjad, name_tokens, near_noise, noise_word, sound_keys
from onboarding.screening.scoring import missing_weights, script_letter_deletions

# How often a process re-checks that its index matches the lists in the database. Settings may
# override it (SANCTIONS_INDEX_CHECK_SECONDS); a reload reaches every process within this time.
INDEX_CHECK_SECONDS = 30.0
DELETE_MIN_LENGTH = 3
# A word the lists do not know weighs as much as a word in this many listed names (see _idf).
UNSEEN_AS_IF_IN = 20
# A query word that may be a misspelt title, particle or legal form (normalize.near_noise), when it meets nothing in a
# listed name, weighs at most as a word in this many listed names: about what "Mohammed" weighs.
NOISE_AS_IF_IN = 1000
# Query words whose TokenWeights.unmatched weight is kept (cleared when full, as ScreeningIndex's other caches).
UNMATCHED_KEPT = 100_000
# A token in more names than this ("mohammed", "trading") is "broad": the matcher lets it add to
# candidates reached through a rarer token instead of enumerating all of its names.
BROAD_POSTINGS = 300
# Query tokens whose similar vocabulary tokens an index keeps (ScreeningIndex.similar_tokens).
SIMILAR_KEPT = 100_000
# Name masks kept per index (one per distinct set of lists screened against; see name_mask).
MASKS_KEPT = 64


@dataclass(frozen=True)
class EntryRecord:
    id: str
    source: str
    uid: str
    reference: str
    kind: str
    primary_name: str
    programs: tuple[str, ...]
    birth_dates: tuple[str, ...]
    countries: frozenset[str]
    version_hash: str


@dataclass(frozen=True)
class NameRecord:
    entry: int  # position in ScreeningIndex.entries
    name: str
    kind: str
    tokens: tuple[str, ...]


@dataclass(frozen=True)
class DigitalAddressRecord:
    entry: int
    currency: str
    address: str
    address_as_listed: str


@dataclass(frozen=True)
class ListInfo:
    source: str
    version: str
    content_hash: str
    loaded_at: str
    entry_count: int
    category: str = "sanctions"  # SanctionsList.category: sanctions | pep


class TokenWeights(dict):
    """Token -> weight, and the weight of a token the lists do not hold (`unseen`) for any other: looked up with
    `weights[token]`, a plain dict read for a listed token (scoring reads it for every token of every candidate)."""

    def __init__(self, items=(), *, unseen: float = 1.0, noise: float | None = None):
        super().__init__(items)
        self.unseen = unseen
        self.noise = unseen if noise is None else noise
        self._unmatched: dict[str, float] = {}

    def __missing__(self, token: str) -> float:
        return self.unseen

    def unmatched(self, token: str) -> float:
        """What a query word that meets no word of a listed name costs that name: its weight, or less for a word that
        may be a misspelt title, particle or legal form (normalize.near_noise) and is not a common given name or surname
        ("Ana" is no "and"): at most `noise` for a word the lists do not know ("FZCE", "OAA") or a noise word itself (a
        legal phrase's word apart from its phrase: "JOINT", "STOCK", "OPEN" in a reordered name), and half-way between
        `noise` and `unseen` for one they know, which is somebody's name somewhere ("Hafaz", "Huji", "Hafez"): a listed
        name that lacks only such a word reaches review when its other words are rare, not when they are common
        ("Hafez Ali Khan" is no "KHAN, Ali")."""
        found = self._unmatched.get(token)
        if found is None:
            if len(self._unmatched) >= UNMATCHED_KEPT:
                self._unmatched.clear()
            found = self[token]
            if found > self.noise and token not in COMMON_NAMES and near_noise(token):
                # A word the lists know is a name somewhere ("Hafez", "Huji"): half-way between a title and an unknown word.
                found = min(found, (self.noise + self.unseen) / 2) if token in self and not noise_word(token) else self.noise
            self._unmatched[token] = found
        return found



@dataclass
class ScreeningIndex:
    signature: tuple
    lists: dict[str, ListInfo] = field(default_factory=dict)
    entries: list[EntryRecord] = field(default_factory=list)
    names: list[NameRecord] = field(default_factory=list)
    addresses: dict[str, list[DigitalAddressRecord]] = field(default_factory=dict)
    postings: dict[str, list[int]] = field(default_factory=dict)  # vocabulary token -> name positions
    deletes: dict[str, list[str]] = field(default_factory=dict)  # deletion key -> vocabulary tokens
    sounds: dict[str, list[str]] = field(default_factory=dict)  # anchored sound key -> vocabulary tokens
    skeletons: dict[str, list[str]] = field(default_factory=dict)  # consonant skeleton -> vocabulary tokens
    lossy_tokens: frozenset[str] = frozenset()  # tokens only names in an abjad spell (normalize.is_abjad)
    native_tokens: frozenset[str] = frozenset()  # tokens any name in an abjad spells (also a Latin word: "agha", "krym")
    weights: TokenWeights = field(default_factory=lambda: TokenWeights())  # vocabulary token -> inverse document frequency
    name_sizes: list[int] = field(default_factory=list)  # token count of each name, for candidate ranking
    name_lengths: list[int] = field(default_factory=list)  # letters of each name, for scoring.compact_possible
    broad: dict[str, frozenset[int]] = field(default_factory=dict)  # tokens in many forms -> their form postings as a set
    # Distinct token sequences ("forms"): the same name on several lists (SDN, the CSL, the UN list, ...) is scored once.
    forms: list[tuple[str, ...]] = field(default_factory=list)  # form id -> tokens
    form_names: list[tuple[int, ...]] = field(default_factory=list)  # form id -> name positions, in index order
    form_of: list[int] = field(default_factory=list)  # name position -> form id
    form_postings: dict[str, list[int]] = field(default_factory=dict)  # vocabulary token -> form ids
    form_sizes: list[int] = field(default_factory=list)  # token count of each form, for candidate ranking
    form_lengths: list[int] = field(default_factory=list)  # letters of each form, for scoring.compact_possible
    # Per form, for scoring.score_tokens and scoring.score_bound: each token's weight and what it costs when missing,
    # and the sum of the latter (read for every candidate of every screening, computed once here).
    form_weights: list[tuple[float, ...]] = field(default_factory=list)
    form_missing: list[tuple[float, ...]] = field(default_factory=list)
    form_missing_totals: list[float] = field(default_factory=list)
    unseen_weight: float = 1.0
    built_seconds: float = 0.0
    _masks: dict[frozenset, bytes] = field(default_factory=dict, repr=False)  # sources -> name_mask
    _similar: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)  # query token -> similar_tokens
    _gains: dict[tuple, tuple] = field(default_factory=dict, repr=False)  # (query token, script flags) -> matcher._token_gains

    def sources_of(self, category: str, sources: frozenset[str] | None = None) -> frozenset[str]:
        """The loaded lists of `category` (sanctions | pep), of `sources` only when given."""
        return frozenset(info.source for info in self.lists.values()
                         if info.category == category and (sources is None or info.source in sources))

    def name_mask(self, sources: frozenset[str] | None) -> bytes | None:
        """None when `sources` takes in every loaded list (nothing to filter); else one byte per listed
        name, 1 where the name's entry is on one of `sources`. Made once per distinct set of lists
        (organizations choose among a handful of lists, so there are few) and kept with the index."""
        if sources is None or self.lists.keys() <= sources:
            return None
        sources = frozenset(sources)
        mask = self._masks.get(sources)
        if mask is None:
            wanted = bytes(entry.source in sources for entry in self.entries)
            mask = bytes(wanted[name.entry] for name in self.names)
            if len(self._masks) >= MASKS_KEPT:
                self._masks.clear()
            self._masks[sources] = mask
        return mask

    def form_mask(self, sources: frozenset[str] | None) -> bytes | None:
        """As name_mask, one byte per form: 1 where one of the form's names is on one of `sources`."""
        names = self.name_mask(sources)
        if names is None:
            return None
        key = ("forms", frozenset(sources))
        mask = self._masks.get(key)
        if mask is None:
            mask = self._masks[key] = bytes(any(names[position] for position in positions) for positions in self.form_names)
        return mask

    def weight(self, token: str) -> float:
        return self.weights[token]

    def similar_tokens(self, token: str) -> frozenset[str]:
        """Vocabulary tokens that may be the same word as `token`: equal, one edit away, or same sound. Kept per token
        (up to SIMILAR_KEPT): customers' names share most of their words, and the lookups are a third of a screening."""
        found = self._similar.get(token)
        if found is None:
            if len(self._similar) >= SIMILAR_KEPT:
                self._similar.clear()
            found = self._similar[token] = frozenset(self._similar_tokens(token))
        return found

    def gains_of(self, key: tuple) -> tuple | None:
        """What matcher._token_gains kept for `key`, or None."""
        return self._gains.get(key)

    def keep_gains(self, key: tuple, gains: tuple) -> None:
        """Keep matcher._token_gains's answer for `key` (up to SIMILAR_KEPT, as similar_tokens)."""
        if len(self._gains) >= SIMILAR_KEPT:
            self._gains.clear()
        self._gains[key] = gains

    def _similar_tokens(self, token: str) -> set[str]:
        found: set[str] = set()
        if token in self.postings:
            found.add(token)
        for key in deletion_keys(token):
            found.update(self.deletes.get(key, ()))
        sound, skeleton = screening_sound_keys(token)
        if sound:
            found.update(self.sounds.get(sound, ()))
        if skeleton:
            found.update(self.skeletons.get(skeleton, ()))
        return found


def deletions(token: str) -> set[str]:
    return {token[:position] + token[position + 1 :] for position in range(len(token))}


def deletion_keys(token: str) -> tuple[str, ...]:
    """The SymSpell keys of a token: itself and its single-character deletions, and (session 23) its deletions of one
    two-letter romanised letter of Arabic or Persian ("dghdagh" -> "ddagh": دغداغ with a letter dropped; a query's own
    token is one of its keys, so "ddagh" meets it); a token of two letters, itself only (so that "gun" meets "un", a
    letter moved across a word break: "jon gun" / "jong un")."""
    if len(token) >= DELETE_MIN_LENGTH:
        return (token, *(deletions(token) | script_letter_deletions(token)))
    return (token,) if len(token) == 2 else ()


def screening_sound_keys(token: str) -> tuple[str, str]:
    """The token's anchored sound key (2+ letters) and consonant skeleton (3+ letters), "" where too short to block on."""
    anchored, skeleton = sound_keys(token)
    return anchored, skeleton if len(skeleton) >= 3 else ""


def blocking_keys(token: str) -> frozenset[str]:
    """Every key the index files `token` under, tagged by kind: "t:" the token, "d:" a deletion key,
    "s:" its anchored sound key, "k:" its consonant skeleton. The relation is symmetric: `similar_tokens(query)` finds a vocabulary token
    exactly when the two tokens' blocking keys meet. The re-screening pre-filter
    (onboarding.screening.rescreen) relies on that to find the customers a changed listed name can reach."""
    keys = {f"t:{token}", *(f"d:{key}" for key in deletion_keys(token))}
    sound, skeleton = screening_sound_keys(token)
    if sound:
        keys.add(f"s:{sound}")
    if skeleton:
        keys.add(f"k:{skeleton}")
    return frozenset(keys)


def _blocking_keys(index: ScreeningIndex) -> None:
    deletes: dict[str, set[str]] = defaultdict(set)
    sounds: dict[str, set[str]] = defaultdict(set)
    skeletons: dict[str, set[str]] = defaultdict(set)
    for token in index.postings:
        for key in deletion_keys(token):
            deletes[key].add(token)
        sound, skeleton = screening_sound_keys(token)
        if sound:
            sounds[sound].add(token)
        if skeleton:
            skeletons[skeleton].add(token)
    index.deletes = {key: sorted(tokens) for key, tokens in deletes.items()}
    index.sounds = {key: sorted(tokens) for key, tokens in sounds.items()}
    index.skeletons = {key: sorted(tokens) for key, tokens in skeletons.items()}


def _forms(index: ScreeningIndex) -> None:
    """Group the names by their tokens: a form is scored once per screening for all the names that share it."""
    ids: dict[tuple[str, ...], int] = {}
    members: list[list[int]] = []
    index.form_of = []
    for position, name in enumerate(index.names):
        form = ids.get(name.tokens)
        if form is None:
            form = ids[name.tokens] = len(members)
            members.append([])
        members[form].append(position)
        index.form_of.append(form)
    index.forms = list(ids)
    index.form_names = [tuple(positions) for positions in members]
    postings: dict[str, list[int]] = defaultdict(list)
    for form, tokens in enumerate(index.forms):
        for token in set(tokens):
            postings[token].append(form)
    index.form_postings = dict(postings)
    index.form_sizes = [len(tokens) for tokens in index.forms]
    index.form_lengths = [sum(map(len, tokens)) for tokens in index.forms]
    index.broad = {token: frozenset(forms) for token, forms in postings.items() if len(forms) > BROAD_POSTINGS}


def _idf(index: ScreeningIndex) -> None:
    """Inverse document frequency over listed names: 'mohammed' weighs less than 'zawahiri'. A word the
    lists do not know (most often a misspelt one) weighs as a word in UNSEEN_AS_IF_IN names, not as the
    rarest word of all: one typo must not sink a name."""
    total = max(len(index.names), 1)
    index.unseen_weight = math.log(1 + total / UNSEEN_AS_IF_IN)
    index.weights = TokenWeights(((token, math.log(1 + total / len(positions))) for token, positions in index.postings.items()),
                                 unseen=index.unseen_weight, noise=math.log(1 + total / NOISE_AS_IF_IN))


def _form_weights(index: ScreeningIndex) -> None:
    index.form_weights = [tuple(index.weights[token] for token in tokens) for tokens in index.forms]
    index.form_missing = [missing_weights(tokens, weights) for tokens, weights in zip(index.forms, index.form_weights, strict=True)]
    index.form_missing_totals = [sum(missing) for missing in index.form_missing]


def build_index_from_rows(signature: tuple, lists: list[ListInfo], entries: list[EntryRecord], names, addresses) -> ScreeningIndex:
    """Build from plain rows: `names` as (entry id, name, kind), `addresses` as (entry id, currency,
    address, as listed). Pure: no database access.

    Listed names are normalised here, by the same code that normalises the queries of this process,
    rather than read from SanctionsName.normalized: after a deploy that changes the normalisation,
    both sides still agree even though the stored column was written by the old code.
    """
    started = time.perf_counter()
    index = ScreeningIndex(signature=signature, lists={info.source: info for info in lists}, entries=list(entries))
    position = {entry.id: number for number, entry in enumerate(index.entries)}
    postings: dict[str, list[int]] = defaultdict(list)
    # Names in their entries' order (list, then the publisher's id), whatever order the rows came in: the
    # candidates of a query are cut at a limit, and ties at the cut go by position, so two databases
    # holding the same lists (with different row ids) must give every name the same position.
    names = sorted((row for row in names if row[0] in position), key=lambda row: (position[row[0]], row[2], row[1]))
    lossy: set[str] = set()
    latin: set[str] = set()
    for entry_id, name, kind in names:
        individual = index.entries[position[entry_id]].kind == "individual"
        tokens = name_tokens(name, individual=individual, party=INDIVIDUAL_PARTY if individual else ORGANIZATION_PARTY)
        if not tokens:
            continue
        forms = [tokens]
        if is_abjad(name):
            # Also as the library romanises it letter for letter, the form a customer copies from a machine
            # romanisation ("mhmd `ly lhbw" for "محمد علي الحبو"): no vowel for the alif, the article kept as "l".
            plain = name_tokens(anyascii(name), individual=individual, party=INDIVIDUAL_PARTY if individual else ORGANIZATION_PARTY)
            if plain and plain != tokens:
                forms.append(plain)
            for form in forms:
                lossy.update(form)
        else:
            latin.update(tokens)
        for form in forms:
            name_position = len(index.names)
            index.names.append(NameRecord(position[entry_id], name, kind, form))
            for token in set(form):
                postings[token].append(name_position)
    index.postings = dict(postings)
    # Only words that no name in another script spells: "sindhi" from an Arabic-script name is also a Latin word,
    # and with the abjad waiver on it any "sunita" would meet it by its consonants.
    index.lossy_tokens = frozenset(lossy - latin)
    index.native_tokens = frozenset(lossy)
    index.name_sizes = [len(name.tokens) for name in index.names]
    index.name_lengths = [sum(map(len, name.tokens)) for name in index.names]
    _forms(index)
    for entry_id, currency, address, listed in addresses:
        if entry_id in position:
            index.addresses.setdefault(address, []).append(DigitalAddressRecord(position[entry_id], currency, address, listed))
    _idf(index)
    _form_weights(index)
    _blocking_keys(index)
    index.built_seconds = time.perf_counter() - started
    return index


def database_signature() -> tuple:
    """What the index depends on: each list's source, content hash and load time (one small query)."""
    from onboarding.models.sanctions import SanctionsList

    rows = SanctionsList.objects.order_by("source").values_list("source", "content_hash", "loaded_at")
    return tuple((source, content, loaded.isoformat()) for source, content, loaded in rows)


def build_index() -> ScreeningIndex:
    """Read the lists from the database and build the index (about a second for OFAC + UN)."""
    from onboarding.models.sanctions import SanctionsDigitalAddress, SanctionsEntry, SanctionsList, SanctionsName

    lists = [
        ListInfo(row.source, row.version, row.content_hash, row.loaded_at.isoformat(), row.entry_count, row.category)
        for row in SanctionsList.objects.order_by("source")
    ]
    signature = tuple((info.source, info.content_hash, info.loaded_at) for info in lists)
    entry_columns = (
        "id", "sanctions_list__source", "uid", "reference", "kind", "primary_name", "programs", "birth_dates", "countries", "version_hash",
    )
    entries = [
        EntryRecord(
            id=str(pk), source=source, uid=uid, reference=reference, kind=kind, primary_name=primary, programs=tuple(programs or ()),
            birth_dates=tuple(birth_dates or ()), countries=frozenset(countries or ()), version_hash=version,
        )
        for pk, source, uid, reference, kind, primary, programs, birth_dates, countries, version in SanctionsEntry.objects.values_list(
            *entry_columns
        ).order_by("sanctions_list__source", "uid")
    ]
    name_rows = SanctionsName.objects.values_list("entry_id", "name", "kind").order_by("entry_id", "kind", "name")
    names = ((str(entry), name, kind) for entry, name, kind in name_rows.iterator(chunk_size=5000))
    address_rows = SanctionsDigitalAddress.objects.values_list("entry_id", "currency", "address", "address_as_listed")
    addresses = [(str(entry), currency, address, listed) for entry, currency, address, listed in address_rows]
    return build_index_from_rows(signature, lists, entries, names, addresses)


class _IndexHolder:
    """One index per process, rebuilt when the database's lists no longer match it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._index: ScreeningIndex | None = None
        self._checked_at = 0.0

    def get(self, *, max_age: float | None = None) -> ScreeningIndex:
        max_age = _check_seconds() if max_age is None else max_age
        index = self._index
        if index is not None and time.monotonic() - self._checked_at < max_age:
            return index
        with self._lock:
            if self._index is None or time.monotonic() - self._checked_at >= max_age:
                if self._index is None or database_signature() != self._index.signature:
                    self._index = build_index()
                self._checked_at = time.monotonic()
            return self._index

    def invalidate(self) -> None:
        with self._lock:
            self._index = None
            self._checked_at = 0.0


def _check_seconds() -> float:
    from django.conf import settings

    return float(getattr(settings, "SANCTIONS_INDEX_CHECK_SECONDS", INDEX_CHECK_SECONDS))


_holder = _IndexHolder()


def get_index(*, max_age: float | None = None) -> ScreeningIndex:
    """This process's index, checked against the database at most every `max_age` seconds."""
    return _holder.get(max_age=max_age)


def invalidate_index() -> None:
    """Drop this process's index; the next screening call rebuilds it (the loader calls this)."""
    _holder.invalidate()
