"""Risk scoring: an explainable 0-100 score and a tier from named, weighted factors.

    from onboarding.risk import risk_recompute, register_risk_factor, RiskFactor, FactorResult

- risk_recompute(*, entity, reason, actor=None): score, store factors, history row + event on change.
- register_risk_factor(RiskFactor(name, label, weight, compute)): add or replace a factor
  (monitoring replaces the `alert_history` and `behaviour` hooks).
- narrative.risk_explanation(entity): the readable explanation (deterministic, or an LLM when configured).
"""

from onboarding.risk.factors import FactorResult, RiskFactor, register_risk_factor, risk_factors  # noqa: F401
from onboarding.risk.scoring import score_entity, tier_of  # noqa: F401
from onboarding.risk.services import risk_recompute  # noqa: F401
