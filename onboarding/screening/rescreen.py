"""Which entities a sanctions list's change can affect: the re-screening after a load queues only these.

A change (`ListChange`: the added, changed and removed entry uids of one list) can alter an entity's
screening in three ways; the selection is the union of:

1. hits: an active hit (any status) on a changed or removed entry: it may go away or change score;
2. names: the entity's legal name, or a beneficial owner's name, could now be hit on an added or
   changed entry. In two steps, both in memory:
   - keys: the name reaches one of those entries' names through the index's blocking keys. That is
     the only way the matcher makes a listed name a candidate (`matcher._candidates`: each query token
     of two or more letters looks up `index.similar_tokens`; compact and initials scoring only
     re-score candidates found that way). The listed names' keys are built by the index's own
     `blocking_keys` from the tokens the index holds for them, and the customers' names are
     normalised as `screen_name` normalises them (`matcher.query_tokens`, `matcher.blocking_tokens`).
   - score: the name is screened (`screen_name(..., among=...)`) against every listed name of those
     entries it reaches, with the subject's date of birth, country and kind exactly as the entity's
     screening passes them. A full screening scores the same names (fewer: its candidates are
     capped) with the same scores and evidence, so an entry it hits is hit here too.
   Keys alone let through every "Mohammed" when one changed entry is a Muhammad; the score keeps the
   ones that could reach the report threshold. For a change of more than SCORED_NAMES_LIMIT listed
   names (a list's first load) the keys alone decide: a larger selection, found quickly.
3. wallets: an active wallet at a digital-currency address of an added or changed entry, compared in
   canonical form (onboarding.sanctions.addresses).

And, on a list's first load, the entities whose last screening found no list loaded at all.

Lists are global: the selection covers every organization and both modes. What it does not cover,
by design: a change moves every name's token weights a little (inverse document frequency over all
listed names), so a score against an unchanged entry may drift across a threshold; an operator's
`manage.py rescreen_entities --all` re-screens everything.

Customers' names are read in bulk (two streamed value queries); the listed side comes from the
process's index, checked against the database first, which is what the re-screening then uses.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

from onboarding import selectors
from onboarding.screening.hooks import ListChange
from onboarding.screening.index import ScreeningIndex, blocking_keys, get_index
from onboarding.screening.matcher import UnscreenableName, blocking_tokens, query_tokens, readings, screen_name
from onboarding.services.screening import entity_name_subject, owner_name_subject

# Up to this many listed names (those of the added and changed entries), a customer's name that reaches
# one of them by a key is scored against them; beyond it (a list's first load: every name is added) the
# key is enough: scoring each customer against hundreds of reached names would cost more than the
# re-screening it spares.
SCORED_NAMES_LIMIT = 5000


@dataclass
class Selection:
    """The entities a set of changes can affect, and why (an entity may be there for several reasons)."""

    entity_ids: set = field(default_factory=set)
    by_hits: int = 0
    by_names: int = 0
    by_wallets: int = 0
    without_lists: int = 0
    listed_names: int = 0  # names of the added and changed entries
    keys: int = 0  # their blocking keys
    names_read: int = 0  # customers' names read (entities' and owners')
    names_reached: int = 0  # of those, the ones sharing a key with a listed name
    scored: bool = True  # those were scored against the listed names they reach (False: more than SCORED_NAMES_LIMIT)
    seconds: float = 0.0

    def describe(self) -> str:
        return (f"{len(self.entity_ids)} entities ({self.by_hits} with a hit on a changed or removed entry, {self.by_names} by name, "
                f"{self.by_wallets} by wallet, {self.without_lists} never screened against a list; {self.listed_names} listed names, "
                f"{self.keys} keys; {self.names_read} customer names read, {self.names_reached} reaching a key"
                f"{', scored' if self.scored else ', not scored (too many listed names)'}; "
                f"{self.seconds:.2f}s)")


def affected_entity_ids(changes: list[ListChange], *, index: ScreeningIndex | None = None) -> set:
    """The ids of the entities (any organization, any mode, not rejected) that `changes` can affect."""
    return select_affected(changes, index=index).entity_ids


def select_affected(changes: list[ListChange], *, index: ScreeningIndex | None = None) -> Selection:
    """`affected_entity_ids` with the figures. `index`: the index of the lists after the changes
    (default: this process's, checked against the database now)."""
    started = time.perf_counter()
    index = index if index is not None else get_index(max_age=0)
    entries = _entry_positions(index, {(change.source, uid) for change in changes for uid in (*change.added_uids, *change.changed_uids)})
    names = [position for position, name in enumerate(index.names) if name.entry in entries]
    addresses = {record.address for records in index.addresses.values() for record in records if record.entry in entries}

    selection = Selection(listed_names=len(names))
    by_hits = selectors.entity_ids_with_active_hits(
        {change.source: [*change.changed_uids, *change.removed_uids] for change in changes if change.changed_uids or change.removed_uids})
    by_names = _entity_ids_by_name(index, names, selection) if names else set()
    by_wallets = selectors.entity_ids_with_wallets_at(addresses) if addresses else set()
    without_lists = selectors.entity_ids_screened_without_lists() if any(change.version == 1 for change in changes) else set()

    selection.entity_ids = by_hits | by_names | by_wallets | without_lists
    selection.by_hits, selection.by_names, selection.by_wallets = len(by_hits), len(by_names), len(by_wallets)
    selection.without_lists = len(without_lists)
    selection.seconds = time.perf_counter() - started
    return selection


def _entry_positions(index: ScreeningIndex, entries: set[tuple[str, str]]) -> set[int]:
    """Positions in the index of the entries named by (source, uid); a uid no longer listed has none."""
    if not entries:
        return set()
    return {position for position, entry in enumerate(index.entries) if (entry.source, entry.uid) in entries}


def _customer_names():
    """(entity id, Subject) of every name a re-screening screens: the entities' own and their owners'."""
    for entity_id, legal_name, entity_type, date_of_birth, jurisdiction in selectors.entity_name_rows():
        yield entity_id, entity_name_subject(legal_name=legal_name, entity_type=entity_type, date_of_birth=date_of_birth,
                                             jurisdiction=jurisdiction)
    for entity_id, ubo_id, name, date_of_birth, nationality in selectors.owner_name_rows():
        yield entity_id, owner_name_subject(ubo_id=ubo_id, name=name, date_of_birth=date_of_birth, nationality=nationality)


def _entity_ids_by_name(index: ScreeningIndex, names: list[int], selection: Selection) -> set:
    """Entities with a name (their own or an owner's) that screening could now hit on one of the listed
    `names` (positions in the index): it reaches them by a blocking key and scores a hit against them.
    Beyond SCORED_NAMES_LIMIT listed names (a list's first load), reaching a key is enough."""
    postings: dict[str, set[int]] = defaultdict(set)  # blocking key -> positions of the listed names under it
    for position in names:
        for token in index.names[position].tokens:
            for key in blocking_keys(token):
                postings[key].add(position)
    selection.keys = len(postings)
    scored = selection.scored = len(names) <= SCORED_NAMES_LIMIT
    reach: dict[str, frozenset[int]] = {}  # customers' names share most of their tokens: each is looked up once
    found: set = set()
    for entity_id, subject in _customer_names():
        selection.names_read += 1
        if entity_id in found:
            continue
        reached: set[int] = set()
        # Every reading screen_name screens (the name as written, and with a letter moved back across a word break):
        # a customer who reaches a changed name only through a repaired break is found at the list's change too.
        for token in _reading_tokens(subject, index):
            if token not in reach:
                reach[token] = frozenset(position for key in blocking_keys(token) for position in postings.get(key, ()))
            reached |= reach[token]
            if reached and not scored:
                break
        if not reached:
            continue
        selection.names_reached += 1
        if not scored:
            found.add(entity_id)
            continue
        try:
            hits = screen_name(subject.value, kind=subject.kind, date_of_birth=subject.date_of_birth, country=subject.country,
                               jurisdiction=subject.jurisdiction, index=index, among=reached, limit=1)
        except UnscreenableName:
            continue
        if hits:
            found.add(entity_id)
    return found


def _reading_tokens(subject, index: ScreeningIndex) -> set[str]:
    """The blocking tokens of every reading of the subject's name that screen_name screens (matcher.readings)."""
    tokens = query_tokens(subject.value, kind=subject.kind)
    return {token for reading in readings(subject.value, tokens, subject.kind, index) for token in blocking_tokens(reading)}


# --- From list versions (the task's JSON arguments) ----------------------------------------------

def change_versions(changes: list[ListChange]) -> dict[str, int | None]:
    """{source: version number} of `changes`, for the task's arguments; a change that does not carry its
    number is found by content hash (None if not even that: the task then takes the list's latest)."""
    return {
        change.source: change.version if change.version is not None
        else selectors.list_version_number(source=change.source, content_hash=change.content_hash)
        for change in changes
    }


@dataclass
class Plan:
    """What one re-screening run does: the changes read from the list versions, the entities to queue,
    and the lists' rescreen markers to clear once they are all queued ({list id: marker})."""

    changes: list[ListChange]
    selection: Selection
    markers: dict
    total: int

    def describe(self) -> str:
        lists = ", ".join(f"{c.source} v{c.version or '?'} (+{len(c.added_uids)} ~{len(c.changed_uids)} -{len(c.removed_uids)})"
                          for c in self.changes) or "no list"
        return f"re-screening {len(self.selection.entity_ids)} of {self.total} entities after {lists}: {self.selection.describe()}"


def plan_for_versions(versions: dict[str, int | None]) -> Plan:
    """The re-screening for these list versions ({source: number}; None: the list's latest).

    Each version's diff (added, changed, removed: [{uid, name}]) makes one ListChange. A list without a
    recorded version (loaded before versions were kept) counts as entirely added. A list's rescreen
    marker is cleared only if no later load set it (it is not after this version's `loaded_at`, the
    time its load wrote into it): a later load's marker stays for that load's own re-screening, or the
    beat sweep's. It is cleared by compare-and-set against the value read here, before the selection."""
    lists = selectors.lists_of(versions)
    changes, markers = [], {}
    for source, version in selectors.list_versions(versions).items():
        sanctions_list = lists.get(source)
        if sanctions_list is None:
            continue  # deleted since: nothing to screen against, nothing to clear
        pending = sanctions_list.rescreen_pending_since
        if version is None:
            changes.append(ListChange(source, sanctions_list.content_hash, added_uids=selectors.list_entry_uids(source)))
            done = pending
        else:
            changes.append(ListChange(
                source, version.content_hash, added_uids=[item["uid"] for item in version.added],
                changed_uids=[item["uid"] for item in version.changed], removed_uids=[item["uid"] for item in version.removed],
                version=version.number,
            ))
            done = version.loaded_at
        if pending is not None and done is not None and pending <= done:
            markers[sanctions_list.pk] = pending
    return Plan(changes=changes, selection=select_affected(changes), markers=markers, total=selectors.entity_count_to_rescreen())
