"""Network typologies (rules 6, 7, 51–53), table-driven: each fires on its planted shape and stays silent on
the near-misses (below the sender count, outside the window, amount not preserved, one hop short), skips
hubs above its degree bound and says so, and stores the participating accounts and transfers."""

from __future__ import annotations

import pytest

from monitoring.rules import OrgNetwork, TransferGraph
from tests.monitoring.rules.builders import HIT, NONE, OWN, SKIP, cases, given, hours, minutes, outcome, run, seconds, tx
from tests.monitoring.rules.test_transactions import cycle, hop


def paid_by(n: int, usd: str = "1500", *, within: float = 48, first: int = 0) -> list:
    """n inbound transfers from n distinct senders, spread over `within` hours before the last hour."""
    return [tx(usd, cp=f"0xs{first + i}", ago=hours(1) + hours(within) * i / max(n, 1)) for i in range(n)]


def paying(n: int, usd: str = "4500", *, start: float = 0.5) -> list:
    """n outbound transfers to n distinct recipients, minutes apart, the last at T0."""
    return [tx(usd, direction="out", cp=f"0xr{i}", ago=minutes(10 * (n - 1 - i)) + hours(start) * (i < n - 1)) for i in range(n)]


OUT = {"direction": "out"}

FAN_IN = {
    "8 senders, 80 % leaves within the window": given(paid_by(8), tx("9600", **OUT), expect=HIT),
    "below the sender count (7)": given(paid_by(7, "2000"), tx("11200", **OUT), expect=NONE),
    "one sender eight times": given([tx("1500", cp="0xsame", ago=hours(2 + i)) for i in range(8)], tx("9600", **OUT), expect=NONE),
    "the money stays (just under 80 % leaves)": given(paid_by(8), tx("9599.99", **OUT), expect=NONE),
    "under 10,000 USD gathered": given(paid_by(8, "1249.99"), tx("9999", **OUT), expect=NONE),
    "a sender just outside the 72 h window": given(
        paid_by(7), tx("1500", cp="0xold", ago=hours(72) + seconds(1)), tx("9600", **OUT), expect=NONE
    ),
    "a sender exactly 72 h before": given(paid_by(7), tx("1500", cp="0xold", ago=hours(72)), tx("9600", **OUT), expect=HIT),
    "outflows before the first inflow do not count": given(
        tx("5000", ago=hours(60), **OUT), paid_by(8), tx("5000", **OUT), expect=NONE
    ),
    "a hub above the degree bound is skipped": given(paid_by(11), tx("15000", **OUT), params={"max_senders": 10}, expect=SKIP),
    "evaluated on outflows only": given(paid_by(8), tx("1500", cp="0xlast"), expect=NONE),
    "skipped without a price": given(paid_by(8), tx(None, **OUT), expect=SKIP),
}

FUNDED = tx("20000", cp="0xsource", ago=hours(5))
FAN_OUT = {
    "an inflow dispersed to 4 recipients": given(FUNDED, paying(4), expect=HIT),
    "below the recipient count (3)": given(FUNDED, paying(3, "6000"), expect=NONE),
    "payroll out of savings: far more out than came in": given(tx("5000", cp="0xsource", ago=hours(5)), paying(4), expect=NONE),
    "unfunded": given(paying(4), expect=NONE),
    "under 10,000 USD dispersed": given(tx("10000", cp="0xsource", ago=hours(5)), paying(4, "2499.99"), expect=NONE),
    "funding just outside the 72 h before the first outflow": given(
        tx("20000", cp="0xsource", ago=hours(72.5) + minutes(30) + seconds(1)), paying(4), expect=NONE
    ),
    "a recipient just outside the 72 h window": given(
        FUNDED, tx("4500", cp="0xr-old", ago=hours(72) + seconds(1), **OUT), paying(3), expect=NONE
    ),
    "a hub above the degree bound is skipped": given(FUNDED, paying(5, "3600"), params={"max_recipients": 4}, expect=SKIP),
    "evaluated on outflows only": given(paying(4), tx("20000", cp="0xsource"), expect=NONE),
    "skipped without a price": given(FUNDED, paying(3), tx(None, cp="0xr9", **OUT), expect=SKIP),
}

