"""Rules 45–50, table-driven."""

from __future__ import annotations

import pytest

from tests.monitoring.rules.builders import HIT, NONE, SKIP, cases, days, fiat, given, hours, outcome, run, seconds, series


def deposit(number: str | None = "1001", usd: str | None = "500", method: str = "teller", **kw):
    return fiat("check_deposit", usd, check_number=number, deposit_method=method, check_type="personal", **kw)


def instrument(usd: str | None = "5000", check_type: str = "money_order", **kw):
    return fiat("check_purchase", usd, check_type=check_type, **kw)


DUPLICATE_DEPOSIT = {
    "mobile capture, then teller": given(deposit(method="rdc_mobile", ago=days(30)), deposit(), expect=HIT),
    "leading zeros and dashes ignored": given(deposit("001-001", ago=days(2)), deposit("1001"), expect=HIT),
    "exactly 90 days apart": given(deposit(ago=days(90)), deposit(), expect=HIT),
    "first deposit just outside 90 days": given(deposit(ago=days(90) + seconds(1)), deposit(), expect=NONE),
    "amounts differ": given(deposit(ago=days(2)), deposit(usd="500.01"), expect=NONE),
    "numbers differ": given(deposit("1001", ago=days(2)), deposit("1002"), expect=NONE),
    "no number": given(deposit(None, ago=days(2)), deposit(None), expect=NONE),
    "no price needed": given(
        deposit(usd=None, amount="500", currency="EUR", ago=days(2)), deposit(usd=None, amount="500", currency="EUR"), expect=HIT
    ),
}

SEQUENTIAL = {
    "three consecutive numbers in a week": given(deposit("1001", ago=days(6)), deposit("1003", ago=days(3)), deposit("1002"), expect=HIT),
    "a gap in the run": given(deposit("1001", ago=days(6)), deposit("1004", ago=days(3)), deposit("1002"), expect=NONE),
    "the first just outside the week": given(
        deposit("1001", ago=days(7) + seconds(1)), deposit("1003", ago=days(3)), deposit("1002"), expect=NONE
    ),
    "the first exactly a week before": given(deposit("1001", ago=days(7)), deposit("1003", ago=days(3)), deposit("1002"), expect=HIT),
    "the same number twice is not a run": given(deposit("1001", ago=days(6)), deposit("1001", ago=days(3)), deposit("1002"), expect=NONE),
    "money-order serials with zeros": given(deposit("00099", ago=days(2)), deposit("00100", ago=days(1)), deposit("00101"), expect=HIT),
    "non-numeric numbers": given(deposit("A1", ago=days(2)), deposit("A2", ago=days(1)), deposit("A3"), expect=NONE),
}

INSTRUMENTS = {
    "two money orders to 10,000": given(instrument(ago=days(2)), instrument(), expect=HIT),
    "cashier's checks too": given(instrument(check_type="cashier", ago=days(2)), instrument(check_type="cashier"), expect=HIT),
    "totalling just under": given(instrument(ago=days(2)), instrument("4999.99"), expect=NONE),
    "band edges are inclusive": given(instrument("3000", ago=days(4)), instrument("3000", ago=days(2)), instrument("4000"), expect=HIT),
    "just under the band": given(instrument("2999.99", ago=days(4)), instrument("3000", ago=days(2)), instrument("4000"), expect=NONE),
    "just over the band": given(instrument("10000.01", ago=days(4)), instrument("5000"), expect=NONE),
    "one of 10,000 is not structuring": given(instrument("10000"), expect=NONE),
    "personal checks do not count": given(instrument(check_type="personal", ago=days(2)), instrument(check_type="personal"), expect=NONE),
    "the first just outside 5 days": given(instrument(ago=days(5) + seconds(1)), instrument(), expect=NONE),
    "skipped without a price": given(instrument(ago=days(2)), instrument(None, amount="5000", currency="EUR"), expect=SKIP),
}


def rdc(ago, method: str = "rdc_mobile", n: int = 0):
    return deposit(str(5000 + n * 7), method=method, ago=ago)


