"""An organization's rule settings and lists, as the pure engine takes them (monitoring.rules)."""

from collections import defaultdict
from dataclasses import replace

from django.db.models import Count

from common.errors import NotFound
from monitoring.configuration.defaults import CODE_LISTS
from monitoring.models import AddressTag, AssetPrice, BlockedAddress, CodeListEntry, RuleSetting
from monitoring.rules import RULES, EngineSettings, OrgLists, Rule, get_rule
from monitoring.rules import RuleSetting as EngineRuleSetting
from onboarding.models import SanctionsDigitalAddress, SanctionsList
from onboarding.selectors import screening_sources

SANCTIONS_CATEGORY = "sanctions"


def rule_settings_of(organization) -> dict[str, RuleSetting]:
    return {setting.rule_code: setting for setting in RuleSetting.objects.filter(organization=organization).order_by("rule_code")}


def engine_settings(organization, *, only: list[str] | None = None, overrides: dict | None = None) -> EngineSettings:
    """The organization's settings; `overrides` ({code: {field: value}}) change those fields of the
    stored setting and keep the others (a backtest's "current" side is the stored parameters, enabled)."""
    stored = {
        code: EngineRuleSetting(enabled=s.enabled, parameters=s.parameters, severity=s.severity or None, shadow=s.shadow)
        for code, s in rule_settings_of(organization).items()
    }
    for code, changes in (overrides or {}).items():
        stored[code] = replace(stored.get(code, EngineRuleSetting()), **changes)
    return EngineSettings.build(stored, only=only)


def _codes(organization, list_name: str) -> frozenset[str] | None:
    codes = CodeListEntry.objects.filter(organization=organization, list_name=list_name).values_list("code", flat=True)
    return frozenset(codes) if codes else None


def _screened_lists(organization) -> dict:
    """ORM filter of the loaded lists that count as sanctions lists for the organization, from a
    SanctionsList: of category `sanctions` (a PEP dataset's entries are no sanctioned parties) and
    screened by the organization (onboarding.selectors.screening_sources, kept per process for a few
    seconds: a list turned on or off applies within SOURCES_CACHE_SECONDS in other processes)."""
    return {"category": SANCTIONS_CATEGORY, "source__in": sorted(screening_sources(organization))}


def _entry_lists(organization) -> dict:
    """_screened_lists from a SanctionsDigitalAddress."""
    return {f"entry__sanctions_list__{name}": value for name, value in _screened_lists(organization).items()}


def _sanctioned_addresses(organization) -> dict:
    """Every digital-currency address of the organization's sanctions lists (_screened_lists), on
    every chain (an OFAC EVM address is the same on every EVM chain), named after its list."""
    rows = SanctionsDigitalAddress.objects.filter(**_entry_lists(organization)).values_list("address", "entry__sanctions_list__source")
    return {(None, address): source for address, source in rows}


def org_lists(organization) -> OrgLists:
    tags: dict = defaultdict(set)
    for chain_id, address, category in AddressTag.objects.filter(organization=organization).values_list(
            "chain_id", "address", "category"):
        tags[(chain_id, address)].add(category)
    # USD is 1 also for an organization that removed its row (the services refuse any other rate for it).
    prices = {"USD": 1, **dict(AssetPrice.objects.filter(organization=organization).values_list("asset", "usd_rate"))}
    optional = {
        name: codes for name in ("high_risk_jurisdictions", "privacy_assets", "high_risk_mccs")
        if (codes := _codes(organization, name)) is not None
    }
    return OrgLists(
        asset_prices=prices,
        address_tags={key: frozenset(value) for key, value in tags.items()},
        sanctioned_addresses=_sanctioned_addresses(organization),
        blocked_addresses=frozenset(BlockedAddress.objects.filter(organization=organization).values_list("chain_id", "address")),
        **optional,
    )


# --- Rule settings as the API and the admin show them ------------------------------------------

# Which of the organization's lists each rule reads (besides asset prices for every value-based rule).
RULE_LISTS = {
    2: ("sanctions_addresses", "address_tags", "blocked_addresses"),
    11: ("address_tags",), 12: ("address_tags",), 16: ("address_tags",), 21: ("address_tags",),
    13: ("privacy_assets",), 22: ("high_risk_jurisdictions",), 43: ("high_risk_jurisdictions",),
    34: ("sanctions_names",), 39: ("high_risk_mccs",),
}  # fmt: skip


def rule_or_404(rule_id) -> Rule:
    """A rule by number (3, "3") or code; a 404 naming what was asked for otherwise."""
    try:
        return get_rule(rule_id)
    except (KeyError, ValueError, TypeError):
        raise NotFound(f"No rule {str(rule_id)[:80]!r}: use a number from 1 to {len(RULES)} or a rule code.") from None


