"""The peer group: entities of the same type, industry and jurisdiction in the organization and mode,
with their risk and 30-day activity statistics beside the entity's own (None while monitoring has
no data). None when the entity has no peer."""

from __future__ import annotations

import statistics
from collections import Counter
from datetime import timedelta

from django.utils import timezone

from onboarding.choices import RiskTier
from onboarding.interfaces.monitoring_data import monitoring_data
from onboarding.models import Entity

WINDOW_DAYS = 30
MAX_PEERS = 5000


def peers_of(entity: Entity):
    return (Entity.objects.filter(organization=entity.organization_id, mode=entity.mode, entity_type=entity.entity_type,
                                  industry__iexact=entity.industry, jurisdiction=entity.jurisdiction)
            .exclude(pk=entity.pk).order_by("created_at", "id"))


def _spread(own, values: list) -> dict:
    if not values:
        return {"entity": own, "peer_mean": None, "peer_median": None, "percentile": None}
    below = sum(1 for value in values if own is not None and value < own)
    return {"entity": own, "peer_mean": round(statistics.fmean(values), 2), "peer_median": statistics.median(values),
            "percentile": round(100 * below / len(values)) if own is not None else None}


def peer_group(entity: Entity) -> dict | None:
    peers = list(peers_of(entity).values("pk", "risk_score", "risk_tier")[:MAX_PEERS])
    if not peers:
        return None
    stats = monitoring_data().activity_statistics([p["pk"] for p in peers] + [entity.pk],
                                                  since=timezone.now() - timedelta(days=WINDOW_DAYS))
    own = stats.get(entity.pk)
    volumes = [float(stats[p["pk"]].volume_usd) for p in peers if p["pk"] in stats]
    counts = [stats[p["pk"]].count for p in peers if p["pk"] in stats]
    tiers = Counter(p["risk_tier"] or "unscored" for p in peers)
    return {
        "entity_id": entity.pk,
        "criteria": {"entity_type": entity.entity_type, "industry": entity.industry, "jurisdiction": entity.jurisdiction},
        "peer_count": len(peers),
        "risk_score": _spread(entity.risk_score, [p["risk_score"] for p in peers if p["risk_score"] is not None]),
        "risk_tiers": {tier: tiers.get(tier, 0) for tier in [*RiskTier.values, "unscored"]},
        "window_days": WINDOW_DAYS,
        "volume_usd": _spread(float(own.volume_usd) if own else None, volumes) if stats else None,
        "transaction_count": _spread(own.count if own else None, counts) if stats else None,
    }
