"""Rules 39–44: card events (loads, purchases, ATM withdrawals, refunds)."""

from __future__ import annotations

from decimal import Decimal

from monitoring.rules.context import (
    CARD_ATM,
    CARD_EVENTS,
    CARD_LOAD,
    CARD_PURCHASE,
    CARD_REFUND,
    FiatEvent,
    Outcome,
    Params,
    RuleInput,
    UsdBand,
    count_at_least,
    either,
    hit,
    no_price,
    normalize_party,
    ratio,
    usd_total,
    value_at_least,
)


def high_risk_mcc(inp: RuleInput, p: Params) -> Outcome:
    """#39 Quasi-cash, gambling, money transfer: a sizeable or repeated card event at a high-risk MCC."""
    ev, mccs = inp.event, inp.lists.high_risk_mccs
    if ev.merchant_category_code not in mccs:
        return None
    risky = [e for e in inp.history.fiat_events(days=p["window_days"], types=CARD_EVENTS) if e.merchant_category_code in mccs]
    return either(value_at_least(ev, p["threshold_usd"]), count_at_least(risky, p["min_count"], window_days=p["window_days"]))


def card_testing(inp: RuleInput, p: Params) -> Outcome:
    """#40 Card testing: a burst of tiny purchases."""
    ev = inp.event
    if ev.usd_value is None:
        return no_price(ev)
    tiny = UsdBand(Decimal(0), p["max_amount_usd"])
    if not tiny.holds(ev.usd_value):
        return None
    probes = [e for e in inp.history.fiat_events(hours=p["window_hours"], types=frozenset({CARD_PURCHASE})) if tiny.holds(e.usd_value)]
    return count_at_least(probes, p["min_count"], window_hours=p["window_hours"])


def _prepaid_loads(inp: RuleInput, **window: int) -> list[FiatEvent]:
    return [e for e in inp.history.fiat_events(**window, types=frozenset({CARD_LOAD})) if e.card_type == "prepaid"]


def prepaid_load_structuring(inp: RuleInput, p: Params) -> Outcome:
    """#41 Prepaid access (31 CFR 1022.380): loads adding up within a week, or many loads in a day."""
    ev = inp.event
    if ev.card_type != "prepaid":
        return None
    count_clause = count_at_least(_prepaid_loads(inp, hours=p["count_window_hours"]), p["min_count"], window_hours=p["count_window_hours"])
    return either(count_clause, _total_at_least(ev, _prepaid_loads(inp, days=p["total_window_days"]), p["total_threshold_usd"]))


def _total_at_least(ev: FiatEvent, events: list[FiatEvent], threshold: object) -> Outcome:
    """The sum clause: the window's priced events add up to `threshold` USD (skipped if this event has no price)."""
    if ev.usd_value is None:
        return no_price(ev)
    total = usd_total(events)
    return hit(events, total_usd=total.usd, unpriced_events=total.unpriced) if total.usd >= threshold else None


def excessive_atm(inp: RuleInput, p: Params) -> Outcome:
    """#42 Cash extraction: many ATM withdrawals, or a large ATM total, within a day."""
    withdrawals = inp.history.fiat_events(hours=p["window_hours"], types=frozenset({CARD_ATM}))
    count_clause = count_at_least(withdrawals, p["min_count"], window_hours=p["window_hours"])
    return either(count_clause, _total_at_least(inp.event, list(withdrawals), p["total_threshold_usd"]))


def high_risk_country_card(inp: RuleInput, p: Params) -> Outcome:
    """#43 Geography: a card event at a merchant in a high-risk jurisdiction."""
    country = (inp.event.merchant_country or "").upper()
    if country not in inp.lists.high_risk_jurisdictions:
        return None
    return hit((inp.event,), merchant_country=country, usd_value=inp.event.usd_value)


def refund_abuse(inp: RuleInput, p: Params) -> Outcome:
    """#44 Refund / chargeback abuse: refunds out of proportion to purchases, or a refund without a purchase."""
    return either(_refund_share(inp, p), _refund_without_purchase(inp, p))


def _refund_share(inp: RuleInput, p: Params) -> Outcome:
    week = inp.history.fiat_events(days=p["window_days"], types=frozenset({CARD_REFUND, CARD_PURCHASE}))
    refunds = [e for e in week if e.event_type == CARD_REFUND]
    purchases = len(week) - len(refunds)
    if len(refunds) < p["min_refunds"] or len(refunds) * 100 < p["min_refund_pct"] * purchases:
        return None
    return hit(refunds, refunds=len(refunds), purchases=purchases, refund_share=ratio(len(refunds), purchases) if purchases else None)


def _refund_without_purchase(inp: RuleInput, p: Params) -> Outcome:
    merchant = normalize_party(inp.event.counterparty_name)
    if not merchant:
        return None
    purchases = inp.history.fiat_events(days=p["merchant_lookback_days"], types=frozenset({CARD_PURCHASE}))
    if any(normalize_party(e.counterparty_name) == merchant for e in purchases):
        return None
    return hit((inp.event,), merchant=merchant, purchase_lookback_days=p["merchant_lookback_days"])