def _effective_overrides(rule: Rule, stored: dict) -> tuple[dict, dict]:
    """(typed overrides in force, problems of stored ones). Stored overrides passed validation when
    written; one that no longer does (a parameter renamed since) is shown, not a 500."""
    clean, errors = rule.validate_overrides(stored)
    if not errors:
        return clean, {}
    usable = {}
    for name, raw in stored.items():
        one, _ = rule.validate_overrides({name: raw})
        usable.update(one or {})
    return usable, errors


def rule_view(rule: Rule, setting: RuleSetting | None) -> dict:
    stored = setting.parameters if setting else {}
    overrides, problems = _effective_overrides(rule, stored if isinstance(stored, dict) else {})
    described = rule.describe()
    return {
        "number": rule.number, "code": rule.code, "family": described["family"],
        "enabled": setting.enabled if setting else True, "shadow": setting.shadow if setting else False,
        "severity": (setting.severity if setting and setting.severity else described["severity"]),
        "default_severity": described["severity"], "score": rule.score,
        "parameters": rule.params_json({**rule.defaults, **overrides}), "overrides": rule.params_json(overrides),
        "defaults": described["defaults"], "parameter_schema": described["parameters"], "override_errors": problems,
        "fires_when": rule.fires_when_with({**rule.defaults, **overrides}), "typology": rule.typology,
        "applies_to": described["applies_to"],
        "value_based": rule.value_based,
        "lists": [*RULE_LISTS.get(rule.number, ()), *(("asset_prices",) if rule.value_based else ())],
        "updated_at": setting.updated_at if setting else None,
        "updated_by": setting.updated_by.email if setting and setting.updated_by else None,
    }  # fmt: skip


def _settings_with_users(organization):
    return RuleSetting.objects.filter(organization=organization).select_related("updated_by").order_by("rule_code")


def rule_views(organization, *, family: str | None = None, enabled: bool | None = None) -> list[dict]:
    """All 50 rules in number order with the organization's settings, optionally filtered."""
    settings = {setting.rule_code: setting for setting in _settings_with_users(organization)}
    views = [rule_view(rule, settings.get(rule.code)) for rule in RULES if family in (None, rule.family)]
    return [view for view in views if enabled in (None, view["enabled"])]


def rule_view_of(organization, rule_id) -> dict:
    rule = rule_or_404(rule_id)
    return rule_view(rule, _settings_with_users(organization).filter(rule_code=rule.code).first())


def sanctions_address_counts(organization=None) -> dict[str, int]:
    """Distinct digital-currency addresses per loaded list of category `sanctions`: the organization's
    `sanctions` tags (only the lists it screens against); with None, those of every such list."""
    addresses = SanctionsDigitalAddress.objects.filter(entry__sanctions_list__category=SANCTIONS_CATEGORY)
    if organization is not None:
        addresses = addresses.filter(**_entry_lists(organization))
    return dict(addresses.values_list("entry__sanctions_list__source")
                .annotate(n=Count("address", distinct=True)).order_by("entry__sanctions_list__source"))


def lists_summary(organization) -> dict:
    """What each list holds: counts, and the codes in force (the engine's defaults for a list the
    organization left empty). The addresses of the sanctions lists it screens against count as
    `sanctions` tags (read-only), and their names are `sanctions_names` (the list rule 34 names)."""
    codes = defaultdict(list)
    for list_name, code in CodeListEntry.objects.filter(organization=organization).values_list("list_name", "code"):
        codes[list_name].append(code)
    categories = AddressTag.objects.filter(organization=organization).values_list("category").annotate(n=Count("id")).order_by("category")
    by_list = sanctions_address_counts(organization)
    names = SanctionsList.objects.filter(**_screened_lists(organization)).values_list("name_count", flat=True)
    summary = {
        "asset_prices": {"count": AssetPrice.objects.filter(organization=organization).count()},
        "address_tags": {"count": sum(n for _, n in categories), "by_category": dict(categories)},
        "sanctions_addresses": {"count": sum(by_list.values()), "by_list": by_list, "category": SANCTIONS_CATEGORY},
        "sanctions_names": {"count": sum(names)},
        "blocked_addresses": {"count": BlockedAddress.objects.filter(organization=organization).count()},
    }
    for list_name, defaults in CODE_LISTS.items():
        stored = sorted(codes.get(list_name, []))
        summary[list_name] = {"count": len(stored), "codes": stored or sorted(defaults), "defaults_in_use": not stored}
    return summary
