"""Rules 24–26 and 34–38, table-driven."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from monitoring.rules import Entity, OrgLists, SanctionsNameIndex, ScreeningUnavailable
from tests.monitoring.rules.builders import HIT, NONE, SKIP, cases, days, fiat, given, hours, outcome, run, seconds, series

CA = Entity(id="entity-ca", jurisdiction="CA")
AU = Entity(id="entity-au", jurisdiction="AU")
CAD_PRICED = OrgLists(asset_prices={"USD": Decimal(1), "CAD": Decimal("0.74")})
# T0 is Wednesday 2025-03-12 15:00 UTC (11:00 in New York); negative ages are later that week.
SATURDAY, FRIDAY, MONDAY, THURSDAY = -days(3), -days(2), -days(5), -days(1)

LARGE_FIAT = {
    "one wire of 10,000": given(fiat("wire_in", "10000"), expect=HIT),
    "just under": given(fiat("wire_in", "9999.99"), expect=NONE),
    "a card purchase counts too": given(fiat("card_purchase", "10000"), expect=HIT),
    "same business day, same direction": given(fiat("wire_in", "6000", ago=hours(3)), fiat("ach_in", "4000"), expect=HIT),
    "same day, adding to just under": given(fiat("wire_in", "6000", ago=hours(3)), fiat("ach_in", "3999.99"), expect=NONE),
    "opposite directions do not add": given(fiat("wire_out", "6000", ago=hours(3)), fiat("ach_in", "4000"), expect=NONE),
    "just outside the business day (23:59:59 in New York)": given(
        fiat("wire_in", "6000", ago=hours(11) + seconds(1)), fiat("ach_in", "4000"), expect=NONE
    ),
    "the business day's first second": given(fiat("wire_in", "6000", ago=hours(11)), fiat("ach_in", "4000"), expect=HIT),
    "previous business day": given(fiat("check_deposit", "6000", ago=hours(16)), fiat("ach_in", "4000"), expect=NONE),
    "the day is local: 23:00 in New York is the day before": given(
        fiat("wire_in", "6000", ago=hours(12)), fiat("ach_in", "4000"), expect=NONE
    ),
    "business day in UTC by override": given(
        fiat("wire_in", "6000", ago=hours(12)), fiat("ach_in", "4000"), expect=HIT, params={"business_day_timezone": "UTC"}
    ),
    "Saturday posts on Monday": given(fiat("wire_in", "6000", ago=SATURDAY), fiat("ach_in", "4000", ago=MONDAY), expect=HIT),
    "Friday and Monday are two days": given(fiat("wire_in", "6000", ago=FRIDAY), fiat("ach_in", "4000", ago=MONDAY), expect=NONE),
    "a bank holiday posts on the next day": given(
        fiat("wire_in", "6000"), fiat("ach_in", "4000", ago=THURSDAY), expect=HIT, params={"closed_days": ["2025-03-12"]}
    ),
    "CA entity: 10,000 CAD": given(fiat("wire_in", "7300", amount="10000", currency="CAD"), expect=HIT, entity=CA),
    "CA entity: USD converted to CAD": given(fiat("wire_in", "7400"), expect=HIT, entity=CA, lists=CAD_PRICED),
    "CA entity: USD converted to just under": given(fiat("wire_in", "7399.99"), expect=NONE, entity=CA, lists=CAD_PRICED),
    "CA entity: no CAD rate": given(fiat("wire_in", "9000"), expect=SKIP, entity=CA),
    "AU entity: 10,000 AUD": given(fiat("wire_in", "6500", amount="10000", currency="AUD"), expect=HIT, entity=AU),
    "a foreign currency without a price": given(fiat("wire_in", None, amount="20000", currency="EUR"), expect=SKIP),
}

FIAT_STRUCTURING = {
    "two in a day summing 10,000": given(fiat("wire_in", "5000", ago=hours(5)), fiat("ach_in", "5000"), expect=HIT),
    "summing just under": given(fiat("wire_in", "5000", ago=hours(5)), fiat("ach_in", "4999.99"), expect=NONE),
    "exactly 24 h apart": given(fiat("wire_in", "5000", ago=hours(24)), fiat("ach_in", "5000"), expect=HIT),
    "just over 24 h apart": given(fiat("wire_in", "5000", ago=hours(24) + seconds(1)), fiat("ach_in", "5000"), expect=NONE),
    "three in five days at the band floor": given(
        fiat("check_deposit", "3000", ago=days(4)), fiat("wire_in", "3000", ago=days(2)), fiat("ach_in", "3000"), expect=HIT
    ),
    "one just under the floor": given(
        fiat("check_deposit", "2999.99", ago=days(4)), fiat("wire_in", "3000", ago=days(2)), fiat("ach_in", "3000"), expect=NONE
    ),
    "at the threshold is reportable, not structuring": given(fiat("wire_in", "10000", ago=hours(5)), fiat("ach_in", "5000"), expect=NONE),
    "one just outside five days": given(
        fiat("wire_in", "3000", ago=days(5) + seconds(1)), fiat("wire_in", "3000", ago=days(2)), fiat("ach_in", "3000"), expect=NONE
    ),
    "outflows do not count": given(fiat("wire_out", "5000", ago=hours(5)), fiat("wire_in", "5000"), expect=NONE),
    "skipped without a price": given(
        fiat("wire_in", "5000", ago=hours(5)), fiat("ach_in", None, amount="5000", currency="EUR"), expect=SKIP
    ),
}

WIRE_LAYERING = {
    "in, then 90 % out": given(fiat("wire_in", "10000", ago=days(2)), fiat("wire_out", "9000"), expect=HIT),
    "ACH both ways": given(
        fiat("ach_in", "10000", ago=days(1)), fiat("ach_out", "4500", ago=hours(5)), fiat("ach_out", "4500"), expect=HIT
    ),
    "just under 90 %": given(fiat("ach_in", "10000", ago=days(2)), fiat("ach_out", "8999.99"), expect=NONE),
    "credit exactly 3 days before": given(fiat("wire_in", "10000", ago=days(3)), fiat("wire_out", "9000"), expect=HIT),
    "credit just outside 3 days": given(fiat("wire_in", "10000", ago=days(3) + seconds(1)), fiat("wire_out", "9000"), expect=NONE),
    "card spending is not a wire": given(
        fiat("wire_in", "10000", ago=days(2)), fiat("card_purchase", "8500", ago=days(1)), fiat("wire_out", "500"), expect=NONE
    ),
    "skipped without a price": given(
        fiat("wire_in", "10000", ago=days(2)), fiat("wire_out", None, amount="9000", currency="EUR"), expect=SKIP
    ),
}

SANCTIONS_NAMES = OrgLists(sanctions_names=SanctionsNameIndex([("Ivan Petrov", "OFAC SDN"), ("Bank Melli Iran", "OFAC SDN")]))


class ListsNotLoaded:
    def best_match(self, name):
        raise ScreeningUnavailable("no sanctions list is loaded")


SANCTIONED_NAME = {
    "no list to screen against: skipped": given(
        fiat("wire_out", "1", name="Acme"), expect=SKIP, lists=OrgLists(sanctions_names=ListsNotLoaded())
    ),
    "name reordered with punctuation": given(fiat("wire_out", "1", name="PETROV, Ivan"), expect=HIT, lists=SANCTIONS_NAMES),
    "close spelling": given(fiat("wire_in", "1", name="Ivan Petrova"), expect=HIT, lists=SANCTIONS_NAMES),
    "the bank": given(fiat("wire_out", "1", name="Acme Ltd", bank="Bank Meli Iran"), expect=HIT, lists=SANCTIONS_NAMES),
    "no price needed": given(fiat("ach_out", None, amount="5", currency="EUR", name="Ivan Petrov"), expect=HIT, lists=SANCTIONS_NAMES),
    "an unrelated name": given(fiat("wire_out", "1", name="John Smith", bank="Chase"), expect=NONE, lists=SANCTIONS_NAMES),
    "stricter score by override": given(
        fiat("wire_in", "1", name="Ivan Petrova"), expect=NONE, lists=SANCTIONS_NAMES, params={"min_score": "0.99"}
    ),
    "no counterparty": given(fiat("card_atm", "1"), expect=NONE, lists=SANCTIONS_NAMES),
}

ACH_VELOCITY = {
    "ten in a day": given(series(9, lambda a: fiat("ach_out", "10", ago=a), every=hours(2)), fiat("ach_in", "10"), expect=HIT),
    "nine in a day": given(series(8, lambda a: fiat("ach_out", "10", ago=a), every=hours(2)), fiat("ach_in", "10"), expect=NONE),
    "the tenth just outside the day": given(
        series(8, lambda a: fiat("ach_out", "10", ago=a), every=hours(2)),
        fiat("ach_in", "10", ago=hours(24) + seconds(1)),
        fiat("ach_in", "10"),
        expect=NONE,
    ),
    "thirty in a week": given(series(29, lambda a: fiat("ach_out", "10", ago=a), every=hours(5.5)), fiat("ach_in", "10"), expect=HIT),
    "twenty-nine in a week": given(series(28, lambda a: fiat("ach_out", "10", ago=a), every=hours(5.5)), fiat("ach_in", "10"), expect=NONE),
    "wires are not ACH": given(series(9, lambda a: fiat("wire_out", "10", ago=a)), fiat("ach_in", "10"), expect=NONE),
}

ROUND_FIAT = {
    "three round events in a week": given(
        fiat("wire_in", "3000", ago=days(6)), fiat("ach_out", "5000", ago=days(2)), fiat("wire_out", "3000"), expect=HIT
    ),
    "round but under the minimum": given(
        fiat("wire_in", "2000", ago=days(6)), fiat("ach_out", "5000", ago=days(2)), fiat("wire_out", "3000"), expect=NONE
    ),
    "the evaluated event round but under the minimum": given(
        fiat("wire_in", "3000", ago=days(3)), fiat("wire_in", "3000", ago=days(2)), fiat("wire_in", "3000", ago=days(1)),
        fiat("card_purchase", "1000"), expect=NONE
    ),
    "not quite round": given(
        fiat("wire_in", "3000.50", ago=days(6)), fiat("ach_out", "5000", ago=days(2)), fiat("wire_out", "3000"), expect=NONE
    ),
    "round in euros": given(
        fiat("wire_in", "3240", amount="3000", currency="EUR", ago=days(6)),
        fiat("ach_out", "5000", ago=days(2)),
        fiat("wire_out", "3000"),
        expect=HIT,
    ),
    "one just outside the week": given(
        fiat("wire_in", "3000", ago=days(7) + seconds(1)), fiat("ach_out", "5000", ago=days(2)), fiat("wire_out", "3000"), expect=NONE
    ),
    "skipped without a price": given(
        fiat("wire_in", "3000", ago=days(6)),
        fiat("ach_out", "5000", ago=days(2)),
        fiat("wire_out", None, amount="3000", currency="EUR"),
        expect=SKIP,
    ),
}

NEW_COUNTERPARTY_WIRE = {
    "large wire to a new payee": given(fiat("wire_out", "10000", name="Acme Trading"), expect=HIT),
    "just under": given(fiat("wire_out", "9999.99", name="Acme Trading"), expect=NONE),
    "payee seen by ACH last month": given(
        fiat("ach_out", "50", name="ACME  trading", ago=days(30)), fiat("wire_out", "10000", name="Acme Trading"), expect=NONE
    ),
    "payee seen exactly 90 days ago": given(
        fiat("ach_out", "50", name="Acme Trading", ago=days(90)), fiat("wire_in", "10000", name="Acme Trading"), expect=NONE
    ),
    "payee seen just outside 90 days": given(
        fiat("ach_out", "50", name="Acme Trading", ago=days(90) + seconds(1)), fiat("wire_in", "10000", name="Acme Trading"), expect=HIT
    ),
    "bank only, seen before": given(
        fiat("wire_in", "50", bank="First Bank", ago=days(3)), fiat("wire_out", "10000", bank="First Bank"), expect=NONE
    ),
    "no counterparty at all": given(fiat("wire_out", "10000"), expect=SKIP),
    "skipped without a price": given(fiat("wire_out", None, amount="10000", currency="EUR", name="Acme"), expect=SKIP),
}

DUPLICATE_FIAT = {
    "same ACH twice in a day": given(fiat("ach_out", "500", name="Acme", ago=hours(3)), fiat("ach_out", "500", name="acme"), expect=HIT),
    "exactly 24 h apart": given(fiat("ach_out", "500", name="Acme", ago=hours(24)), fiat("ach_out", "500", name="Acme"), expect=HIT),
    "twin just outside 24 h": given(
        fiat("ach_out", "500", name="Acme", ago=hours(24) + seconds(1)), fiat("ach_out", "500", name="Acme"), expect=NONE
    ),
    "amounts differ by a cent": given(
        fiat("ach_out", "500", name="Acme", ago=hours(3)), fiat("ach_out", "500.01", name="Acme"), expect=NONE
    ),
    "types differ": given(fiat("ach_in", "500", name="Acme", ago=hours(3)), fiat("ach_out", "500", name="Acme"), expect=NONE),
    "counterparties differ": given(fiat("wire_out", "500", name="Acme", ago=hours(3)), fiat("wire_out", "500", name="Apex"), expect=NONE),
    "unknown counterparties are not the same": given(fiat("wire_out", "500", ago=hours(3)), fiat("wire_out", "500"), expect=NONE),
    "no price needed": given(
        fiat("wire_in", None, amount="500", currency="EUR", name="Acme", ago=hours(3)),
        fiat("wire_in", None, amount="500", currency="EUR", name="Acme"),
        expect=HIT,
    ),
    "type left out by override": given(
        fiat("ach_out", "500", name="Acme", ago=hours(3)),
        fiat("ach_out", "500", name="Acme"),
        expect=NONE,
        params={"event_types": ["wire_in"]},
    ),
}

TABLES = {
    "large_fiat_transaction": LARGE_FIAT,
    "fiat_structuring": FIAT_STRUCTURING,
    "wire_layering": WIRE_LAYERING,
    "sanctioned_fiat_counterparty": SANCTIONED_NAME,
    "ach_velocity": ACH_VELOCITY,
    "repeated_round_fiat": ROUND_FIAT,
    "new_counterparty_large_wire": NEW_COUNTERPARTY_WIRE,
    "duplicate_fiat_transaction": DUPLICATE_FIAT,
}


@pytest.mark.parametrize(("code", "scenario"), [case for code, table in TABLES.items() for case in cases(code, table)])
def test_rule(code, scenario):
    assert outcome(run(code, scenario)) == scenario.expect


def test_large_fiat_evidence_is_ready_for_the_report_draft():
    scenario = LARGE_FIAT["Saturday posts on Monday"]
    result = run("large_fiat_transaction", scenario)
    measured = result.evidence["measured"]
    assert measured == {
        "business_day": "2025-03-17", "direction": "in", "currency": "USD", "total": "10000", "event_count": 2, "unconverted_events": 0,
    }  # fmt: skip
    assert result.fiat_event_ids == tuple(e.id for e in scenario.events)


def test_large_fiat_converts_to_cad_for_canadian_entities():
    measured = run("large_fiat_transaction", LARGE_FIAT["CA entity: USD converted to CAD"]).evidence["measured"]
    assert (measured["currency"], measured["total"]) == ("CAD", "10000.00")


def test_sanctioned_name_evidence_names_the_list_and_the_score():
    measured = run("sanctioned_fiat_counterparty", SANCTIONED_NAME["name reordered with punctuation"]).evidence["measured"]
    assert measured == {
        "field": "counterparty_name",
        "screened_name": "PETROV, Ivan",
        "listed_name": "Ivan Petrov",
        "list": "OFAC SDN",
        "score": "1",
    }


def test_the_skip_says_why():
    result = run("large_fiat_transaction", LARGE_FIAT["CA entity: no CAD rate"])
    assert result.reason == "no CAD value for USD"
    assert result.evidence == {"reason": "no CAD value for USD"}


@pytest.mark.parametrize("gap", [timedelta(0), hours(1)])
def test_layering_counts_an_outflow_at_or_after_the_credit(gap):
    scenario = given(fiat("wire_in", "10000", ago=gap), fiat("wire_out", "9500"), expect=HIT)
    assert outcome(run("wire_layering", scenario)) == HIT
