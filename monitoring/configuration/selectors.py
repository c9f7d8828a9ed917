"""An organization's rule settings and lists, as the pure engine takes them (monitoring.rules)."""

from collections import defaultdict

from monitoring.models import AddressTag, AssetPrice, BlockedAddress, CodeListEntry, RuleSetting
from monitoring.rules import EngineSettings, OrgLists
from monitoring.rules import RuleSetting as EngineRuleSetting
from onboarding.models import SanctionsDigitalAddress

SANCTIONS_CATEGORY = "sanctions"


def rule_settings_of(organization) -> dict[str, RuleSetting]:
    return {setting.rule_code: setting for setting in RuleSetting.objects.filter(organization=organization).order_by("rule_code")}


def engine_settings(organization, *, only: list[str] | None = None, overrides: dict | None = None) -> EngineSettings:
    """The organization's settings; `overrides` ({code: {...}}) replace stored ones (backtests)."""
    stored = {
        code: EngineRuleSetting(enabled=s.enabled, parameters=s.parameters, severity=s.severity or None)
        for code, s in rule_settings_of(organization).items()
    }
    return EngineSettings.build({**stored, **(overrides or {})}, only=only)


def _codes(organization, list_name: str) -> frozenset[str] | None:
    codes = CodeListEntry.objects.filter(organization=organization, list_name=list_name).values_list("code", flat=True)
    return frozenset(codes) if codes else None


def _sanctioned_addresses() -> dict:
    """Every digital-currency address of the loaded sanctions lists, on every chain (an OFAC EVM
    address is the same on every EVM chain), named after its list."""
    rows = SanctionsDigitalAddress.objects.select_related("entry__sanctions_list").values_list(
        "address", "entry__sanctions_list__source")
    return {(None, address): source for address, source in rows}


def org_lists(organization) -> OrgLists:
    tags: dict = defaultdict(set)
    for chain_id, address, category in AddressTag.objects.filter(organization=organization).values_list(
            "chain_id", "address", "category"):
        tags[(chain_id, address)].add(category)
    prices = {asset: rate for asset, rate in AssetPrice.objects.filter(organization=organization).values_list("asset", "usd_rate")}
    optional = {
        name: codes for name in ("high_risk_jurisdictions", "privacy_assets", "high_risk_mccs")
        if (codes := _codes(organization, name)) is not None
    }
    return OrgLists(
        asset_prices=prices or {"USD": 1},
        address_tags={key: frozenset(value) for key, value in tags.items()},
        sanctioned_addresses=_sanctioned_addresses(),
        blocked_addresses=frozenset(BlockedAddress.objects.filter(organization=organization).values_list("chain_id", "address")),
        **optional,
    )
