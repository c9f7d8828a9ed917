"""The catalogue: all 53 rules, their metadata, parameter schemas and override validation (PATCH /v1/monitoring/rules/{id})."""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal

import pytest

from monitoring.rules import RULES, Family, InvalidParameters, get_rule, validate_overrides
from monitoring.rules.context import EVENT_KINDS
from monitoring.rules.registry import NOT_A_NUMBER
from tests.monitoring.rules import test_card, test_check, test_cross_channel, test_fiat, test_network, test_transactions

FAMILY_OF = {**dict.fromkeys(range(1, 24), Family.TRANSACTIONS), **dict.fromkeys((24, 25, 26, 34, 35, 36, 37, 38), Family.FIAT)}
FAMILY_OF |= {**dict.fromkeys(range(27, 34), Family.CROSS_CHANNEL), **dict.fromkeys(range(39, 45), Family.CARD)}
FAMILY_OF |= dict.fromkeys(range(45, 51), Family.CHECK) | dict.fromkeys(range(51, 54), Family.TRANSACTIONS)

# docs/rules.md, the catalogue's severity column.
SEVERITIES = {
    "critical": {2, 12, 34},
    "high": {3, 4, 11, 15, 21, 22, 25, 26, 31, 32, 33, 40, 41, 43, 45, 47, 50, 51, 52, 53},
    "low": {8, 16, 17, 19, 30, 36, 38, 49},
}


def test_fifty_three_rules_numbered_with_unique_codes():
    assert [rule.number for rule in RULES] == list(range(1, 54))
    assert len({rule.code for rule in RULES}) == 53


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_family_and_severity_follow_rules_md(rule):
    assert rule.family == FAMILY_OF[rule.number]
    expected = next((severity for severity, numbers in SEVERITIES.items() if rule.number in numbers), "medium")
    assert rule.severity == expected
    assert rule.score > 0 and rule.applies_to <= EVENT_KINDS and rule.applies_to


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_description_is_json_and_defaults_validate(rule):
    described = json.loads(json.dumps(rule.describe()))
    assert described["code"] == rule.code and described["number"] == rule.number
    assert {p["name"] for p in described["parameters"]} == set(rule.defaults)
    clean, errors = rule.validate_overrides(described["defaults"])
    assert errors == {} and clean == rule.defaults


def test_lookup_by_number_text_or_code():
    assert get_rule(3) is get_rule("3") is get_rule("structuring_below_threshold")
    with pytest.raises(KeyError):
        get_rule(54)


@pytest.mark.parametrize(
    ("code", "overrides", "clean"),
    [
        ("large_transfer", {"threshold_usd": 5000}, {"threshold_usd": Decimal(5000)}),
        ("large_transfer", {"threshold_usd": "7500.50"}, {"threshold_usd": Decimal("7500.50")}),
        ("large_transfer", {"threshold_usd": 2500.5}, {"threshold_usd": Decimal("2500.5")}),
        ("large_transfer", {"threshold_usd": None}, {}),
        ("high_velocity", {"short_min_count": 30, "long_window_hours": 48}, {"short_min_count": 30, "long_window_hours": 48}),
        ("high_velocity", {"short_min_count": "25"}, {"short_min_count": 25}),
        ("high_velocity", {"short_min_count": 25.0}, {"short_min_count": 25}),
        ("mixer_exposure", {"categories": ["mixer", " tumbler "]}, {"categories": frozenset({"mixer", "tumbler"})}),
        ("duplicate_fiat_transaction", {"event_types": ["ach_in", "ach_out"]}, {"event_types": frozenset({"ach_in", "ach_out"})}),
        ("large_fiat_transaction", {"closed_days": ["2025-12-25"]}, {"closed_days": frozenset({date(2025, 12, 25)})}),
        ("large_fiat_transaction", {"closed_days": []}, {"closed_days": frozenset()}),
        ("large_fiat_transaction", {"business_day_timezone": "America/Chicago"}, {"business_day_timezone": "America/Chicago"}),
        ("sanctioned_fiat_counterparty", {"min_score": "0.95"}, {"min_score": Decimal("0.95")}),
        ("structuring_below_threshold", {"band_floor_pct": 90}, {"band_floor_pct": Decimal(90)}),
    ],
)
def test_valid_overrides_come_back_typed(code, overrides, clean):
    assert validate_overrides(code, overrides) == (clean, {})


