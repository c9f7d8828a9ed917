"""The context's building blocks: events, windows cut at the event, volumes, shared helpers, name screening."""

from __future__ import annotations

import random
from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from monitoring.rules import EntityHistory, FiatEvent, OrgLists, SanctionsNameIndex, Transaction
from monitoring.rules.context import (
    Hit,
    Skip,
    business_day,
    either,
    json_ready,
    latest_pass_through,
    pass_through_episodes,
    ratio,
    span,
)
from tests.monitoring.rules.builders import T0, days, fiat, hours, seconds, tx

NEW_YORK = ZoneInfo("America/New_York")


def test_events_refuse_naive_timestamps_and_unknown_types():
    with pytest.raises(ValueError, match="timezone-aware"):
        Transaction(id="t", timestamp=datetime(2025, 1, 1), direction="in", amount=Decimal(1), usd_value=None, counterparty_address="x")
    with pytest.raises(ValueError, match="unknown fiat event type"):
        FiatEvent(id="f", timestamp=T0, event_type="cash_in", amount=Decimal(1), usd_value=None)


def test_fiat_direction_and_kind():
    assert (fiat("card_refund").direction, fiat("check_purchase").direction, fiat("ach_out").kind) == ("in", "out", "ach_out")
    assert tx(direction="self", cp="0xb").own_addresses == ("0xme", "0xb")


def test_windows_start_inclusive_and_end_at_the_event():
    edge, outside, now, later = tx(ago=hours(24)), tx(ago=hours(24) + seconds(1)), tx(), tx(ago=-seconds(1))
    view = EntityHistory([later, now, edge, outside]).view_at(now)
    assert list(view.transactions(hours=24)) == [edge, now]
    assert view.transactions(hours=24) is view.transactions(hours=24)  # cached for the other rules
    assert view.transactions(hours=24, direction="out") == []


def test_same_timestamp_events_of_the_same_channel_keep_their_given_order():
    first, second = tx(id="a"), tx(id="b")
    history = EntityHistory([first, second])
    assert list(history.view_at(first).transactions(hours=1)) == [first]
    assert list(history.view_at(second).transactions(hours=1)) == [first, second]


def test_volumes_leave_out_own_wallet_transfers_and_count_unpriced_events():
    events = [
        tx("100", ago=hours(30)),
        tx("200", ago=hours(3)),
        tx("5000", direction="self", cp="0xb", ago=hours(2)),
        tx(None, ago=hours(1)),
        tx("50"),
    ]
    view = EntityHistory(events).view_at(events[-1])
    day = view.transaction_volume(hours=24)
    assert (day.usd, day.events, day.unpriced) == (Decimal(250), 2, 1)
    before = view.transaction_volume(days=2, ending_hours_ago=24)
    assert (before.usd, before.events) == (Decimal(100), 1)


@pytest.mark.parametrize("seed", range(40))
def test_volumes_match_a_plain_sum_over_the_window(seed):
    """The running sums (a fast path for histories with nothing unpriced and no own-wallet transfer,
    the general one otherwise) give every window exactly the sum of its events."""
    rng = random.Random(seed)
    plain = seed % 2 == 0  # every transfer priced and none between own wallets
    events = [tx(None if not plain and rng.random() < 0.2 else str(rng.randrange(1, 10_000)),
                 direction="self" if not plain and rng.random() < 0.2 else rng.choice(["in", "out"]), cp="0xb",
                 ago=hours(rng.randrange(0, 80)), id=f"t{i}") for i in range(rng.randrange(1, 25))]
    payments = [fiat("wire_in", None if not plain and rng.random() < 0.2 else str(rng.randrange(1, 5000)), ago=hours(rng.randrange(0, 80)))
                for _ in range(rng.randrange(0, 6))]
    history = EntityHistory(events, payments)
    for event in events:
        view = history.view_at(event)
        for width in (1, 24, 48, 72):
            counted = [t for t in view.transactions(hours=width) if t.direction != "self"]
            volume = view.transaction_volume(hours=width)
            priced = [t.usd_value for t in counted if t.usd_value is not None]
            assert (volume.usd, volume.events, volume.unpriced) == (sum(priced, Decimal(0)), len(priced), len(counted) - len(priced))
            paid = [ev.usd_value for ev in view.fiat_events(hours=width)]
            fiat_volume = view.fiat_volume(hours=width)
            priced_paid = [value for value in paid if value is not None]
            assert (fiat_volume.usd, fiat_volume.events, fiat_volume.unpriced) == (
                sum(priced_paid, Decimal(0)), len(priced_paid), len(paid) - len(priced_paid))


def test_previous_activity_spans_both_channels_and_older_history():
    now = tx()
    assert EntityHistory([now], earlier_activity_at=T0 - days(400)).view_at(now).previous_activity_at() == T0 - days(400)
    wire = fiat("wire_in", ago=days(2))
    assert EntityHistory([tx(ago=days(9)), now], [wire]).view_at(now).previous_activity_at() == wire.timestamp


