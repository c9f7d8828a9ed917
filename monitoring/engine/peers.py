"""Rule 30's peer-group statistics: the mean and standard deviation of the 30-day volumes of the
entity's peers (same organization, mode, entity type and jurisdiction), the entity left out.

Computed per group over the window that ends at the start of the batch's (UTC) day, and kept by the
process for an hour: a group's statistics cost one aggregate over its members' transfers, too much
to repeat for every batch of live ingestion, and a day's batches (or a replay of that day) read the
same figures. (In the process, not the shared cache: the statistics are a few kilobytes per group,
an hour-old copy is as good, and a cache table need not exist on a deployment without Redis.)
Volumes are as the rule measures them: both channels, in and out, own-wallet transfers left out,
unpriced events not summed.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, time, timedelta
from decimal import Decimal
from time import monotonic

from django.db.models import F, Sum

from monitoring.models import FiatEvent, Transaction
from monitoring.rules import PeerGroupStats
from onboarding.models import Entity

KEEP_SECONDS = 3600
KEEP_GROUPS = 512
_kept: dict[tuple, tuple[float, tuple[int, dict[str, Decimal]]]] = {}


def peer_group_stats(organization, mode: str, rows: list[tuple], end: datetime, *, window_days: int) -> dict[str, PeerGroupStats]:
    """{entity id: its peer group's statistics} for ENTITY_COLUMNS rows."""
    day = datetime.combine(end.date(), time(0), tzinfo=end.tzinfo)
    groups: dict[tuple, list[str]] = defaultdict(list)
    for entity_id, _, jurisdiction, entity_type, *_ in rows:
        groups[(entity_type, jurisdiction)].append(entity_id)
    stats = {}
    for (entity_type, jurisdiction), members in groups.items():
        size, volumes = _group(organization, mode, entity_type, jurisdiction, day, window_days)
        stats.update({entity_id: _leaving_out(size, volumes, volumes.get(entity_id, Decimal(0))) for entity_id in members})
    return stats


def _group(organization, mode: str, entity_type, jurisdiction, day: datetime, window_days: int) -> tuple[int, dict[str, Decimal]]:
    key = (organization.pk, mode, entity_type, jurisdiction, window_days, day)
    kept = _kept.get(key)
    if kept and kept[0] > monotonic():
        return kept[1]
    found = _group_volumes(organization, mode, entity_type, jurisdiction, day - timedelta(days=window_days), day)
    if len(_kept) >= KEEP_GROUPS:
        _kept.clear()
    _kept[key] = (monotonic() + KEEP_SECONDS, found)
    return found


def _group_volumes(organization, mode: str, entity_type, jurisdiction, since: datetime, until: datetime) -> tuple[int, dict[str, Decimal]]:
    """(members, {member: volume}) for the members with a priced event in [since, until)."""
    members = {"entity_type": entity_type, "jurisdiction": jurisdiction}
    size = Entity.objects.filter(organization=organization, mode=mode, **members).count()
    window = {"organization": organization, "mode": mode, "timestamp__gte": since, "timestamp__lt": until}
    sent = Transaction.objects.filter(**window, **{f"from_entity__{name}": value for name, value in members.items()}).exclude(
        to_entity_id=F("from_entity_id")).values("from_entity_id")
    received = Transaction.objects.filter(**window, **{f"to_entity__{name}": value for name, value in members.items()}).exclude(
        from_entity_id=F("to_entity_id")).values("to_entity_id")
    fiat = FiatEvent.objects.filter(entity__organization=organization, entity__mode=mode, timestamp__gte=since, timestamp__lt=until,
                                    **{f"entity__{name}": value for name, value in members.items()}).values("entity_id")
    volumes: dict[str, Decimal] = defaultdict(Decimal)
    for query in (sent, received, fiat):
        for entity_id, volume in query.annotate(volume=Sum("usd_value")).values_list(query.query.values_select[0], "volume").order_by():
            volumes[str(entity_id)] += volume or Decimal(0)
    return size, dict(volumes)


def _leaving_out(size: int, volumes: dict[str, Decimal], own: Decimal) -> PeerGroupStats:
    """The group's statistics without the entity (population standard deviation of the others)."""
    peers = size - 1
    if peers < 1:
        return PeerGroupStats(size=0, mean_volume_usd=Decimal(0), stddev_volume_usd=Decimal(0))
    total = sum(volumes.values(), Decimal(0)) - own
    squares = sum((v * v for v in volumes.values()), Decimal(0)) - own * own
    mean = total / peers
    variance = max(squares / peers - mean * mean, Decimal(0))
    cents = Decimal("0.01")
    return PeerGroupStats(size=peers, mean_volume_usd=mean.quantize(cents), stddev_volume_usd=variance.sqrt().quantize(cents))
