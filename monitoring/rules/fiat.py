"""Rules 24–26 and 34–38: fiat events (wires, ACH, and every fiat event for the large-transaction report)."""

from __future__ import annotations

from decimal import Decimal
from zoneinfo import ZoneInfo

from monitoring.rules.context import (
    ACH_EVENTS,
    ACH_IN,
    ACH_OUT,
    FIAT_INFLOWS,
    WIRE_IN,
    WIRE_OUT,
    Entity,
    FiatEvent,
    OrgLists,
    Outcome,
    Params,
    RuleInput,
    ScreeningUnavailable,
    Skip,
    UsdBand,
    business_day,
    hit,
    latest_pass_through,
    no_price,
    normalize_party,
    rounded,
    usd_total,
)

# Large-transaction reports are owed in the local currency: LCTR (FINTRAC) in CAD, TTR (AUSTRAC) in AUD,
# CTR (FinCEN) in USD for everyone else.
REPORTING_CURRENCY = {"CA": "CAD", "AU": "AUD"}
BUSINESS_DAY_ZONE = {"CA": "America/Toronto", "AU": "Australia/Sydney"}
DEFAULT_BUSINESS_DAY_ZONE = "America/New_York"


def reporting_currency(entity: Entity) -> str:
    return REPORTING_CURRENCY.get(entity.jurisdiction or "", "USD")


def amount_in(event: FiatEvent, currency: str, lists: OrgLists) -> Decimal | None:
    """The event's amount in the reporting currency, through the USD value and the price table."""
    if event.currency.upper() == currency:
        return event.amount
    if event.usd_value is None:
        return None
    if currency == "USD":
        return event.usd_value
    rate = lists.usd_rate(currency)
    return rounded(event.usd_value / rate, "0.01") if rate else None


def _business_day_zone(entity: Entity, p: Params) -> ZoneInfo:
    return ZoneInfo(p["business_day_timezone"] or BUSINESS_DAY_ZONE.get(entity.jurisdiction or "", DEFAULT_BUSINESS_DAY_ZONE))


def large_fiat_transaction(inp: RuleInput, p: Params) -> Outcome:
    """#24 31 CFR 1010.311/.313: one event, or one business day's events in one direction, at the threshold."""
    ev, currency = inp.event, reporting_currency(inp.entity)
    if amount_in(ev, currency, inp.lists) is None:
        return Skip(f"no {currency} value for {ev.currency}")
    zone, closed = _business_day_zone(inp.entity, p), p["closed_days"]
    day = business_day(ev.timestamp, zone, closed)
    # 31 CFR 1010.313: aggregate the same business day's transactions by or for the customer.
    recent = inp.history.fiat_events(days=business_day_reach(p))
    same_day = [e for e in recent if e.direction == ev.direction and business_day(e.timestamp, zone, closed) == day]
    amounts = [amount_in(e, currency, inp.lists) for e in same_day]
    total = sum((a for a in amounts if a is not None), Decimal(0))
    if total < p["threshold"]:
        return None
    measured = {"business_day": day, "direction": ev.direction, "currency": currency, "total": total, "event_count": len(same_day)}
    return hit(same_day, **measured, unconverted_events=amounts.count(None))


def business_day_reach(p: Params) -> int:
    """How many days back one business day can reach: a weekend, closed days and a time-zone shift."""
    return 4 + len(p["closed_days"])


def fiat_structuring(inp: RuleInput, p: Params) -> Outcome:
    """#25 Structuring under the CTR threshold: several inbound events just below it."""
    ev = inp.event
    if ev.usd_value is None:
        return no_price(ev)
    band = UsdBand(p["band_floor_usd"], p["threshold_usd"])
    if not band.holds(ev.usd_value):
        return None
    short = [e for e in inp.history.fiat_events(hours=p["short_window_hours"], types=FIAT_INFLOWS) if band.holds(e.usd_value)]
    short_total = usd_total(short).usd
    if len(short) >= p["short_min_count"] and short_total >= p["threshold_usd"]:
        return hit(short, window_hours=p["short_window_hours"], count=len(short), total_usd=short_total)
    long = [e for e in inp.history.fiat_events(days=p["long_window_days"], types=FIAT_INFLOWS) if band.holds(e.usd_value)]
    if len(long) >= p["long_min_count"]:
        return hit(long, window_days=p["long_window_days"], count=len(long), total_usd=usd_total(long).usd)
    return None


WIRE_ACH_IN = frozenset({WIRE_IN, ACH_IN})
WIRE_ACH_OUT = frozenset({WIRE_OUT, ACH_OUT})