def test_first_contacts_remember_counterparties_known_before_the_history():
    old, new, again = tx(cp="0xold"), tx(cp="0xnew", ago=hours(2)), tx(cp="0xnew", ago=hours(1))
    view = EntityHistory([old, new, again], known_counterparties=[(1, "0xold")]).view_at(old)
    assert [view.is_first_contact(t) for t in (old, new, again)] == [False, True, False]


@pytest.mark.parametrize(
    ("local", "closed", "posts_on"),
    [
        (datetime(2025, 3, 12, 10, 0), frozenset(), date(2025, 3, 12)),
        (datetime(2025, 3, 15, 10, 0), frozenset(), date(2025, 3, 17)),  # Saturday → Monday
        (datetime(2025, 3, 16, 23, 59), frozenset(), date(2025, 3, 17)),  # Sunday night → Monday
        (datetime(2025, 12, 25, 9, 0), frozenset({date(2025, 12, 25)}), date(2025, 12, 26)),
        (datetime(2025, 12, 26, 9, 0), frozenset({date(2025, 12, 26)}), date(2025, 12, 29)),  # Friday holiday → Monday
    ],
)
def test_business_day_rolls_past_weekends_and_closed_days(local, closed, posts_on):
    assert business_day(local.replace(tzinfo=NEW_YORK), NEW_YORK, closed) == posts_on


def test_pass_through_picks_the_latest_covered_inflow():
    inflows = [tx("1000", ago=hours(5)), tx("100", ago=hours(2))]
    outflows = [tx("500", direction="out", ago=hours(4)), tx("450", direction="out")]
    found = latest_pass_through(inflows, outflows, Decimal(90))
    assert found.inflow is inflows[1] and found.outflows == (outflows[1],)
    assert latest_pass_through(inflows[:1], outflows, Decimal(96)) is None


def test_pass_through_episodes_do_not_share_outflows():
    deposits = [
        fiat("check_deposit", "100", ago=days(3)),
        fiat("check_deposit", "100", ago=days(2)),
        fiat("check_deposit", "100", ago=hours(5)),
    ]
    outflows = [fiat("wire_out", "95", ago=days(1)), fiat("wire_out", "95")]
    episodes = pass_through_episodes(deposits, outflows, Decimal(90), span(days=2))
    # The first deposit takes the first outflow (2 days later); the second, made before that, takes the
    # other one (exactly 2 days after it); nothing is left for the third.
    assert [(e.inflow, e.outflows) for e in episodes] == [(deposits[0], (outflows[0],)), (deposits[1], (outflows[1],))]
    # One outflow large enough for two deposits drains one of them.
    both = pass_through_episodes(deposits[1:], [fiat("wire_out", "200")], Decimal(90), span(days=2))
    assert [(e.inflow, e.outflows) for e in both] == [(deposits[1], both[0].outflows)]


def test_either_prefers_a_hit_then_a_skip():
    found, skipped = Hit({}, ()), Skip("no USD price")
    assert either(None, skipped, found) is found
    assert either(None, skipped) is skipped
    assert either(None, None) is None


def test_lists_compare_upper_case_whatever_was_typed():
    lists = OrgLists(asset_prices={"cad": Decimal("0.7")}, privacy_assets=frozenset({"xmr"}), high_risk_jurisdictions=frozenset({"ir "}))
    assert (lists.usd_rate("CAD"), lists.privacy_assets, lists.high_risk_jurisdictions) == (Decimal("0.7"), {"XMR"}, {"IR"})


def test_ratios_of_huge_values_do_not_overflow():
    assert ratio(Decimal("1E+40"), Decimal("0.01")) == Decimal("1E+42")


def test_json_ready_writes_decimals_plainly():
    value = {"a": Decimal("1E+1"), "b": T0, "c": frozenset({"y", "x"}), "d": (Decimal("0.10"),), "e": date(2025, 1, 2), "f": tx(id="t9")}
    assert json_ready(value) == {"a": "10", "b": "2025-03-12T15:00:00+00:00", "c": ["x", "y"], "d": ["0.10"], "e": "2025-01-02", "f": "t9"}


class TestSanctionsNameIndex:
    index = SanctionsNameIndex([("Ivan Petrov", "OFAC SDN"), ("José Álvarez", "UN"), ("Bank Melli Iran", "OFAC SDN")])

    @pytest.mark.parametrize(
        ("name", "listed", "score"),
        [
            ("PETROV, Ivan", "Ivan Petrov", Decimal(1)),
            ("jose alvarez", "José Álvarez", Decimal(1)),
            ("Bank Meli Iran", "Bank Melli Iran", Decimal("0.9655")),
        ],
    )
    def test_matches(self, name, listed, score):
        match = self.index.best_match(name)
        assert (match.listed_name, match.score) == (listed, score)

    @pytest.mark.parametrize("name", ["John Smith", "", "  ,, "])
    def test_no_match(self, name):
        assert self.index.best_match(name) is None

    def test_repeated_names_are_remembered(self):
        first = self.index.best_match("Ivan Petrova")
        assert self.index.best_match("Ivan Petrova") is first and self.index.best_match("IVAN PETROVA") == first