RDC_VELOCITY = {
    "five remote deposits in a day": given(series(4, lambda a: rdc(a, n=a.seconds), every=hours(4)), rdc(hours(0)), expect=HIT),
    "four": given(series(3, lambda a: rdc(a, n=a.seconds), every=hours(4)), rdc(hours(0)), expect=NONE),
    "desktop capture counts": given(series(4, lambda a: rdc(a, "rdc_desktop", n=a.seconds), every=hours(4)), rdc(hours(0)), expect=HIT),
    "teller deposits do not": given(series(4, lambda a: rdc(a, "teller", n=a.seconds), every=hours(4)), rdc(hours(0)), expect=NONE),
    "fifteen in a week": given(series(14, lambda a: rdc(a, n=a.seconds), every=hours(11)), rdc(hours(0)), expect=HIT),
    "the fifth just outside the day": given(
        series(3, lambda a: rdc(a, n=a.seconds), every=hours(4)), rdc(hours(24) + seconds(1), n=99), rdc(hours(0)), expect=NONE
    ),
    "fourteen in a week": given(series(13, lambda a: rdc(a, n=a.seconds), every=hours(11)), rdc(hours(0)), expect=NONE),
    "evaluated on remote deposits only": given(
        series(5, lambda a: rdc(a, n=a.seconds), every=hours(4)), rdc(hours(0), "teller"), expect=NONE
    ),
}

MISSING_NUMBER = {
    "1,000 without a number": given(deposit(None, "1000"), expect=HIT),
    "a blank number": given(deposit("  ", "1000"), expect=HIT),
    "just under": given(deposit(None, "999.99"), expect=NONE),
    "with a number": given(deposit("1001", "50000"), expect=NONE),
    "skipped without a price": given(deposit(None, None, amount="1000", currency="EUR"), expect=SKIP),
}


def drained(deposit_ago, outflow_ago, usd: str = "900", number: str = "1"):
    return [deposit(number, "1000", ago=deposit_ago), fiat("wire_out", usd, ago=outflow_ago)]


CHECK_KITING = {
    "drained twice in two weeks": given(drained(days(10), days(9)), drained(days(1), hours(0), number="2"), expect=HIT),
    "the second drain just short of 90 %": given(drained(days(10), days(9)), drained(days(1), hours(0), "899.99", number="2"), expect=NONE),
    "drained only once": given(deposit("1", "1000", ago=days(10)), drained(days(1), hours(0), number="2"), expect=NONE),
    "the first outflow after the 2 days": given(
        drained(days(10), days(8) - seconds(1)), drained(days(1), hours(0), number="2"), expect=NONE
    ),
    "the first outflow exactly 2 days after": given(drained(days(10), days(8)), drained(days(1), hours(0), number="2"), expect=HIT),
    "the first episode just outside 14 days": given(
        drained(days(14) + seconds(1), days(13)), drained(days(1), hours(0), number="2"), expect=NONE
    ),
    "ATM and card spending drain too": given(
        drained(days(10), days(9)),
        deposit("2", "1000", ago=days(1)),
        fiat("card_atm", "500", ago=hours(5)),
        fiat("card_purchase", "400"),
        expect=HIT,
    ),
    "the second deposit made before the first is drained, each drained by its own outflow": given(
        deposit("1", "1000", ago=hours(48)), deposit("2", "1000", ago=hours(45)), fiat("wire_out", "950", ago=hours(36)),
        fiat("wire_out", "950"), expect=HIT
    ),
    "a deposit at the very time of the outflow that drained the one before": given(
        deposit("1", "1000", ago=hours(24)), deposit("2", "1000"), fiat("wire_out", "1900"), expect=NONE
    ),
    "one outflow cannot drain two deposits": given(
        deposit("1", "1000", ago=days(2)), deposit("2", "1000", ago=days(1)), fiat("wire_out", "1900"), expect=NONE
    ),
    "skipped without a price": given(
        drained(days(10), days(9)), deposit("2", "1000", ago=days(1)), fiat("wire_out", None, amount="900", currency="EUR"), expect=SKIP
    ),
}

TABLES = {
    "duplicate_check_deposit": DUPLICATE_DEPOSIT,
    "sequential_checks": SEQUENTIAL,
    "monetary_instrument_structuring": INSTRUMENTS,
    "rdc_velocity": RDC_VELOCITY,
    "missing_check_number": MISSING_NUMBER,
    "check_kiting": CHECK_KITING,
}


@pytest.mark.parametrize(("code", "scenario"), [case for code, table in TABLES.items() for case in cases(code, table)])
def test_rule(code, scenario):
    assert outcome(run(code, scenario)) == scenario.expect


def test_kiting_evidence_lists_each_episode():
    result = run("check_kiting", CHECK_KITING["drained twice in two weeks"])
    episodes = result.evidence["measured"]["episodes"]
    assert result.evidence["measured"]["occurrences"] == 2
    assert [e["outflow_share"] for e in episodes] == ["0.9000", "0.9000"]
    assert len(result.fiat_event_ids) == 4


def test_duplicate_deposit_names_both_channels():
    measured = run("duplicate_check_deposit", DUPLICATE_DEPOSIT["mobile capture, then teller"]).evidence["measured"]
    assert measured["deposit_methods"] == ["rdc_mobile", "teller"]
