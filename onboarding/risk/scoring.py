"""From factors to a score and a tier: a pure computation over the registered factors."""

from __future__ import annotations

from dataclasses import dataclass

from onboarding.choices import RiskTier
from onboarding.risk.factors import risk_factors

# Lower bounds of each tier, checked from the top.
TIER_BOUNDS = ((75, RiskTier.CRITICAL), (50, RiskTier.HIGH), (25, RiskTier.MEDIUM), (0, RiskTier.LOW))


@dataclass(frozen=True)
class RiskScore:
    score: int
    tier: str
    factors: list[dict]  # name, label, weight, severity, contribution, detail (, floor)


def tier_of(score: int) -> str:
    return next(tier for bound, tier in TIER_BOUNDS if score >= bound)


def score_entities(entities: list) -> dict:
    """{entity pk: RiskScore}, each factor's inputs gathered once for all the entities."""
    factors = risk_factors()
    ids = [entity.pk for entity in entities]
    gathered = {factor.name: factor.gather(ids) for factor in factors if factor.gather is not None}
    return {entity.pk: _score(entity, factors, gathered) for entity in entities}


def _score(entity, factors, gathered: dict) -> RiskScore:
    rows, total, floor = [], 0.0, 0
    for factor in factors:
        found = factor.result(entity, gathered)
        severity = min(max(float(found.severity), 0.0), 1.0)
        contribution = round(factor.weight * severity, 1)
        total += contribution
        row = {"name": factor.name, "label": factor.label, "weight": factor.weight, "severity": round(severity, 2),
               "contribution": contribution, "detail": found.detail}
        if found.floor is not None:
            row["floor"] = found.floor
            floor = max(floor, found.floor)
        rows.append(row)
    score = min(100, max(int(round(total)), floor))
    return RiskScore(score, tier_of(score), rows)
