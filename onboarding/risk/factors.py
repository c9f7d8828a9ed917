"""The risk factors: a registry of named, weighted functions of an entity.

Each factor returns a severity between 0 and 1 and a sentence saying why; its contribution to the
score is `weight × severity` points. The built-in weights add up to 100:

| factor | weight | reads |
|---|---|---|
| jurisdiction | 25 | the entity's jurisdiction band (risk/tables.py) |
| entity_profile | 20 | entity type and industry |
| screening | 35 | open sanctions hits, PEP and adverse-media flags, screening errors |
| alert_history | 10 | hook: monitoring registers its own (no data yet: 0) |
| behaviour | 10 | hook: monitoring registers its own (no data yet: 0) |

A factor may also set a floor for the whole score (a confirmed sanctions match makes an entity
critical whatever else is true). Other apps add or replace factors with `register_risk_factor`,
typically in their AppConfig.ready():

    register_risk_factor(RiskFactor("alert_history", "Alert history", 10, alert_history_severity))

where `alert_history_severity(entity) -> FactorResult`. A factor that reads the database may
give `gather(entity_ids) -> inputs`, read once for all the entities scored together (a monitoring
batch recomputes dozens at once); its `compute(entity, inputs)` then takes them. Scoring one
entity gathers for that entity alone, through the same reads.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from onboarding.choices import CheckType, EntityType, HitStatus
from onboarding.risk.tables import BUSINESS_BASE, INDIVIDUAL_BASE, UNKNOWN_INDUSTRY, industry_severity, jurisdiction_band


@dataclass(frozen=True)
class FactorResult:
    severity: float  # 0-1
    detail: str
    floor: int | None = None  # minimum total score this finding imposes


@dataclass(frozen=True)
class RiskFactor:
    name: str
    label: str
    weight: float
    compute: Callable[..., FactorResult]
    gather: Callable[[list], Any] | None = None

    def result(self, entity, gathered: dict) -> FactorResult:
        """This factor for one entity; `gathered` holds what gather() read, by factor name."""
        return self.compute(entity) if self.gather is None else self.compute(entity, gathered[self.name])


_factors: dict[str, RiskFactor] = {}


def register_risk_factor(factor: RiskFactor) -> RiskFactor:
    """Add a factor, or replace the one of the same name (the monitoring hooks)."""
    _factors[factor.name] = factor
    return factor


def risk_factors() -> list[RiskFactor]:
    return list(_factors.values())


# A customer of a jurisdiction under a FATF call for action or a comprehensive US embargo is at
# least high risk (enhanced due diligence) whatever else is known; its 25 points alone made a plain
# individual in Iran 'medium', which no examiner would accept.
HIGH_RISK_FLOOR_BANDS = frozenset({"call_for_action", "embargoed"})
HIGH_TIER_FLOOR = 50


def _jurisdiction(entity) -> FactorResult:
    band, severity, why = jurisdiction_band(entity.jurisdiction)
    return FactorResult(severity, f"{entity.jurisdiction}: {why}.", HIGH_TIER_FLOOR if band in HIGH_RISK_FLOOR_BANDS else None)


def _entity_profile(entity) -> FactorResult:
    severity, word = industry_severity(entity.industry or "")
    if word:
        return FactorResult(severity, f"{entity.get_entity_type_display()} in a {'higher' if severity >= 1 else 'elevated'}-risk "
                                      f"industry ({entity.industry!r} matches {word!r}).")
    if entity.entity_type == EntityType.BUSINESS and not entity.industry:
        return FactorResult(UNKNOWN_INDUSTRY, "Business with no industry given.")
    base = BUSINESS_BASE if entity.entity_type == EntityType.BUSINESS else INDIVIDUAL_BASE
    return FactorResult(base, f"{entity.get_entity_type_display()}" + (f" in {entity.industry!r}" if entity.industry else "")
                        + ": standard profile.")


def _screening_inputs(entity_ids: list) -> tuple[dict, dict, dict]:
    """Per entity: the scores of its open hits at or above the review threshold, its sanctions
    screenings as the approval reads them (the latest run, and the latest that covered the names: a
    wallet-only run does not hide a name that could not be screened), and how many of its current
    matches were cleared as false positives (an investigator's decision the explanation should show,
    not hide)."""
    from onboarding.models import ScreeningHit
    from onboarding.screening.thresholds import review_threshold
    from onboarding.selectors import sanctions_screenings

    hits: dict = defaultdict(list)
    cleared: dict = defaultdict(int)
    for entity_id, score, status in ScreeningHit.objects.filter(
            entity_id__in=entity_ids, active=True, score__gte=review_threshold(),
            check_run__check_type=CheckType.SANCTIONS).values_list("entity_id", "score", "status"):
        if status == HitStatus.OPEN:
            hits[entity_id].append(score)
        else:  # false_positive, or suppressed: the same decision met again
            cleared[entity_id] += 1
    return hits, sanctions_screenings(entity_ids), cleared


def _screening(entity, inputs: tuple[dict, dict, dict]) -> FactorResult:
    from onboarding.screening.thresholds import fail_threshold

    hits_by_entity, screenings_by_entity, cleared_by_entity = inputs
    hits = hits_by_entity.get(entity.pk, ())
    confirmed = [score for score in hits if score >= fail_threshold()]
    findings, severity, floor = [], 0.0, None
    if confirmed or entity.sanctioned:
        findings.append(f"{len(confirmed) or 1} confident sanctions match(es)")
        severity, floor = 1.0, 90
    elif hits:
        findings.append(f"{len(hits)} possible sanctions match(es) awaiting review")
        severity = 0.6
    if entity.pep:
        findings.append("politically exposed person")
        severity = max(severity, 0.5) + (0.2 if findings[:-1] else 0)
    if entity.adverse_media:
        findings.append("adverse media")
        severity = max(severity, 0.4) + (0.2 if findings[:-1] else 0)
    screenings = screenings_by_entity.get(entity.pk)
    if screenings is not None and screenings.failed() and not findings:
        findings.append("the last sanctions screening could not run")
        severity = 0.3
    elif screenings is not None and screenings.unreadable() and not findings:
        findings.append("a name the sanctions screening could not read awaits review")
        severity = 0.3
    if (screenings is None or screenings.names is None) and not findings:
        return FactorResult(0.3, "Not screened yet.")
    detail = ("; ".join(findings) or "no open screening findings").capitalize()
    if cleared_by_entity.get(entity.pk):
        count = cleared_by_entity[entity.pk]
        detail += f"; {count} sanctions match{'es' if count > 1 else ''} cleared as false positive{'s' if count > 1 else ''}"
    return FactorResult(min(severity, 1.0), detail + ".", floor)


def _no_monitoring_data(entity) -> FactorResult:
    return FactorResult(0.0, "No monitoring data is connected yet.")


register_risk_factor(RiskFactor("jurisdiction", "Jurisdiction", 25, _jurisdiction))
register_risk_factor(RiskFactor("entity_profile", "Entity type and industry", 20, _entity_profile))
register_risk_factor(RiskFactor("screening", "Screening results", 35, _screening, gather=_screening_inputs))
register_risk_factor(RiskFactor("alert_history", "Alert history", 10, _no_monitoring_data))
register_risk_factor(RiskFactor("behaviour", "Transaction behaviour", 10, _no_monitoring_data))
