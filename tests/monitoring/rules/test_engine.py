"""The engine: which rules run, per-organization settings, what results carry, and replays matching live traffic."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from decimal import Decimal

import pytest

from monitoring.rules import (
    DEFAULT_SETTINGS,
    RULES,
    EngineSettings,
    Entity,
    EntityContext,
    EntityHistory,
    InvalidSettings,
    Lookback,
    OrgLists,
    RuleSetting,
    evaluate,
    evaluate_in_order,
)
from monitoring.rules.context import FIAT_EVENT_TYPES
from monitoring.rules.registry import NOT_A_NUMBER
from tests.monitoring.rules.builders import T0, fiat, hours, minutes, tx


def context(*events, **kw) -> EntityContext:
    txs = [e for e in events if e.kind == "transaction"]
    fiats = [e for e in events if e.kind != "transaction"]
    return EntityContext(entity=kw.pop("entity", Entity(id="entity-1", jurisdiction="US")), history=EntityHistory(txs, fiats), **kw)


def codes(results) -> set[str]:
    return {r.rule_code for r in results}


def test_a_fiat_event_runs_only_the_rules_for_its_kind():
    wire = fiat("wire_in", "50000", name="Acme")
    results = evaluate(wire, context(wire))
    assert codes(results) == {"large_fiat_transaction", "new_counterparty_large_wire"}
    assert all(r.event_kind == "wire_in" for r in results)


def test_rules_are_grouped_by_event_kind():
    for kind in ("transaction", *FIAT_EVENT_TYPES):
        assert all(kind in active.rule.applies_to for active in DEFAULT_SETTINGS.rules_for(kind))
    assert len(DEFAULT_SETTINGS.rules_for("transaction")) == 23 + 6 + 3  # rules 1–23, 27, 29–33, 51–53


def test_a_hit_carries_what_the_alert_store_needs():
    earlier, now = tx("9000", ago=hours(5)), tx("9000")
    result = next(r for r in evaluate(now, context(tx("9000", ago=hours(8)), earlier, now)) if r.rule_code == "structuring_below_threshold")
    assert (result.rule_number, result.family, result.outcome, result.severity, result.score) == (3, "transactions", "hit", "high", 20)
    assert (result.entity_id, result.event_id, result.event_kind) == ("entity-1", now.id, "transaction")
    assert set(result.evidence) == {"parameters", "measured"}
    assert result.transaction_ids[-2:] == (earlier.id, now.id) and result.fiat_event_ids == ()
    assert json.loads(json.dumps(result.as_dict()))["evidence"]["measured"]["total_usd"] == "27000"


def test_a_skip_is_returned_with_its_reason():
    unpriced = tx(None, asset="SHIB")
    skipped = [r for r in evaluate(unpriced, context(unpriced)) if r.outcome == "skipped"]
    assert "large_transfer" in codes(skipped)
    assert {r.reason for r in skipped} == {"no USD price for SHIB"}
    assert all(r.evidence == {"reason": "no USD price for SHIB"} and not r.is_hit for r in skipped)


def test_count_rules_still_run_without_prices():
    burst = [tx(None, ago=minutes(i)) for i in range(1, 20)] + [tx(None)]
    results = evaluate(burst[-1], context(*burst))
    assert next(r for r in results if r.rule_code == "high_velocity").is_hit


def test_disabled_rules_do_not_run_and_overrides_apply():
    big = tx("6000")
    settings = EngineSettings.build({"new_wallet_large_transfer": {"enabled": False}, 1: RuleSetting(parameters={"threshold_usd": "5000"})})
    results = evaluate(big, context(big), settings)
    assert "new_wallet_large_transfer" not in codes(results)
    large = next(r for r in results if r.rule_code == "large_transfer")
    assert large.evidence["parameters"] == {"threshold_usd": "5000"}
    assert "new_wallet_large_transfer" not in settings and "large_transfer" in settings


def test_severity_can_be_raised_per_organization():
    big = tx("20000")
    settings = EngineSettings.build({"large_transfer": RuleSetting(severity="critical")}, only=["large_transfer"])
    assert [r.severity for r in evaluate(big, context(big), settings)] == ["critical"]


def test_invalid_settings_are_reported_by_rule():
    with pytest.raises(InvalidSettings) as raised:
        EngineSettings.build({"large_transfer": {"parameters": {"threshold_usd": "lots"}}, "no_such_rule": {}, 3: {"severity": "urgent"}})
    assert raised.value.errors == {
        "large_transfer": {"threshold_usd": [NOT_A_NUMBER]},
        "no_such_rule": "unknown rule",
        "structuring_below_threshold": "'urgent' is not a valid Severity",
    }


def test_malformed_settings_are_reported_too():
    with pytest.raises(InvalidSettings) as raised:
        EngineSettings.build({"fan_in": {"enabled": True, "threshold": 3}})
    assert raised.value.errors == {"fan_in": "a rule setting takes ['enabled', 'parameters', 'severity', 'shadow']"}
    with pytest.raises(InvalidSettings) as raised:
        EngineSettings.build(only=["no_such_rule"])
    assert raised.value.errors == {"no_such_rule": "unknown rule"}


def test_lookback_tells_storage_how_much_history_to_load():
    assert DEFAULT_SETTINGS.lookback() == Lookback(transactions=timedelta(days=31), fiat=timedelta(days=90))
    trimmed = EngineSettings.build({code: {"enabled": False} for code in ("volume_spike", "counterparty_concentration")})
    assert trimmed.lookback().transactions == timedelta(days=30)  # profile and peer rules read 30 days of all channels
    only_velocity = EngineSettings.build(only=["high_velocity"])
    assert only_velocity.lookback() == Lookback(transactions=timedelta(hours=24), fiat=timedelta(0))


def test_an_event_missing_from_the_history_is_evaluated_as_if_it_were_there():
    earlier = [tx("9000", ago=hours(h)) for h in (3, 2)]
    now = tx("9000")
    assert [r.as_dict() for r in evaluate(now, context(*earlier))] == [r.as_dict() for r in evaluate(now, context(*earlier, now))]


def test_later_events_in_the_loaded_history_are_invisible():
    now, later = tx("9000"), [tx("9000", ago=-hours(h)) for h in (1, 2)]
    assert "structuring_below_threshold" not in codes(evaluate(now, context(now, *later)))


def _mixed_history(seed: int, n: int = 300) -> list:
    rng = random.Random(seed)
    events = []
    for _ in range(n):
        ago = timedelta(minutes=rng.randrange(0, 60 * 24 * 20))
        usd = str(rng.choice([None, "500", "999", "3000", "5000", "9000", "9500", "10000", str(rng.randrange(1, 20000))]))
        if rng.random() < 0.6:
            direction = rng.choice(["in", "in", "out", "self"])
            events.append(
                tx(
                    None if usd == "None" else usd,
                    ago=ago,
                    direction=direction,
                    cp=f"0xcp{rng.randrange(15)}",
                    chain=rng.choice([1, 1, 56, 137]),
                )
            )
        else:
            kind = rng.choice(FIAT_EVENT_TYPES)
            extra = (
                {"check_number": str(1000 + rng.randrange(10)), "deposit_method": rng.choice(["teller", "rdc_mobile"])}
                if kind == "check_deposit"
                else {}
            )
            extra |= {"check_type": "money_order"} if kind == "check_purchase" else {}
            extra |= {"merchant_category_code": rng.choice(["7995", "5411"]), "card_type": "prepaid"} if kind.startswith("card") else {}
            events.append(fiat(kind, None if usd == "None" else usd, ago=ago, name=f"Party {rng.randrange(8)}", **extra))
    events.append(tx("10", ago=timedelta(0)))
    events.append(fiat("wire_in", "10", ago=timedelta(0)))  # the same instant on the other channel
    return sorted(events, key=lambda e: e.timestamp)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_replay_over_the_whole_history_matches_live_evaluation(seed):
    """Live: each event is evaluated when it arrives, with the history so far. Replay: everything loaded at once."""
    events = _mixed_history(seed)
    entity = Entity(id="entity-1", jurisdiction="US", expected_monthly_volume_usd=Decimal(20000), onboarded_at=T0 - timedelta(days=400))
    lists = OrgLists(asset_prices={"USD": Decimal(1)})
    live = [r.as_dict() for i, event in enumerate(events) for r in evaluate(event, context(*events[: i + 1], entity=entity, lists=lists))]
    replay = [r.as_dict() for r in evaluate_in_order(events, context(*events, entity=entity, lists=lists))]
    assert live == replay
    assert len({r["rule_code"] for r in replay}) >= 15


def test_every_rule_is_enabled_by_default():
    assert [active.rule for active in DEFAULT_SETTINGS.active] == list(RULES)
