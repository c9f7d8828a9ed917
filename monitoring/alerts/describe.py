"""Human words for alerts: the rule's name and a one-line description of the hit."""

from functools import cache

from monitoring.rules import get_rule


def rule_name(code: str) -> str:
    return code.replace("_", " ").capitalize()


def _value(value) -> str:
    if isinstance(value, list):
        return f"{len(value)} items"
    return str(value)


@cache
def _defaults(code: str) -> dict:
    rule = get_rule(code)
    return rule.params_json(rule.effective_params({}))


def alert_description(result) -> str:
    """'Large transfer: one transfer ≥ 10,000 USD (measured: usd_value 12500.00).' The rule's words
    state its default parameters: where the organization changed some, the description says so
    ('… by default; here threshold_usd 100000') rather than quote a threshold that did not apply."""
    rule = get_rule(result.rule_code)
    measured = result.evidence.get("measured", {})
    shown = ", ".join(f"{name} {_value(value)}" for name, value in list(measured.items())[:4])
    defaults = _defaults(rule.code)
    changed = {name: value for name, value in result.evidence.get("parameters", {}).items() if defaults.get(name) != value}
    when = rule.fires_when
    if changed:
        when += " by default; here " + ", ".join(f"{name} {_value(value)}" for name, value in changed.items())
    return f"{rule_name(rule.code)}: {when}" + (f" (measured: {shown})." if shown else ".")
