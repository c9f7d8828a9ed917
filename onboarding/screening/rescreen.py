"""Which entities a sanctions list's change can affect: the re-screening after a load queues only these.

A change (`ListChange`: the added, changed and removed entry uids of one list) can alter an entity's
screening in three ways; the selection is the union of:

1. hits: an active hit (any status) on a changed or removed entry: it may go away or change score;
2. names: the entity's legal name, or a beneficial owner's name, reaches the name of an added or
   changed entry through the index's blocking keys. That is the only way the matcher makes a listed
   name a candidate (`matcher._candidates`: each query token of two or more letters looks up
   `index.similar_tokens`; compact and initials scoring only re-score candidates found that way). The
   listed names' keys are built by the index's own `blocking_keys`, from the tokens the index holds
   for those names, and the customers' names are normalised as `screen_name` normalises them
   (`matcher.query_tokens`, `matcher.blocking_tokens`), so the pre-filter selects every entity a
   full screening could hit on those entries (and more: keys that meet may still score 0);
3. wallets: an active wallet at a digital-currency address of an added or changed entry, compared in
   canonical form (onboarding.sanctions.addresses).

And, on a list's first load, the entities whose last screening found no list loaded at all.

Lists are global: the selection covers every organization and both modes. What it does not cover,
by design: a change moves every name's token weights a little (inverse document frequency over all
listed names), so a score against an unchanged entry may drift across a threshold; an operator's
`manage.py rescreen_entities --all` re-screens everything.

Customers' names are read in bulk (two streamed value queries) and tested in memory, once per
distinct token; the listed side is read from the process's index, checked against the database first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from onboarding import selectors
from onboarding.screening.hooks import ListChange
from onboarding.screening.index import ScreeningIndex, blocking_keys, get_index
from onboarding.screening.matcher import blocking_tokens, query_tokens


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
    names_read: int = 0  # customers' names tested (entities' and owners')
    seconds: float = 0.0

    def describe(self) -> str:
        return (f"{len(self.entity_ids)} entities ({self.by_hits} with a hit on a changed or removed entry, {self.by_names} by name, "
                f"{self.by_wallets} by wallet, {self.without_lists} never screened against a list; {self.listed_names} listed names, "
                f"{self.keys} keys, {self.names_read} customer names read in {self.seconds:.2f}s)")


def affected_entity_ids(changes: list[ListChange], *, index: ScreeningIndex | None = None) -> set:
    """The ids of the entities (any organization, any mode, not rejected) that `changes` can affect."""
    return select_affected(changes, index=index).entity_ids


def select_affected(changes: list[ListChange], *, index: ScreeningIndex | None = None) -> Selection:
    """`affected_entity_ids` with the figures. `index`: the index of the lists after the changes
    (default: this process's, checked against the database now)."""
    started = time.perf_counter()
    index = index if index is not None else get_index(max_age=0)
    positions = _entry_positions(index, {(change.source, uid) for change in changes for uid in (*change.added_uids, *change.changed_uids)})
    selection = Selection()
    keys: set[str] = set()
    for name in index.names:
        if name.entry in positions:
            selection.listed_names += 1
            for token in name.tokens:
                keys |= blocking_keys(token)
    selection.keys = len(keys)
    addresses = {record.address for records in index.addresses.values() for record in records if record.entry in positions}

    by_hits = selectors.entity_ids_with_active_hits(
        {change.source: [*change.changed_uids, *change.removed_uids] for change in changes if change.changed_uids or change.removed_uids})
    by_names, selection.names_read = _entity_ids_reaching(frozenset(keys))
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


def _entity_ids_reaching(keys: frozenset[str]) -> tuple[set, int]:
    """Entities with a name (their own or an owner's) one of whose blocking tokens shares a key with `keys`;
    and how many names were read."""
    if not keys:
        return set(), 0
    reaches: dict[str, bool] = {}  # customers' names share most of their tokens: each is keyed once
    found: set = set()
    read = 0
    for entity_id, name, kind in selectors.entity_names_to_rescreen():
        read += 1
        if entity_id in found:
            continue
        for token in blocking_tokens(query_tokens(name, kind=kind)):
            reached = reaches.get(token)
            if reached is None:
                reached = reaches[token] = not keys.isdisjoint(blocking_keys(token))
            if reached:
                found.add(entity_id)
                break
    return found, read


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
