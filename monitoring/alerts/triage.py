"""A triage recommendation for an alert, built only from stored facts: the hit's evidence (how far
past its thresholds), how this organization disposed the rule's earlier alerts, the entity's risk,
the severity and how often the alert fired. Deterministic: the same facts give the same answer."""

from decimal import Decimal, InvalidOperation

from monitoring.alerts.selectors import disposition_rates
from monitoring.models import Alert

SEVERITY_WEIGHT = {"low": 0.0, "medium": 0.1, "high": 0.2, "critical": 0.35}
RISK_WEIGHT = {"low": -0.05, "medium": 0.0, "high": 0.1, "critical": 0.2}


def _exceedance(evidence: dict) -> tuple[float, list[str]]:
    """The largest measured/threshold ratio among parameters that look like thresholds."""
    parameters, measured, reasons, best = evidence.get("parameters", {}), evidence.get("measured", {}), [], 0.0
    for name, limit in parameters.items():
        if not name.startswith(("threshold", "min_")):
            continue
        for measured_name, value in measured.items():
            try:
                ratio = float(Decimal(str(value)) / Decimal(str(limit)))
            except (InvalidOperation, ZeroDivisionError, ValueError, TypeError):
                continue
            if ratio >= 1 and ratio > best:
                best = ratio
                reasons.append(f"{measured_name} is {ratio:.1f}× the {name} ({value} vs {limit}).")
    return best, reasons[-1:]


def _history(alert: Alert) -> tuple[float, str | None]:
    rates = disposition_rates(organization=alert.organization, mode=alert.mode, rule_code=alert.rule_code, excluding=alert.pk)
    total = sum(rates.values())
    if total < 5:
        return 0.0, f"Too few earlier dispositions of {alert.rule_code} ({total}) to weigh its history."
    share = rates.get("true_positive", 0) / total
    return (share - 0.3) * 0.6, f"{share:.0%} of the {total} earlier {alert.rule_code} alerts were true positives."


def triage(alert: Alert) -> dict:
    score, reasons = 0.3 + SEVERITY_WEIGHT.get(alert.severity, 0), [f"Severity {alert.severity}."]
    exceed, exceed_reasons = _exceedance(alert.evidence)
    if exceed >= 2:
        score += 0.15
    reasons += exceed_reasons
    history, history_reason = _history(alert)
    score += history
    reasons.append(history_reason)
    tier = alert.entity.risk_tier or None
    score += RISK_WEIGHT.get(tier or "", 0)
    reasons.append(f"The entity's risk tier is {tier}." if tier else "The entity has no risk tier yet.")
    if alert.hit_count > 1:
        score += min(0.05 * (alert.hit_count - 1), 0.2)
        reasons.append(f"The rule fired {alert.hit_count} times on this alert.")
    score = max(0.0, min(score, 1.0))
    if alert.disposed_at:  # what the facts say, beside what was decided
        reasons.append(f"The alert is closed already: {alert.disposition}, set by {alert.disposed_by_label or 'an analyst'} "
                       f"on {alert.disposed_at:%Y-%m-%d}.")
    recommendation = "escalate" if score >= 0.65 else "review" if score >= 0.35 else "likely_false_positive"
    return {"alert_id": str(alert.pk), "recommendation": recommendation, "priority_score": round(score, 2),
            "reasons": reasons, "generator": "deterministic"}