@pytest.mark.parametrize(
    ("code", "overrides", "errors"),
    [
        ("large_transfer", {"threshold": 5000}, {"threshold": ["unknown parameter; large_transfer takes ['threshold_usd']"]}),
        ("sanctioned_counterparty", {"x": 1}, {"x": ["unknown parameter; sanctioned_counterparty takes none"]}),
        ("large_transfer", {"threshold_usd": "ten"}, {"threshold_usd": [NOT_A_NUMBER]}),
        ("large_transfer", {"threshold_usd": True}, {"threshold_usd": [NOT_A_NUMBER]}),
        ("large_transfer", {"threshold_usd": "NaN"}, {"threshold_usd": ["must be a finite number"]}),
        ("large_transfer", {"threshold_usd": -1}, {"threshold_usd": ["must be at least 0"]}),
        ("large_transfer", {"threshold_usd": [1]}, {"threshold_usd": [NOT_A_NUMBER]}),
        ("high_velocity", {"short_min_count": 2.5}, {"short_min_count": ["must be a whole number"]}),
        ("high_velocity", {"short_min_count": 0}, {"short_min_count": ["must be at least 1"]}),
        ("high_velocity", {"short_window_hours": 100000}, {"short_window_hours": ["must be at most 8784"]}),
        ("rapid_pass_through", {"min_outflow_pct": 101}, {"min_outflow_pct": ["must be at most 100"]}),
        ("mixer_exposure", {"categories": "mixer"}, {"categories": ["must be a list of strings"]}),
        ("mixer_exposure", {"categories": []}, {"categories": ["must not be empty"]}),
        ("mixer_exposure", {"categories": ["mixer", ""]}, {"categories": ["every item must be a non-empty string"]}),
        (
            "duplicate_fiat_transaction",
            {"event_types": ["ach_in", "crypto"]},
            {"event_types": [f"unknown values ['crypto']; allowed: {list(get_rule(38).params[1].choices)}"]},
        ),
        ("large_fiat_transaction", {"closed_days": ["25/12/2025"]}, {"closed_days": ["every item must be a date YYYY-MM-DD"]}),
        (
            "large_fiat_transaction",
            {"business_day_timezone": "Mars/Olympus"},
            {"business_day_timezone": ["must be an IANA time zone such as America/New_York, or empty"]},
        ),
        ("sanctioned_fiat_counterparty", {"min_score": 1.5}, {"min_score": ["must be at most 1"]}),
        ("fiat_structuring", {"band_floor_usd": 12000}, {"non_field_errors": ["band_floor_usd must be below threshold_usd"]}),
        (
            "monetary_instrument_structuring",
            {"band_floor_usd": 9000, "band_ceiling_usd": 8000},
            {"non_field_errors": ["band_floor_usd must be below band_ceiling_usd"]},
        ),
        ("structuring_below_threshold", {"band_floor_pct": 100}, {"non_field_errors": ["band_floor_pct must be below 100"]}),
    ],
)
def test_invalid_overrides_are_reported_per_parameter(code, overrides, errors):
    assert validate_overrides(code, overrides) == (None, errors)


def test_effective_params_merge_defaults_and_raise_on_errors():
    rule = get_rule("fan_in")
    assert rule.effective_params({"min_senders": 20}) == {"min_senders": 20, "window_hours": 72, "min_inflow_usd": Decimal(10000),
                                                          "min_outflow_pct": Decimal(80), "max_senders": 200}
    with pytest.raises(InvalidParameters) as raised:
        rule.effective_params({"min_senders": "many"})
    assert raised.value.errors == {"min_senders": [NOT_A_NUMBER]}


def test_fires_when_names_the_parameters_in_force():
    """Issue 30: after a change the definition must not describe the defaults alone."""
    rule = get_rule("rapid_pass_through")
    assert rule.fires_when_with(rule.defaults) == rule.fires_when
    changed = rule.effective_params({"window_hours": 48, "min_outflow_pct": "95"})
    assert rule.fires_when_with(changed) == rule.fires_when + " by default; here window_hours 48, min_outflow_pct 95"


def test_params_json_is_storable():
    rule = get_rule("large_fiat_transaction")
    params = rule.effective_params({"closed_days": ["2025-12-25"], "threshold": "15000"})
    stored = rule.params_json(params)
    assert stored == {"threshold": "15000", "business_day_timezone": "", "closed_days": ["2025-12-25"]}
    assert rule.effective_params(json.loads(json.dumps(stored))) == params


@pytest.mark.parametrize(
    ("code", "overrides", "reach"),
    [
        ("structuring_below_threshold", {}, timedelta(hours=24)),
        ("high_velocity", {"long_window_hours": 72}, timedelta(hours=72)),
        ("volume_spike", {}, timedelta(days=31)),
        ("new_counterparty_large_wire", {}, timedelta(days=90)),
        ("large_fiat_transaction", {"closed_days": ["2025-12-25", "2025-12-26"]}, timedelta(days=6)),
        ("large_transfer", {}, timedelta(0)),
    ],
)
def test_lookback_follows_the_windows(code, overrides, reach):
    rule = get_rule(code)
    assert rule.lookback(rule.effective_params(overrides)) == reach


TABLES = {
    **test_transactions.TABLES,
    **test_fiat.TABLES,
    **test_cross_channel.TABLES,
    **test_card.TABLES,
    **test_check.TABLES,
    **test_network.TABLES,
}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_every_rule_has_a_table_that_fires_stays_silent_and_skips_without_a_price(rule):
    expectations = [scenario.expect for scenario in TABLES[rule.code].values()]
    assert "hit" in expectations and None in expectations
    assert "skipped" in expectations or not rule.value_based


@pytest.mark.parametrize("rule", [rule for rule in RULES if rule.reads], ids=lambda r: r.code)
def test_every_windowed_rule_has_a_just_outside_the_window_case(rule):
    names = " ".join(TABLES[rule.code]).lower()
    assert "outside" in names


def test_exponent_notation_is_stored_plain():
    """'1e5' is 100000 in the settings the console and the API show, not '1E+5'."""
    rule = get_rule("large_transfer")
    assert rule.params_json(rule.effective_params({"threshold_usd": "1e5"})) == {"threshold_usd": "100000"}
