"""Human words for alerts: the rule's name and a one-line description of the hit."""

from monitoring.rules import get_rule


def rule_name(code: str) -> str:
    return code.replace("_", " ").capitalize()


def _value(value) -> str:
    if isinstance(value, list):
        return f"{len(value)} items"
    return str(value)


def alert_description(result) -> str:
    """'Large transfer: one transfer ≥ 10,000 USD (usd_value 12500.00, threshold_usd 10000).'"""
    rule = get_rule(result.rule_code)
    measured = result.evidence.get("measured", {})
    shown = ", ".join(f"{name} {_value(value)}" for name, value in list(measured.items())[:4])
    return f"{rule_name(rule.code)}: {rule.fires_when}" + (f" (measured: {shown})." if shown else ".")
