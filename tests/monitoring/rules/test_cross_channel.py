"""Rules 27–33, table-driven."""

from __future__ import annotations

from decimal import Decimal

import pytest

from monitoring.rules import CounterpartyEntity, Entity, OrgNetwork, PeerGroupStats
from tests.monitoring.rules.builders import HIT, NONE, SKIP, T0, cases, days, fiat, given, hours, outcome, run, seconds, tx

FIAT_TO_CRYPTO = {
    "wire in, 80 % out as crypto": given(fiat("wire_in", "10000", ago=hours(10)), tx("8000", direction="out"), expect=HIT),
    "card load, then crypto in pieces": given(
        fiat("card_load", "10000", ago=hours(30)), tx("5000", direction="out", ago=hours(2)), tx("3000", direction="out"), expect=HIT
    ),
    "just under 80 %": given(fiat("ach_in", "10000", ago=hours(10)), tx("7999.99", direction="out"), expect=NONE),
    "fiat in exactly 48 h before": given(fiat("wire_in", "10000", ago=hours(48)), tx("8000", direction="out"), expect=HIT),
    "fiat in just outside 48 h": given(fiat("wire_in", "10000", ago=hours(48) + seconds(1)), tx("8000", direction="out"), expect=NONE),
    "fiat out is not an inflow": given(fiat("wire_out", "10000", ago=hours(10)), tx("8000", direction="out"), expect=NONE),
    "crypto inflows are not crypto outflows": given(fiat("wire_in", "10000", ago=hours(10)), tx("9000"), expect=NONE),
    "skipped without a price": given(fiat("wire_in", "10000", ago=hours(10)), tx(None, direction="out"), expect=SKIP),
}

CASH_OUT = {
    "crypto in, wired out": given(tx("10000", ago=hours(10)), fiat("wire_out", "8000"), expect=HIT),
    "crypto in, ATM withdrawals": given(
        tx("1000", ago=hours(10)), fiat("card_atm", "400", ago=hours(1)), fiat("card_atm", "400"), expect=HIT
    ),
    "just under 80 %": given(tx("10000", ago=hours(10)), fiat("ach_out", "7999.99"), expect=NONE),
    "crypto in just outside 48 h": given(tx("10000", ago=hours(48) + seconds(1)), fiat("wire_out", "8000"), expect=NONE),
    "card purchases are not a cash-out": given(
        tx("10000", ago=hours(10)), fiat("card_purchase", "7000", ago=hours(1)), fiat("wire_out", "1000"), expect=NONE
    ),
    "skipped without a price": given(tx("10000", ago=hours(10)), fiat("wire_out", None, amount="9000", currency="EUR"), expect=SKIP),
}

DECLARED = Entity(id="e", expected_monthly_volume_usd=Decimal("10000"))
PROFILE = {
    "more than twice the declared volume": given(tx("15000", ago=days(20)), fiat("wire_in", "5000.01"), expect=HIT, entity=DECLARED),
    "exactly twice is not more": given(tx("15000", ago=days(20)), fiat("wire_in", "5000"), expect=NONE, entity=DECLARED),
    "crypto and fiat both count": given(
        fiat("wire_in", "15000", ago=days(20)), tx("5000.01", direction="out"), expect=HIT, entity=DECLARED
    ),
    "volume just outside 30 days does not count": given(
        tx("15000", ago=days(30) + seconds(1)), fiat("wire_in", "5000.01"), expect=NONE, entity=DECLARED
    ),
    "own-wallet transfers do not count": given(tx("25000", direction="self", cp="0xmine2"), expect=NONE, entity=DECLARED),
    "no declared volume": given(tx("1000000"), expect=NONE),
    "an unpriced own-wallet transfer is not skipped": given(tx(None, direction="self", cp="0xmine2"), expect=NONE, entity=DECLARED),
    "skipped without a price": given(tx("30000", ago=days(2)), tx(None), expect=SKIP, entity=DECLARED),
}

PEERS = Entity(id="e", peer_group=PeerGroupStats(size=5, mean_volume_usd=Decimal(1000), stddev_volume_usd=Decimal(100), active=5))
SMALL_GROUP = Entity(id="e", peer_group=PeerGroupStats(size=4, mean_volume_usd=Decimal(1000), stddev_volume_usd=Decimal(100), active=4))
QUIET_GROUP = Entity(id="e", peer_group=PeerGroupStats(size=9, mean_volume_usd=Decimal(0), stddev_volume_usd=Decimal(0), active=4))
PEER_OUTLIER = {
    "beyond mean + 3 σ": given(tx("1000", ago=days(3)), fiat("ach_in", "300.01"), expect=HIT, entity=PEERS),
    "exactly mean + 3 σ": given(tx("1000", ago=days(3)), fiat("ach_in", "300"), expect=NONE, entity=PEERS),
    "volume just outside 30 days": given(tx("1000", ago=days(30) + seconds(1)), fiat("ach_in", "300.01"), expect=NONE, entity=PEERS),
    "peer group too small": given(tx("100000"), expect=NONE, entity=SMALL_GROUP),
    "no peer group": given(tx("100000"), expect=NONE),
    "smaller group allowed by override": given(tx("100000"), expect=HIT, entity=SMALL_GROUP,
                                               params={"min_peer_group_size": 4, "min_active_peers": 4}),
    "a group without history (mean 0, σ 0) is not compared": given(tx("50"), expect=NONE, entity=QUIET_GROUP),
    "fewer active peers allowed by override": given(tx("50"), expect=HIT, entity=QUIET_GROUP, params={"min_active_peers": 4}),
    "skipped without a price": given(tx("5000", ago=days(1)), tx(None), expect=SKIP, entity=PEERS),
}

