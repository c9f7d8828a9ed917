"""Rule 30's peer-group statistics: the mean and standard deviation of the 30-day volumes of the
entity's peers (same organization, mode, entity type and jurisdiction), the entity left out.

Computed over the window that ends at the start of the batch's (UTC) day, for every group of the
organization and mode at once, and kept in the shared cache (Redis, or the database cache table without
it) for a day and by the process for an hour: a day's batches (or a replay of that day) read the same
figures. The shared copy holds each group with its members' volumes; the next day's volumes are the
previous day's plus the day that enters the window less the day that leaves it (two aggregates over a
day's transfers, not one over the month's), recomputed whole every MAX_DEPTH days; one process computes
a new day's groups while the others wait for them. Each group keeps its members' volumes in cents with
their sum and sum of squares, so leaving one member out costs two subtractions. (Until session 21 each
group cost three aggregates over the month in each process, and leaving out summed the whole group again
for every member: most of a batch's CPU with 10,000 customers in one group.)

Volumes are as the rule measures them: both channels, in and out, own-wallet transfers left out,
unpriced events not summed.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from decimal import Decimal
from time import monotonic, sleep

from django.core.cache import cache, caches
from django.core.cache.backends.db import DatabaseCache
from django.db import transaction
from django.db.models import F, Sum

from monitoring.models import FiatEvent, Transaction
from monitoring.rules import PeerGroupStats
from onboarding.models import Entity

logger = logging.getLogger(__name__)
KEEP_SECONDS = 3600
SHARED_SECONDS = 86_400
KEEP_DAYS = 64
MAX_DEPTH = 7
CLAIM_SECONDS = 60  # how long a process's claim to compute a day's figures holds
WAIT_SECONDS = 10  # how long the others wait for them before computing their own
POLL_SECONDS = 0.02
CENT = Decimal("0.01")
GroupKey = tuple[str, str]  # (entity type, jurisdiction)


@dataclass(frozen=True)
class Group:
    """A peer group's members' volumes in cents (members without a priced event are absent: volume 0).
    Whole cents keep the sums exact (`usd_value` has two decimals) and cost a fraction of Decimal's."""
    size: int
    volumes: dict[str, int]
    total: int
    squares: int
    active: int  # members with a volume above 0
    left_out: dict[str, PeerGroupStats] = field(default_factory=dict, compare=False, repr=False)  # by entity, as computed

    @classmethod
    def of(cls, size: int, volumes: dict[str, int]) -> Group:
        return cls(size, volumes, sum(volumes.values()), sum(v * v for v in volumes.values()), sum(1 for v in volumes.values() if v > 0))

    def leaving_out(self, entity_id: str) -> PeerGroupStats:
        """The group's statistics without the entity (population standard deviation of the others)."""
        stats = self.left_out.get(entity_id)
        if stats is None:
            stats = self.left_out[entity_id] = self._without(entity_id)
        return stats

    def _without(self, entity_id: str) -> PeerGroupStats:
        peers = self.size - 1
        if peers < 1:
            return PeerGroupStats(size=0, mean_volume_usd=Decimal(0), stddev_volume_usd=Decimal(0), active=0)
        own = self.volumes.get(entity_id, 0)
        mean = Decimal(self.total - own) / 100 / peers
        variance = max(Decimal(self.squares - own * own) / 10_000 / peers - mean * mean, Decimal(0))
        return PeerGroupStats(size=peers, mean_volume_usd=mean.quantize(CENT), stddev_volume_usd=variance.sqrt().quantize(CENT),
                              active=self.active - (own > 0))

    def __getstate__(self):  # shared without the process's own left-out figures
        return {**self.__dict__, "left_out": {}}


_kept: dict[tuple, tuple[float, dict[GroupKey, Group]]] = {}


def peer_group_stats(organization, mode: str, rows: list[tuple], end: datetime, *, window_days: int) -> dict[str, PeerGroupStats]:
    """{entity id: its peer group's statistics} for ENTITY_COLUMNS rows."""
    day = datetime.combine(end.date(), time(0), tzinfo=end.tzinfo)
    groups = _groups(organization, mode, day, window_days)
    empty = Group(0, {}, 0, 0, 0)
    return {entity_id: groups.get((entity_type, jurisdiction), empty).leaving_out(entity_id)
            for entity_id, _, jurisdiction, entity_type, *_ in rows}


def shared_key(organization, mode: str, window_days: int, day: datetime) -> str:
    """The shared cache's key for the groups of the window that ends at `day` (cents, grouped: `-g`)."""
    return f"peer-groups-g:{organization.pk}:{mode}:{window_days}:{day.date().isoformat()}"


def _groups(organization, mode: str, day: datetime, window_days: int) -> dict[GroupKey, Group]:
    key = (str(organization.pk), mode, window_days, day.date().isoformat())
    kept = _kept.get(key)
    if kept and kept[0] > monotonic():
        return kept[1]
    groups = _shared_groups(organization, mode, day, window_days)
    if len(_kept) >= KEEP_DAYS:
        _kept.clear()
    _kept[key] = (monotonic() + KEEP_SECONDS, groups)
    return groups


