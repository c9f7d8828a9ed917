"""Rules 27–33: transactions and fiat events looked at together, and the entity's place in the organization."""

from __future__ import annotations

from datetime import timedelta

from monitoring.rules.context import (
    ACH_OUT,
    CARD_ATM,
    FIAT_INFLOWS,
    WIRE_OUT,
    Outcome,
    Params,
    RuleInput,
    Transaction,
    address_label,
    hit,
    latest_pass_through,
    no_price,
    ratio,
)

CASH_OUT = frozenset({WIRE_OUT, ACH_OUT, CARD_ATM})


def fiat_to_crypto_rapid(inp: RuleInput, p: Params) -> Outcome:
    """#27 On-ramp pass-through: fiat paid in, then mostly sent out as crypto within two days."""
    tx = inp.event
    if tx.direction != "out":
        return None
    if tx.usd_value is None:
        return no_price(tx)
    hours = p["window_hours"]
    inflows = inp.history.fiat_events(hours=hours, types=FIAT_INFLOWS)
    found = latest_pass_through(inflows, inp.history.transactions(hours=hours, direction="out"), p["min_outflow_pct"])
    return hit((found.inflow, *found.outflows), **found.measured()) if found else None


def crypto_to_fiat_cashout(inp: RuleInput, p: Params) -> Outcome:
    """#28 FATF: cash-out to fiat — crypto received, then mostly wired, sent by ACH or withdrawn within two days."""
    ev = inp.event
    if ev.usd_value is None:
        return no_price(ev)
    hours = p["window_hours"]
    inflows = inp.history.transactions(hours=hours, direction="in")
    found = latest_pass_through(inflows, inp.history.fiat_events(hours=hours, types=CASH_OUT), p["min_outflow_pct"])
    return hit((found.inflow, *found.outflows), **found.measured()) if found else None


def _is_own_wallet_transfer(inp: RuleInput) -> bool:
    """Moving value between the entity's own wallets adds nothing to its activity volume."""
    return isinstance(inp.event, Transaction) and inp.event.direction == "self"


def profile_deviation(inp: RuleInput, p: Params) -> Outcome:
    """#29 Activity inconsistent with profile: 30-day volume above a multiple of the declared monthly volume."""
    expected = inp.entity.expected_monthly_volume_usd
    if not expected or _is_own_wallet_transfer(inp):
        return None
    if inp.event.usd_value is None:
        return no_price(inp.event)
    volume = inp.history.all_channels_volume(days=p["window_days"])
    if volume.usd <= p["multiplier"] * expected:
        return None
    measured = {"volume_usd": volume.usd, "expected_monthly_usd": expected, "multiple": ratio(volume.usd, expected)}
    return hit((inp.event,), **measured, unpriced_events=volume.unpriced)


def peer_group_outlier(inp: RuleInput, p: Params) -> Outcome:
    """#30 Peer-group deviation: 30-day volume beyond the peer group's mean plus k standard deviations."""
    peers = inp.entity.peer_group
    if (peers is None or peers.size < p["min_peer_group_size"] or peers.active < p["min_active_peers"]
            or _is_own_wallet_transfer(inp)):
        return None
    if inp.event.usd_value is None:
        return no_price(inp.event)
    volume = inp.history.all_channels_volume(days=p["window_days"])
    limit = peers.mean_volume_usd + p["sigma"] * peers.stddev_volume_usd
    if volume.usd <= limit:
        return None
    measured = {"volume_usd": volume.usd, "peer_mean_usd": peers.mean_volume_usd, "peer_stddev_usd": peers.stddev_volume_usd}
    return hit((inp.event,), **measured, limit_usd=limit, peer_group_size=peers.size, active_peers=peers.active,
               unpriced_events=volume.unpriced)


def inactive_entity_activity(inp: RuleInput, p: Params) -> Outcome:
    """#31 Activity after off-boarding: any event for a rejected or suspended entity."""
    if inp.entity.status not in p["statuses"]:
        return None
    return hit((inp.event,), entity_status=inp.entity.status)


def flagged_wallet_activity(inp: RuleInput, p: Params) -> Outcome:
    """#32 Known-bad wallet reuse: the transfer touches a wallet this organization has flagged."""
    tx = inp.event
    flagged = [address for address in {tx.from_address, tx.to_address} if address and inp.network.is_flagged(tx.chain_id, address)]
    if not flagged:
        return None
    return hit((tx,), flagged_wallets=[address_label((tx.chain_id, address)) for address in sorted(flagged)])


def true_positive_counterparty(inp: RuleInput, p: Params) -> Outcome:
    """#33 Network exposure: the counterparty customer had a true-positive alert or a filed report lately."""
    tx = inp.event
    counterparty_id = inp.counterparty_entity_id()
    counterparty = inp.network.entities.get(counterparty_id) if counterparty_id and counterparty_id != inp.entity.id else None
    if counterparty is None:
        return None
    since = tx.timestamp - timedelta(days=p["lookback_days"])
    findings = [at for at in counterparty.adverse_findings_at if since <= at <= tx.timestamp]
    if not findings:
        return None
    return hit((tx,), counterparty_entity_id=counterparty.id, latest_finding_at=max(findings), findings=len(findings))