def wire_layering(inp: RuleInput, p: Params) -> Outcome:
    """#26 Layering: a wire or ACH credit mostly sent back out by wire or ACH within days."""
    ev = inp.event
    if ev.usd_value is None:
        return no_price(ev)
    days = p["window_days"]
    inflows = inp.history.fiat_events(days=days, types=WIRE_ACH_IN)
    found = latest_pass_through(inflows, inp.history.fiat_events(days=days, types=WIRE_ACH_OUT), p["min_outflow_pct"])
    if found is None:
        return None
    return hit((found.inflow, *found.outflows), **found.measured())


def sanctioned_fiat_counterparty(inp: RuleInput, p: Params) -> Outcome:
    """#34 OFAC name screening of payments: counterparty name or bank close to a sanctions-list name."""
    ev = inp.event
    for field, name in (("counterparty_name", ev.counterparty_name), ("counterparty_bank", ev.counterparty_bank)):
        try:
            match = inp.lists.sanctions_names.best_match(name) if name else None
        except ScreeningUnavailable as exc:
            return Skip(f"{field} could not be screened: {exc}")
        if match and match.score >= p["min_score"]:
            return hit((ev,), field=field, screened_name=name, listed_name=match.listed_name, list=match.source, score=match.score)
    return None


def ach_velocity(inp: RuleInput, p: Params) -> Outcome:
    """#35 ACH velocity: many ACH entries in a day or a week."""
    short = inp.history.fiat_events(hours=p["short_window_hours"], types=ACH_EVENTS)
    if len(short) >= p["short_min_count"]:
        return hit(short, window_hours=p["short_window_hours"], count=len(short))
    long = inp.history.fiat_events(days=p["long_window_days"], types=ACH_EVENTS)
    if len(long) >= p["long_min_count"]:
        return hit(long, window_days=p["long_window_days"], count=len(long))
    return None


def _is_round_fiat(ev: FiatEvent, p: Params) -> bool:
    """Round as written (in its own currency), and large enough in USD."""
    return ev.usd_value is not None and ev.usd_value >= p["min_amount_usd"] and ev.amount % p["round_unit"] == 0


def repeated_round_fiat(inp: RuleInput, p: Params) -> Outcome:
    """#36 Round-figure transfers, repeated within a week."""
    ev = inp.event
    if ev.amount % p["round_unit"]:
        return None
    if ev.usd_value is None:
        return no_price(ev)
    if not _is_round_fiat(ev, p):  # round but under the minimum: not one of the round events that count
        return None
    rounds = [e for e in inp.history.fiat_events(days=p["window_days"]) if _is_round_fiat(e, p)]
    if len(rounds) < p["min_count"]:
        return None
    return hit(rounds, count=len(rounds), total_usd=usd_total(rounds).usd)


def fiat_counterparty(ev: FiatEvent) -> str:
    """Who the money went to or came from: the counterparty's name, or its bank when no name is given."""
    return normalize_party(ev.counterparty_name) or normalize_party(ev.counterparty_bank)


def new_counterparty_large_wire(inp: RuleInput, p: Params) -> Outcome:
    """#37 New payee, large value: a large wire with a counterparty unseen in the previous 90 days."""
    ev = inp.event
    if ev.usd_value is None:
        return no_price(ev)
    if ev.usd_value < p["threshold_usd"]:
        return None
    party = fiat_counterparty(ev)
    if not party:
        return Skip("the wire names no counterparty or bank")
    earlier = inp.history.fiat_events(days=p["lookback_days"])[:-1]
    if any(fiat_counterparty(e) == party for e in earlier):
        return None
    return hit((ev,), usd_value=ev.usd_value, counterparty=party, lookback_days=p["lookback_days"])


def duplicate_fiat_transaction(inp: RuleInput, p: Params) -> Outcome:
    """#38 Duplicate ACH / wire: the same type, amount and counterparty twice within a day."""
    ev = inp.event
    party = fiat_counterparty(ev)
    if ev.event_type not in p["event_types"] or not party:
        return None
    earlier = inp.history.fiat_events(hours=p["window_hours"], types=frozenset({ev.event_type}))[:-1]
    twins = [e for e in earlier if e.amount == ev.amount and e.currency == ev.currency and fiat_counterparty(e) == party]
    if not twins:
        return None
    return hit((*twins, ev), event_type=ev.event_type, amount=ev.amount, currency=ev.currency, counterparty=party, count=len(twins) + 1)