GATHER_SCATTER = {
    "5 senders → the entity → 5 recipients": given(paid_by(5, "3000"), paying(5, "2500"), expect=HIT),
    "4 recipients": given(paid_by(5, "3000"), paying(4, "3125"), expect=NONE),
    "4 senders": given(paid_by(4, "3750"), paying(5, "2500"), expect=NONE),
    "most of it stays": given(paid_by(5, "3000"), paying(5, "2399.99"), expect=NONE),
    "a sender just outside the 72 h window": given(
        paid_by(4, "3750"), tx("3000", cp="0xold", ago=hours(72) + seconds(1)), paying(5, "2500"), expect=NONE
    ),
    "a hub above the degree bound is skipped": given(paid_by(5, "3000"), paying(5, "2500"), params={"max_degree": 4}, expect=SKIP),
    "skipped without a price": given(paid_by(5, "3000"), paying(4, "2500"), tx(None, cp="0xr9", **OUT), expect=SKIP),
}

CUSTOMERS = ("0xsrc", "0xi1", "0xi2", "0xi3", "0xi4", "0xother", "0xa", "0xb", "0xc", "0xd", "0xe")
REGISTERED = {(1, wallet): f"customer-{wallet}" for wallet in CUSTOMERS}


def shape(*legs: tuple[str, str, str | None, float], expect: str | None, registered: dict = REGISTERED, **params):
    """Legs (sender, recipient, usd, hours ago) of the graph; the entity's own (those touching OWN) make its
    history and the last of them is evaluated."""
    transfers = [hop(sender, recipient, usd, hours(ago)) for sender, recipient, usd, ago in legs]
    own = [t for t in transfers if OWN in (t.from_address, t.to_address)]
    network = OrgNetwork(transfers=TransferGraph(transfers), registered_wallets=registered)
    return given(own, expect=expect, network=network, params=params)


def gather(*amounts_passed: str, source_for: tuple[str, ...] = (), first_leg_ago: float = 20, passed: float = 0) -> list:
    """0xsrc sends 10,000 to each intermediary 0xi<n>; each passes on its amount to the entity."""
    legs = []
    for n, amount in enumerate(amounts_passed, start=1):
        source = source_for[n - 1] if source_for else "0xsrc"
        legs.append((source, f"0xi{n}", "10000", first_leg_ago if n == 1 else 10 + n))
        legs.append((f"0xi{n}", OWN, amount, passed + len(amounts_passed) - n))
    return sorted(legs, key=lambda leg: -leg[3])


SCATTER_GATHER = {
    "source → 3 intermediaries → the entity": shape(*gather("9800", "9700", "9900"), expect=HIT),
    "below the intermediary count (2)": shape(*gather("9800", "9700"), expect=NONE),
    "amount not preserved: one intermediary keeps 10.01 %": shape(*gather("9800", "8999", "9900"), expect=NONE),
    "10 % kept is within the tolerance": shape(*gather("9800", "9000", "9900"), expect=HIT),
    "a leg from the source just outside the 72 h window": shape(*gather("9800", "9700", "9900", first_leg_ago=72 + 1 / 3600 + 0.0001),
                                                               expect=NONE),
    "different sources": shape(*gather("9800", "9700", "9900", source_for=("0xsrc", "0xsrc", "0xother")), expect=NONE),
    "intermediaries that are not customers": shape(*gather("9800", "9700", "9900"), registered={}, expect=NONE),
    "more senders than the degree bound: skipped": shape(*gather("9800", "9700", "9900"), ("0xa", OWN, "50", 5), ("0xb", OWN, "50", 4),
                                                         *gather("9800")[-1:], max_senders=4, expect=SKIP),
    "skipped without a price": shape(*gather("9800", "9700"), ("0xi3", OWN, None, 0), ("0xsrc", "0xi3", "10000", 13), expect=SKIP),
}