def _shared_groups(organization, mode: str, day: datetime, window_days: int) -> dict[GroupKey, Group]:
    """The groups of the window that ends at `day`: from the shared cache, else computed and shared.

    Their volumes come from the day before's by one day's difference (the day that enters the window
    less the day that leaves it: two aggregates over a day's transfers instead of one over the
    window's), else from one aggregate over the window. A chain of differences is cut after MAX_DEPTH
    days, so that transfers stored late with an earlier time (a backfill) count within a week.

    One process computes a day's groups while the others wait for them (`_computed_elsewhere`): on a
    new day every process's first batch would otherwise run the same aggregates at the same moment."""
    key = shared_key(organization, mode, window_days, day)
    found = _shared(cache.get, key) or _computed_elsewhere(key)
    if found is not None:
        return found[1]
    before = _shared(cache.get, shared_key(organization, mode, window_days, day - timedelta(days=1)))
    if before is not None and before[0] < MAX_DEPTH:
        depth, volumes = before[0] + 1, {entity: volume for group in before[1].values() for entity, volume in group.volumes.items()}
        one_day = timedelta(days=1)
        for entity_id, volume in _sums(organization, mode, day - one_day, day).items():
            volumes[entity_id] = volumes.get(entity_id, 0) + volume
        left = day - timedelta(days=window_days)
        for entity_id, volume in _sums(organization, mode, left - one_day, left).items():
            remaining = volumes.get(entity_id, 0) - volume
            if remaining > 0:
                volumes[entity_id] = remaining
            else:
                volumes.pop(entity_id, None)
    else:
        depth, volumes = 0, _sums(organization, mode, day - timedelta(days=window_days), day)
    groups = _grouped(organization, mode, volumes)
    _publish(key, (depth, groups))
    return groups


def _computed_elsewhere(key: str) -> tuple | None:
    """The figures of `key` once another process has computed them, when one claimed the work (a
    shared cache only: with the database cache each process computes its own, see `_publish`); None
    when this process is the one to compute them, or the other did not publish within WAIT_SECONDS."""
    if _database_cache() or _shared(cache.add, f"{key}:computing", 1, CLAIM_SECONDS) is not False:
        return None
    deadline = monotonic() + WAIT_SECONDS
    while monotonic() < deadline:
        sleep(POLL_SECONDS)
        found = _shared(cache.get, key)
        if found is not None:
            return found
    return None


def _publish(key: str, value: tuple) -> None:
    """Share a day's figures with the other processes. A shared cache gets them at once: they cover days
    before the batch's, which its rollback cannot change. The database cache gets them after the batch
    commits: its write would otherwise take a savepoint in the ingestion's transaction (and be rolled
    back with it)."""
    if _database_cache():
        transaction.on_commit(lambda: _shared(cache.set, key, value, SHARED_SECONDS))
    else:
        _shared(cache.set, key, value, SHARED_SECONDS)


def _database_cache() -> bool:
    return isinstance(caches["default"], DatabaseCache)


def _shared(operation, *args):
    """A shared-cache call that never fails the batch: without the cache each process computes its own."""
    try:
        return operation(*args)
    except Exception:  # noqa: BLE001 - Redis down, the cache table missing: the figures are recomputed
        logger.warning("peer-group statistics: the shared cache is unavailable", exc_info=True)
        return None


def _grouped(organization, mode: str, volumes: dict[str, int]) -> dict[GroupKey, Group]:
    """Every peer group of the organization and mode (entity type, jurisdiction) with its members' volumes."""
    members: dict[GroupKey, list[str]] = defaultdict(list)
    for entity_id, entity_type, jurisdiction in Entity.objects.filter(organization=organization, mode=mode).values_list(
            "id", "entity_type", "jurisdiction").order_by():
        members[(entity_type, jurisdiction)].append(str(entity_id))
    return {group: Group.of(len(ids), {entity_id: volumes[entity_id] for entity_id in ids if entity_id in volumes})
            for group, ids in members.items()}


def _sums(organization, mode: str, since: datetime, until: datetime) -> dict[str, int]:
    """{entity id: priced volume in cents in [since, until)}, both channels, in and out, own-wallet transfers left out."""
    window = {"organization": organization, "mode": mode, "timestamp__gte": since, "timestamp__lt": until}
    sent = Transaction.objects.filter(**window, from_entity__isnull=False).exclude(
        to_entity_id=F("from_entity_id")).values("from_entity_id")
    received = Transaction.objects.filter(**window, to_entity__isnull=False).exclude(
        from_entity_id=F("to_entity_id")).values("to_entity_id")
    fiat = FiatEvent.objects.filter(entity__organization=organization, entity__mode=mode, timestamp__gte=since,
                                    timestamp__lt=until).values("entity_id")
    volumes: dict[str, int] = defaultdict(int)
    for query in (sent, received, fiat):
        for entity_id, volume in query.annotate(volume=Sum("usd_value")).values_list(query.query.values_select[0], "volume").order_by():
            if volume:
                volumes[str(entity_id)] += int((volume * 100).to_integral_value())
    return dict(volumes)
