"""Risk scoring: an explainable 0-100 score and a tier from named, weighted factors.

    from onboarding.risk import risk_recompute, risks_recompute, register_risk_factor, RiskFactor, FactorResult

- risk_recompute(*, entity, reason, actor=None): score, store factors, history row + event on change.
- risks_recompute(*, entity_ids, reason, actor=None): the same for many entities in one pass.
- register_risk_factor(RiskFactor(name, label, weight, compute, gather=None)): add or replace a
  factor (monitoring replaces the `alert_history` and `behaviour` hooks); `gather(entity_ids)` reads
  a factor's inputs once for all the entities scored together.
- narrative.risk_explanation(entity): the readable explanation (deterministic, or an LLM when configured).
"""

from onboarding.risk.factors import FactorResult, RiskFactor, register_risk_factor, risk_factors  # noqa: F401
from onboarding.risk.scoring import score_entities, tier_of  # noqa: F401
from onboarding.risk.services import risk_recompute, risks_recompute  # noqa: F401
