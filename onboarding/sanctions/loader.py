"""Writing a parsed list into the database: one list, one transaction.

`sanctions_list_load` replaces a list's content atomically: readers (the screening index of every
process) see either the old list or the new one, never a half-loaded mix. Entries are reconciled by
(list, uid) rather than dropped and re-inserted, so an unchanged entry keeps its row and id, and
`version_hash` tells a changed entry from an unchanged one. A list whose files hash the same as last
time is left untouched (only `checked_at` moves), so running the loader on a schedule is cheap.

An empty or truncated download must never wipe a sanctions list, so a load is refused, and the
list kept as it was, when the parse yields no entries, when the files look cut short (OFAC's
end-of-file byte missing, UN XML not well-formed), when more than SANCTIONS_MAX_MALFORMED_SHARE
(1 %) of a file's rows are malformed, or when it would remove more than SANCTIONS_MAX_REMOVED_SHARE
(10 %) of the list's current entries, unless the operator says the shrinking is expected
(`allow_shrink`, `load_sanctions --allow-shrink`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from common.audit import audit_record
from common.bulk import insert_new
from onboarding.models.sanctions import (
    EntryKind,
    ListCategory,
    SanctionsAddress,
    SanctionsDigitalAddress,
    SanctionsEntry,
    SanctionsList,
    SanctionsListVersion,
    SanctionsName,
    VersionOrigin,
)
from onboarding.sanctions.records import ParsedEntry, ParsedList
from onboarding.screening.normalize import normalize_name

_CHUNK = 500
_ADDRESS_LIMITS = {"street": 512, "city": 256, "state_province": 128, "postal_code": 64, "country": 128, "country_code": 2, "note": 512}
_ENTRY_FIELDS = ("reference", "kind", "primary_name", "title", "programs", "remarks", "birth_dates", "countries", "listed_on")


# Defaults of the refusal thresholds (Django settings of the same names override them).
MAX_MALFORMED_SHARE = 0.01
MAX_REMOVED_SHARE = 0.10


class UnsafeLoadError(ValueError):
    """Loading the parsed list could wipe or cut down the stored one by mistake; nothing was written."""


class EmptyListError(UnsafeLoadError):
    """The parsed list has no entries; loading it would delete the whole list."""


class ShrinkingLoadError(UnsafeLoadError):
    """The load would remove more than the allowed share of the list's entries (`allow_shrink` accepts it)."""

    def __init__(self, message: str, *, removed: int, listed: int, limit: float):
        super().__init__(message)
        self.removed, self.listed, self.limit = removed, listed, limit


@dataclass
class LoadResult:
    source: str
    changed: bool
    content_hash: str = ""
    entries: int = 0
    names: int = 0
    addresses: int = 0
    digital_addresses: int = 0
    skipped: int = 0
    added_uids: list[str] = field(default_factory=list)
    changed_uids: list[str] = field(default_factory=list)
    removed_uids: list[str] = field(default_factory=list)
    seconds: float = 0.0
    version: SanctionsListVersion | None = None

    def summary(self) -> dict:
        return {
            "source": self.source, "changed": self.changed, "entries": self.entries, "names": self.names,
            "addresses": self.addresses, "digital_addresses": self.digital_addresses, "skipped": self.skipped,
            "added": len(self.added_uids), "updated": len(self.changed_uids), "removed": len(self.removed_uids),
        }


def _chunks(items: list, size: int = _CHUNK):
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _entry_values(parsed: ParsedEntry) -> dict:
    return {name: getattr(parsed, name) for name in _ENTRY_FIELDS} | {"version_hash": parsed.version_hash}


def _children(entry: SanctionsEntry, parsed: ParsedEntry) -> tuple[list, list, list]:
    individual = parsed.kind == EntryKind.INDIVIDUAL
    names = [
        SanctionsName(
            entry=entry, name=name.name[:512], kind=name.kind, qualifier=name.qualifier,
            normalized=normalize_name(name.name, individual=individual)[:512],
        )
        for name in parsed.names
    ]
    addresses = [
        SanctionsAddress(entry=entry, **{key: getattr(address, key)[:limit] for key, limit in _ADDRESS_LIMITS.items()})
        for address in parsed.addresses
    ]
    digital = [
        SanctionsDigitalAddress(
            entry=entry, currency=item.currency[:16], address=item.address[:128], address_as_listed=item.address_as_listed[:128]
        )
        for item in parsed.digital_addresses
    ]
    return names, addresses, digital


