"""Rules 39–44, table-driven."""

from __future__ import annotations

import pytest

from monitoring.rules import OrgLists
from tests.monitoring.rules.builders import HIT, NONE, SKIP, cases, days, fiat, given, hours, minutes, outcome, run, seconds, series


def card(event_type: str, usd: str | None = "20", **kw):
    kw.setdefault("card_type", "debit")
    return fiat(event_type, usd, **kw)


def gambling(usd: str | None = "100", **kw):
    return card("card_purchase", usd, merchant_category_code="7995", name="Lucky Casino", **kw)


HIGH_RISK_MCC = {
    "one purchase of 500 at a casino": given(gambling("500"), expect=HIT),
    "just under 500": given(gambling("499.99"), expect=NONE),
    "three small ones in a week": given(gambling(ago=days(6)), gambling(ago=days(3)), gambling(), expect=HIT),
    "two small ones": given(gambling(ago=days(3)), gambling(), expect=NONE),
    "the first just outside the week": given(gambling(ago=days(7) + seconds(1)), gambling(ago=days(3)), gambling(), expect=NONE),
    "an ordinary merchant": given(card("card_purchase", "5000", merchant_category_code="5411"), expect=NONE),
    "the organization's list": given(
        card("card_purchase", "600", merchant_category_code="5411"), expect=HIT, lists=OrgLists(high_risk_mccs=frozenset({"5411"}))
    ),
    "count met without a price": given(
        gambling(ago=days(6)), gambling(ago=days(3)), gambling(None, amount="100", currency="EUR"), expect=HIT
    ),
    "skipped without a price when the count is not met": given(gambling(None, amount="800", currency="EUR"), expect=SKIP),
}


def probe(usd: str = "1.00", **kw):
    return card("card_purchase", usd, name="Web Shop", **kw)


CARD_TESTING = {
    "five tiny purchases in an hour": given(series(4, lambda a: probe(ago=a), every=minutes(10)), probe(), expect=HIT),
    "four": given(series(3, lambda a: probe(ago=a), every=minutes(10)), probe(), expect=NONE),
    "5.00 is not tiny": given(series(4, lambda a: probe(ago=a), every=minutes(10)), probe("5.00"), expect=NONE),
    "4.99 is": given(series(4, lambda a: probe("4.99", ago=a), every=minutes(10)), probe("4.99"), expect=HIT),
    "the first just outside the hour": given(
        probe(ago=hours(1) + seconds(1)), series(3, lambda a: probe(ago=a), every=minutes(10)), probe(), expect=NONE
    ),
    "the first exactly an hour before": given(
        probe(ago=hours(1)), series(3, lambda a: probe(ago=a), every=minutes(10)), probe(), expect=HIT
    ),
    "skipped without a price": given(series(4, lambda a: probe(ago=a), every=minutes(10)), probe(None), expect=SKIP),
}


def load(usd: str | None = "100", card_type: str = "prepaid", **kw):
    return card("card_load", usd, card_type=card_type, **kw)


PREPAID = {
    "five prepaid loads in a day": given(series(4, lambda a: load(ago=a), every=hours(2)), load(), expect=HIT),
    "four": given(series(3, lambda a: load(ago=a), every=hours(2)), load(), expect=NONE),
    "debit loads do not count": given(series(4, lambda a: load(ago=a, card_type="debit"), every=hours(2)), load(), expect=NONE),
    "loads totalling 10,000 in a week": given(load("5000", ago=days(6)), load("5000"), expect=HIT),
    "totalling just under": given(load("5000", ago=days(6)), load("4999.99"), expect=NONE),
    "the first just outside the week": given(load("5000", ago=days(7) + seconds(1)), load("5000"), expect=NONE),
    "a debit card load is not prepaid access": given(load("5000", ago=days(6)), load("9000", card_type="debit"), expect=NONE),
    "skipped without a price": given(load("5000", ago=days(6)), load(None, amount="5000", currency="EUR"), expect=SKIP),
}


def atm(usd: str | None = "100", **kw):
    return card("card_atm", usd, **kw)


EXCESSIVE_ATM = {
    "five withdrawals in a day": given(series(4, lambda a: atm(ago=a), every=hours(3)), atm(), expect=HIT),
    "four small ones": given(series(3, lambda a: atm(ago=a), every=hours(3)), atm(), expect=NONE),
    "3,000 in a day": given(atm("1500", ago=hours(20)), atm("1500"), expect=HIT),
    "just under 3,000": given(atm("1500", ago=hours(20)), atm("1499.99"), expect=NONE),
    "the first just outside the day": given(atm("1500", ago=hours(24) + seconds(1)), atm("1500"), expect=NONE),
    "count met without a price": given(
        series(4, lambda a: atm(ago=a), every=hours(3)), atm(None, amount="100", currency="EUR"), expect=HIT
    ),
    "skipped without a price": given(atm(None, amount="100", currency="EUR"), expect=SKIP),
}

HIGH_RISK_COUNTRY = {
    "merchant in Iran": given(card("card_purchase", "10", merchant_country="IR"), expect=HIT),
    "lower-case country code": given(card("card_atm", None, amount="10", currency="EUR", merchant_country="kp"), expect=HIT),
    "merchant in France": given(card("card_purchase", "10", merchant_country="FR"), expect=NONE),
    "no merchant country": given(card("card_purchase", "10"), expect=NONE),
}


def purchase(ago, name: str = "Shoe Shop"):
    return card("card_purchase", "50", name=name, ago=ago)


NOW = hours(0)


def refund(ago=NOW, name: str = "Shoe Shop"):
    return card("card_refund", "50", name=name, ago=ago)


REFUND_ABUSE = {
    "three refunds against six purchases": given(
        [purchase(days(6) - hours(i)) for i in range(6)], refund(days(2)), refund(days(1)), refund(), expect=HIT
    ),
    "three refunds against seven purchases": given(
        [purchase(days(6) - hours(i)) for i in range(7)], refund(days(2)), refund(days(1)), refund(), expect=NONE
    ),
    "two refunds only": given([purchase(days(6) - hours(i)) for i in range(2)], refund(days(1)), refund(), expect=NONE),
    "a refund just outside the week": given(
        [purchase(days(5) - hours(i)) for i in range(6)], refund(days(7) + seconds(1)), refund(days(1)), refund(), expect=NONE
    ),
    "a refund from a merchant never bought from": given(purchase(days(3)), refund(name="Other Shop"), expect=HIT),
    "bought there 89 days ago": given(purchase(days(89)), refund(), expect=NONE),
    "bought there just over 90 days ago": given(purchase(days(90) + seconds(1)), refund(), expect=HIT),
    "a refund naming no merchant": given(purchase(days(3)), refund(name=""), expect=NONE),
}

TABLES = {
    "high_risk_mcc": HIGH_RISK_MCC,
    "card_testing": CARD_TESTING,
    "prepaid_load_structuring": PREPAID,
    "excessive_atm": EXCESSIVE_ATM,
    "high_risk_country_card": HIGH_RISK_COUNTRY,
    "refund_abuse": REFUND_ABUSE,
}


@pytest.mark.parametrize(("code", "scenario"), [case for code, table in TABLES.items() for case in cases(code, table)])
def test_rule(code, scenario):
    assert outcome(run(code, scenario)) == scenario.expect


def test_refund_abuse_reports_the_share():
    measured = run("refund_abuse", REFUND_ABUSE["three refunds against six purchases"]).evidence["measured"]
    assert measured == {"refunds": 3, "purchases": 6, "refund_share": "0.5000"}