CHAIN = (("0xa", "0xb", "10000", 30), ("0xb", "0xc", "9500", 20), ("0xc", OWN, "9100", 0))
LAYERING_CHAIN = {
    "three hops, each a little less": shape(*CHAIN, expect=HIT),
    "one hop short (two)": shape(*CHAIN[1:], expect=NONE),
    "amount not preserved: a hop keeps more than 10 %": shape(CHAIN[0], ("0xb", "0xc", "8549.99", 20), CHAIN[2], expect=NONE),
    "a hop that grows is not a deduction": shape(CHAIN[0], ("0xb", "0xc", "10000.01", 20), ("0xc", OWN, "9600", 0), expect=NONE),
    "a gap just over 24 h": shape(("0xa", "0xb", "10000", 44 + 1 / 3600), CHAIN[1], CHAIN[2], expect=NONE),
    "from a sender that is not a customer": shape(*CHAIN, registered={}, expect=NONE),
    "evaluated for the sender of the last hop too": shape(("0xa", "0xb", "10000", 30), ("0xb", OWN, "9500", 20), (OWN, "0xd", "9100", 0),
                                                          expect=HIT),
    "under 1,000 USD": shape(("0xa", "0xb", "1000", 30), ("0xb", "0xc", "990", 20), ("0xc", OWN, "999.99", 0), expect=NONE),
    "search budget exhausted: skipped, not silent": shape(
        *((f"0xn{i}", "0xc", "100", 22) for i in range(150)), *CHAIN, max_transfers_examined=100, expect=SKIP),
    "skipped without a price": shape(CHAIN[0], CHAIN[1], ("0xc", OWN, None, 0), expect=SKIP),
}

TABLES = {
    "fan_in": FAN_IN,
    "fan_out": FAN_OUT,
    "scatter_gather": SCATTER_GATHER,
    "gather_scatter": GATHER_SCATTER,
    "layering_chain": LAYERING_CHAIN,
}


@pytest.mark.parametrize(("code", "scenario"), [case for code, table in TABLES.items() for case in cases(code, table)])
def test_rule(code, scenario):
    assert outcome(run(code, scenario)) == scenario.expect


def test_cycle_closed_by_the_entity_fires_for_it_too():
    """The sender of the closing hop is evaluated as well as its receiver (both are customers)."""
    scenario = cycle(("0xa", "0xb", "1000", hours(50)), ("0xb", OWN, "950", hours(30)), (OWN, "0xa", "900", hours(0)), expect=HIT)
    assert outcome(run("cyclic_flow", scenario)) == HIT


def test_fan_in_evidence_names_the_senders_and_the_transfers():
    scenario = FAN_IN["8 senders, 80 % leaves within the window"]
    result = run("fan_in", scenario)
    measured = result.evidence["measured"]
    assert measured["pattern"] == "fan_in" and measured["hub"] == "1:0xme" and measured["distinct_senders"] == 8
    assert measured["senders"] == [f"1:0xs{i}" for i in range(8)]
    assert (measured["inflow_usd"], measured["outflow_usd"], measured["outflow_share"]) == ("12000", "9600", "0.8000")
    assert [edge["id"] for edge in measured["transfers"]] == list(result.transaction_ids)
    assert set(result.transaction_ids) == {event.id for event in scenario.events}


def test_scatter_gather_evidence_draws_source_intermediaries_and_sink():
    result = run("scatter_gather", SCATTER_GATHER["source → 3 intermediaries → the entity"])
    measured = result.evidence["measured"]
    assert (measured["source"], measured["sink"]) == ("1:0xsrc", "1:0xme")
    assert measured["intermediaries"] == ["1:0xi1", "1:0xi2", "1:0xi3"]
    edges = {(edge["from"], edge["to"], edge["usd"]) for edge in measured["transfers"]}
    assert edges == {("1:0xsrc", f"1:0xi{n}", "10000") for n in (1, 2, 3)} | {
        ("1:0xi1", "1:0xme", "9800"), ("1:0xi2", "1:0xme", "9700"), ("1:0xi3", "1:0xme", "9900")}
    assert len(result.transaction_ids) == 6 and measured["total_usd"] == "29400"


def test_layering_chain_evidence_lists_the_accounts_in_order():
    measured = run("layering_chain", LAYERING_CHAIN["three hops, each a little less"]).evidence["measured"]
    assert measured["accounts"] == ["1:0xa", "1:0xb", "1:0xc", "1:0xme"]
    assert (measured["hops"], measured["values_usd"], measured["retained_share"]) == (3, ["10000", "9500", "9100"], "0.9100")


def test_a_hub_skip_says_why():
    result = run("fan_in", FAN_IN["a hub above the degree bound is skipped"])
    assert result.reason == "11 distinct senders in the window, above the degree bound of 10: a hub, not evaluated"