def _write_children(pairs: list[tuple[SanctionsEntry, ParsedEntry]]) -> None:
    names, addresses, digital = [], [], []
    for entry, parsed in pairs:
        entry_names, entry_addresses, entry_digital = _children(entry, parsed)
        names += entry_names
        addresses += entry_addresses
        digital += entry_digital
    for model, rows in ((SanctionsName, names), (SanctionsAddress, addresses), (SanctionsDigitalAddress, digital)):
        insert_new(model, rows)


def _delete_children(entry_ids: list) -> None:
    for chunk in _chunks(entry_ids):
        for model in (SanctionsName, SanctionsAddress, SanctionsDigitalAddress):
            model.objects.filter(entry_id__in=chunk).delete()


def _existing(sanctions_list: SanctionsList | None) -> dict[str, tuple]:
    if sanctions_list is None:
        return {}
    return {uid: (pk, version, name) for uid, pk, version, name in
            sanctions_list.entries.values_list("uid", "id", "version_hash", "primary_name")}


def _refuse_damaged(parsed: ParsedList) -> None:
    """Files that gave nothing, were cut short or are riddled with bad rows are not a list to load."""
    report = parsed.report
    if not parsed.entries:
        why = "".join(f": {reason}" for reason in report.incomplete[:1])  # e.g. no header row: say so
        raise EmptyListError(
            f"{parsed.source}: the files gave no entries ({report.skipped} rows skipped); refusing to empty the list{why}")
    if report.incomplete:
        raise UnsafeLoadError(f"{parsed.source}: refusing to load incomplete files, the list is kept as it was: "
                              + "; ".join(report.incomplete))
    limit = getattr(settings, "SANCTIONS_MAX_MALFORMED_SHARE", MAX_MALFORMED_SHARE)
    file, skipped, rows, share = report.most_malformed()
    if share > limit:
        raise UnsafeLoadError(
            f"{parsed.source}: {skipped} of the {rows} rows of {file} are malformed ({share:.1%}, more than {limit:.0%}); "
            "refusing to load damaged files, the list is kept as it was")


def _refuse_shrinking(parsed: ParsedList, existing: dict, *, allow_shrink: bool) -> None:
    """A load that removes more than the set share of the current entries is refused unless expected:
    publishers delist in tens, not thousands, so a big removal is far likelier a bad download."""
    removed = len(set(existing) - {entry.uid for entry in parsed.entries})
    limit = getattr(settings, "SANCTIONS_MAX_REMOVED_SHARE", MAX_REMOVED_SHARE)
    if allow_shrink or not existing or removed <= limit * len(existing):
        return
    raise ShrinkingLoadError(
        f"{parsed.source}: the files would remove {removed} of the {len(existing)} listed entries ({removed / len(existing):.0%}, "
        f"more than {limit:.0%}); refusing, the list is kept as it was. If the publisher really removed them, load again "
        "with --allow-shrink", removed=removed, listed=len(existing), limit=limit)


def _reconcile(sanctions_list: SanctionsList, parsed: ParsedList, result: LoadResult, now, existing: dict) -> None:
    incoming = {entry.uid: entry for entry in parsed.entries}
    result.removed_uids = sorted(set(existing) - set(incoming))
    removed_ids = [existing[uid][0] for uid in result.removed_uids]
    _delete_children(removed_ids)
    for chunk in _chunks(removed_ids):
        SanctionsEntry.objects.filter(id__in=chunk).delete()

    changed = [(uid, entry) for uid, entry in incoming.items() if uid in existing and existing[uid][1] != entry.version_hash]
    result.changed_uids = [uid for uid, _entry in changed]
    _delete_children([existing[uid][0] for uid, _entry in changed])
    updated = [
        SanctionsEntry(id=existing[uid][0], sanctions_list=sanctions_list, uid=uid, updated_at=now, **_entry_values(entry))
        for uid, entry in changed
    ]
    if updated:
        SanctionsEntry.objects.bulk_update(updated, [*_ENTRY_FIELDS, "version_hash", "updated_at"], batch_size=_CHUNK)

    added = [entry for uid, entry in incoming.items() if uid not in existing]
    result.added_uids = [entry.uid for entry in added]
    created = SanctionsEntry.objects.bulk_create(
        [SanctionsEntry(sanctions_list=sanctions_list, uid=entry.uid, **_entry_values(entry)) for entry in added], batch_size=_CHUNK
    )
    _write_children([*zip(updated, (entry for _uid, entry in changed), strict=True), *zip(created, added, strict=True)])