INACTIVE = {
    "a suspended entity transacts": given(tx(None), expect=HIT, entity=Entity(id="e", status="suspended")),
    "a rejected entity receives a wire": given(fiat("wire_in", "1"), expect=HIT, entity=Entity(id="e", status="rejected")),
    "an approved entity": given(tx("1"), expect=NONE, entity=Entity(id="e", status="approved")),
    "statuses by override": given(tx("1"), expect=HIT, entity=Entity(id="e", status="pending"), params={"statuses": ["pending"]}),
}

FLAGGED = OrgNetwork(flagged_wallets=frozenset({(1, "0xbad"), (None, "0xbadeverywhere")}))
FLAGGED_WALLET = {
    "received from a flagged wallet": given(tx("1", cp="0xbad"), expect=HIT, network=FLAGGED),
    "the entity's own wallet is flagged": given(tx(None, own="0xbad", cp="0xok", direction="out"), expect=HIT, network=FLAGGED),
    "flagged on every chain": given(tx("1", cp="0xbadeverywhere", chain=137), expect=HIT, network=FLAGGED),
    "flagged on another chain only": given(tx("1", cp="0xbad", chain=137), expect=NONE, network=FLAGGED),
    "clean wallets": given(tx("1", cp="0xok"), expect=NONE, network=FLAGGED),
}

FINDINGS = OrgNetwork(
    entities={
        "e-recent": CounterpartyEntity(id="e-recent", adverse_findings_at=(T0 - days(365),)),
        "e-old": CounterpartyEntity(id="e-old", adverse_findings_at=(T0 - days(365) - seconds(1),)),
        "e-later": CounterpartyEntity(id="e-later", adverse_findings_at=(T0 + days(1),)),
        "e-clean": CounterpartyEntity(id="e-clean"),
    },
    registered_wallets={(1, "0xrecent"): "e-recent"},
)
TRUE_POSITIVE_COUNTERPARTY = {
    "finding exactly 365 days ago": given(tx("1", cp_entity="e-recent"), expect=HIT, network=FINDINGS),
    "counterparty resolved from its registered wallet": given(tx(None, cp="0xrecent", direction="out"), expect=HIT, network=FINDINGS),
    "finding just over 365 days ago": given(tx("1", cp_entity="e-old"), expect=NONE, network=FINDINGS),
    "a finding after the transfer does not count (replays)": given(tx("1", cp_entity="e-later"), expect=NONE, network=FINDINGS),
    "clean counterparty": given(tx("1", cp_entity="e-clean"), expect=NONE, network=FINDINGS),
    "unregistered counterparty": given(tx("1", cp="0xnobody"), expect=NONE, network=FINDINGS),
}

TABLES = {
    "fiat_to_crypto_rapid": FIAT_TO_CRYPTO,
    "crypto_to_fiat_cashout": CASH_OUT,
    "profile_deviation": PROFILE,
    "peer_group_outlier": PEER_OUTLIER,
    "inactive_entity_activity": INACTIVE,
    "flagged_wallet_activity": FLAGGED_WALLET,
    "true_positive_counterparty": TRUE_POSITIVE_COUNTERPARTY,
}


@pytest.mark.parametrize(("code", "scenario"), [case for code, table in TABLES.items() for case in cases(code, table)])
def test_rule(code, scenario):
    assert outcome(run(code, scenario)) == scenario.expect


def test_cross_channel_evidence_joins_both_channels():
    scenario = FIAT_TO_CRYPTO["card load, then crypto in pieces"]
    result = run("fiat_to_crypto_rapid", scenario)
    assert result.fiat_event_ids == (scenario.events[0].id,)
    assert result.transaction_ids == (scenario.events[1].id, scenario.events[2].id)
    assert result.evidence["measured"]["outflow_share"] == "0.8000"


def test_profile_deviation_measures_the_multiple():
    measured = run("profile_deviation", PROFILE["more than twice the declared volume"]).evidence["measured"]
    assert measured == {"volume_usd": "20000.01", "expected_monthly_usd": "10000", "multiple": "2.0000", "unpriced_events": 0}


def test_same_timestamp_fiat_is_not_seen_by_a_transaction():
    """Across channels, an event at the very same instant is neither before nor after: left out, so replays agree."""
    scenario = given(fiat("wire_in", "10000"), tx("9000", direction="out"), expect=NONE)
    assert outcome(run("fiat_to_crypto_rapid", scenario)) == NONE
