"""Rules 45–50: checks deposited and monetary instruments bought."""

from __future__ import annotations

from monitoring.rules.context import (
    CHECK_DEPOSIT,
    CHECK_PURCHASE,
    FIAT_OUTFLOWS,
    FiatEvent,
    Outcome,
    Params,
    RuleInput,
    UsdBand,
    count_at_least,
    hit,
    no_price,
    pass_through_episodes,
    span,
    usd_total,
    value_at_least,
)

DEPOSITS = frozenset({CHECK_DEPOSIT})
REMOTE_DEPOSIT = frozenset({"rdc_mobile", "rdc_desktop"})


def check_serial(ev: FiatEvent) -> str:
    """The check number as printed, whatever the capture channel: spaces, dashes and leading zeros ignored."""
    return "".join(ch for ch in (ev.check_number or "") if ch.isalnum()).lstrip("0")


def duplicate_check_deposit(inp: RuleInput, p: Params) -> Outcome:
    """#45 Duplicate presentment: the same check (number and amount) deposited twice, e.g. mobile then teller."""
    ev = inp.event
    serial = check_serial(ev)
    if not serial:
        return None
    earlier = inp.history.fiat_events(days=p["window_days"], types=DEPOSITS)[:-1]
    twins = [e for e in earlier if e.amount == ev.amount and check_serial(e) == serial]
    if not twins:
        return None
    channels = [e.deposit_method for e in (*twins, ev)]
    return hit((*twins, ev), check_number=serial, amount=ev.amount, deposits=len(twins) + 1, deposit_methods=channels)


def sequential_checks(inp: RuleInput, p: Params) -> Outcome:
    """#46 Sequential money orders / checks: consecutive numbers deposited within a week."""
    serial = check_serial(inp.event)
    if not serial.isdigit():
        return None
    deposits = {int(s): e for e in inp.history.fiat_events(days=p["window_days"], types=DEPOSITS) if (s := check_serial(e)).isdigit()}
    low = high = int(serial)
    while low - 1 in deposits:
        low -= 1
    while high + 1 in deposits:
        high += 1
    if high - low + 1 < p["min_count"]:
        return None
    run = [deposits[n] for n in range(low, high + 1)]
    return hit(run, first_number=low, last_number=high, count=len(run))


def monetary_instrument_structuring(inp: RuleInput, p: Params) -> Outcome:
    """#47 31 CFR 1010.415: money orders or cashier's checks of 3,000–10,000 each, bought to a large total."""
    ev = inp.event
    if ev.check_type not in p["check_types"]:
        return None
    if ev.usd_value is None:
        return no_price(ev)
    band = UsdBand(p["band_floor_usd"], p["band_ceiling_usd"], ceiling_inclusive=True)
    if not band.holds(ev.usd_value):
        return None
    window = inp.history.fiat_events(days=p["window_days"], types=frozenset({CHECK_PURCHASE}))
    bought = [e for e in window if e.check_type in p["check_types"] and band.holds(e.usd_value)]
    total = usd_total(bought).usd
    if len(bought) < p["min_count"] or total < p["total_threshold_usd"]:
        return None
    return hit(bought, count=len(bought), total_usd=total)


def rdc_velocity(inp: RuleInput, p: Params) -> Outcome:
    """#48 Check-deposit velocity through remote deposit capture."""
    if inp.event.deposit_method not in REMOTE_DEPOSIT:
        return None
    hours, days = p["short_window_hours"], p["long_window_days"]
    return count_at_least(_remote_deposits(inp, hours=hours), p["short_min_count"], window_hours=hours) or count_at_least(
        _remote_deposits(inp, days=days), p["long_min_count"], window_days=days
    )


def _remote_deposits(inp: RuleInput, **window: int) -> list[FiatEvent]:
    return [e for e in inp.history.fiat_events(**window, types=DEPOSITS) if e.deposit_method in REMOTE_DEPOSIT]


def missing_check_number(inp: RuleInput, p: Params) -> Outcome:
    """#49 Incomplete instrument data: a sizeable check deposit without a check number."""
    if check_serial(inp.event):
        return None
    return value_at_least(inp.event, p["threshold_usd"])


def check_kiting(inp: RuleInput, p: Params) -> Outcome:
    """#50 Kiting: deposits drained before they can clear, again and again within two weeks."""
    ev = inp.event
    if ev.usd_value is None:
        return no_price(ev)
    deposits = inp.history.fiat_events(days=p["window_days"], types=DEPOSITS)
    outflows = inp.history.fiat_events(days=p["window_days"], types=FIAT_OUTFLOWS)
    episodes = pass_through_episodes(deposits, outflows, p["min_outflow_pct"], span(days=p["outflow_window_days"]))
    # Fires on the outflow that completes an episode (the window ends at it), not on every later one.
    if len(episodes) < p["min_occurrences"] or not any(episode.outflows[-1].id == ev.id for episode in episodes):
        return None
    involved = [event for episode in episodes for event in (episode.inflow, *episode.outflows)]
    return hit(involved, occurrences=len(episodes), episodes=[episode.measured() for episode in episodes])