def _record_list(parsed: ParsedList, now, category: str) -> SanctionsList:
    sanctions_list = SanctionsList.objects.select_for_update().filter(source=parsed.source).first()
    if sanctions_list is None:
        sanctions_list = SanctionsList(source=parsed.source)
    sanctions_list.category = category
    sanctions_list.version = parsed.version[:64]
    sanctions_list.published_at = parsed.published_at
    sanctions_list.loaded_at = sanctions_list.checked_at = now
    # Committed with the content: a process killed before its lists-changed callbacks ran leaves the
    # marker for the beat sweep (onboarding.sweep_rescreen_pending), so re-screening is never lost.
    # Always this load's time: a re-screening that started before it does not clear it.
    sanctions_list.rescreen_pending_since = now
    sanctions_list.content_hash = parsed.content_hash
    sanctions_list.entry_count = len(parsed.entries)
    sanctions_list.name_count = parsed.name_count
    sanctions_list.address_count = parsed.address_count
    sanctions_list.digital_address_count = parsed.digital_address_count
    sanctions_list.skipped_count = parsed.report.skipped
    sanctions_list.skipped_samples = parsed.report.samples
    sanctions_list.source_files = parsed.source_files
    sanctions_list.save()
    return sanctions_list


def _record_version(sanctions_list: SanctionsList, parsed: ParsedList, result: LoadResult, existing: dict, now,
                    origin: str) -> SanctionsListVersion:
    """The new version with its diff against the one before: each entry as {uid, name}."""
    names = {entry.uid: entry.primary_name for entry in parsed.entries}
    last = sanctions_list.versions.order_by("-number").values_list("number", flat=True).first() or 0
    return SanctionsListVersion.objects.create(
        sanctions_list=sanctions_list, number=last + 1, origin=origin, content_hash=parsed.content_hash,
        publisher_version=parsed.version[:64], published_at=parsed.published_at, loaded_at=now, entry_count=len(parsed.entries),
        source_files=parsed.source_files,
        added=[{"uid": uid, "name": names[uid]} for uid in result.added_uids],
        changed=[{"uid": uid, "name": names[uid]} for uid in result.changed_uids],
        removed=[{"uid": uid, "name": existing[uid][2]} for uid in result.removed_uids],
    )


@transaction.atomic
def sanctions_list_load(parsed: ParsedList, *, allow_shrink: bool = False, origin: str = VersionOrigin.FILE,
                        category: str = ListCategory.SANCTIONS) -> LoadResult:
    """Make the database's copy of `parsed.source` equal to `parsed`, as a new version of the list
    with its diff; a no-op if the files are unchanged. Raises UnsafeLoadError, having written
    nothing, for files that could wipe or cut down the list."""
    started = time.perf_counter()
    _refuse_damaged(parsed)
    now = timezone.now()
    result = LoadResult(
        source=parsed.source, changed=False, content_hash=parsed.content_hash, entries=len(parsed.entries),
        names=parsed.name_count, addresses=parsed.address_count,
        digital_addresses=parsed.digital_address_count, skipped=parsed.report.skipped,
    )
    current = SanctionsList.objects.select_for_update().filter(source=parsed.source).first()
    if current is not None and current.content_hash == parsed.content_hash:
        SanctionsList.objects.filter(pk=current.pk).update(checked_at=now)
        result.seconds = time.perf_counter() - started
        return result
    existing = _existing(current)
    _refuse_shrinking(parsed, existing, allow_shrink=allow_shrink)
    sanctions_list = _record_list(parsed, now, category)
    _reconcile(sanctions_list, parsed, result, now, existing)
    result.version = _record_version(sanctions_list, parsed, result, existing, now, origin)
    result.changed = True
    audit_record(
        actor=None, action="sanctions_list.loaded", object_type="sanctions_list", object_id=sanctions_list.pk,
        before={"content_hash": current.content_hash, "entry_count": current.entry_count} if current else None,
        after={"content_hash": parsed.content_hash, "version": result.version.number, "origin": origin, **result.summary()},
    )
    result.seconds = time.perf_counter() - started
    return result
