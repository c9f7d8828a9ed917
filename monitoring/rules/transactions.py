"""Rules 1–23: transactions (crypto from the indexer, or submitted through the API).

Each rule is `rule(inp: RuleInput, params) -> Hit | Skip | None`; parameters are documented in the registry.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from monitoring.rules.context import (
    MICROS_PER_DAY,
    MICROS_PER_HOUR,
    AddressKey,
    Outcome,
    Params,
    PassThrough,
    RuleInput,
    Skip,
    Transaction,
    TransferGraph,
    UsdBand,
    address_label,
    hit,
    micros,
    no_price,
    percent_of,
    ratio,
    rounded,
    span,
    usd_total,
)
from monitoring.rules.network import hit_shape


def large_transfer(inp: RuleInput, p: Params) -> Outcome:
    """#1 Large-value reporting thresholds: one transfer ≥ threshold."""
    tx = inp.event
    if tx.usd_value is None:
        return no_price(tx)
    if tx.usd_value < p["threshold_usd"]:
        return None
    return hit((tx,), usd_value=tx.usd_value)


def sanctioned_counterparty(inp: RuleInput, p: Params) -> Outcome:
    """#2 OFAC SDN digital-currency addresses, or the organization's block list."""
    tx = inp.event
    source = inp.lists.sanctions_source(tx.chain_id, tx.counterparty_address)
    if source is None:
        return None
    return hit((tx,), counterparty=address_label(tx.counterparty_key), listed_on=source)


def structuring_below_threshold(inp: RuleInput, p: Params) -> Outcome:
    """#3 FATF: splitting to stay under a threshold — several same-direction transfers just below it."""
    tx = inp.event
    if tx.direction == "self":
        return None
    if tx.usd_value is None:
        return no_price(tx)
    band = UsdBand(percent_of(p["threshold_usd"], p["band_floor_pct"]), p["threshold_usd"])
    if not band.holds(tx.usd_value):
        return None
    near = [t for t in inp.history.transactions(hours=p["window_hours"], direction=tx.direction) if band.holds(t.usd_value)]
    if len(near) < p["min_count"]:
        return None
    return hit(near, direction=tx.direction, count=len(near), band_floor_usd=band.floor, total_usd=usd_total(near).usd)


def high_velocity(inp: RuleInput, p: Params) -> Outcome:
    """#5 Velocity burst: many transfers in a short or a day-long window."""
    for window in ("short", "long"):
        burst = inp.history.transactions(hours=p[f"{window}_window_hours"])
        if len(burst) >= p[f"{window}_min_count"]:
            return hit(burst, window_hours=p[f"{window}_window_hours"], count=len(burst))
    return None


def _is_round(value: object, p: Params) -> bool:
    return value is not None and value >= p["min_amount_usd"] and value % p["round_unit_usd"] == 0


def round_amounts(inp: RuleInput, p: Params) -> Outcome:
    """#8 Round-figure layering: repeated transfers of round USD value."""
    tx = inp.event
    if tx.usd_value is None:
        return no_price(tx)
    if not _is_round(tx.usd_value, p):
        return None
    rounds = [t for t in inp.history.transactions(days=p["window_days"]) if _is_round(t.usd_value, p)]
    if len(rounds) < p["min_count"]:
        return None
    return hit(rounds, count=len(rounds), total_usd=usd_total(rounds).usd)


def _wallet_first_seen(inp: RuleInput, key: AddressKey) -> datetime:
    """Storage's first-seen time; failing that, the wallet's first loaded transaction (or this one)."""
    known = inp.context.wallet_first_seen.get(key)
    if known is not None:
        return known
    chain_id, address = key
    for t in inp.history.earlier_transactions():
        if t.chain_id == chain_id and address in (t.from_address, t.to_address):
            return t.timestamp
    return inp.event.timestamp


def new_wallet_large_transfer(inp: RuleInput, p: Params) -> Outcome:
    """#9 FATF: a large first movement through a wallet out of profile."""
    tx = inp.event
    if tx.usd_value is not None and tx.usd_value < p["threshold_usd"]:
        return None  # silent at any wallet age: the age (a scan of the history when storage does not know the wallet) is not needed
    first_seen = max(_wallet_first_seen(inp, (tx.chain_id, address)) for address in tx.own_addresses)
    age = tx.timestamp - first_seen
    if age >= timedelta(days=p["max_wallet_age_days"]):
        return None
    if tx.usd_value is None:
        return no_price(tx)
    if tx.usd_value < p["threshold_usd"]:
        return None
    return hit((tx,), usd_value=tx.usd_value, wallet_first_seen_at=first_seen, wallet_age_hours=int(age.total_seconds() // 3600))


def dormant_reactivation(inp: RuleInput, p: Params) -> Outcome:
    """#10 Dormant account reactivated: no activity for a long time (or since onboarding), then value moves."""
    tx, entity = inp.event, inp.entity
    if tx.usd_value is not None and tx.usd_value < p["threshold_usd"]:
        return None  # silent however long the entity was idle
    last_active = inp.history.previous_activity_at() or entity.onboarded_at or entity.created_at
    if last_active is None or tx.timestamp - last_active < timedelta(days=p["dormant_days"]):
        return None
    if tx.usd_value is None:
        return no_price(tx)
    if tx.usd_value < p["threshold_usd"]:
        return None
    idle_days = (tx.timestamp - last_active).days
    return hit((tx,), usd_value=tx.usd_value, last_activity_at=last_active, idle_days=idle_days)


def _tag_exposure(inp: RuleInput, categories: frozenset[str]) -> Outcome:
    tx = inp.event
    matched = inp.counterparty_tags() & categories
    if not matched:
        return None
    return hit((tx,), counterparty=address_label(tx.counterparty_key), categories=matched, usd_value=tx.usd_value)


def mixer_exposure(inp: RuleInput, p: Params) -> Outcome:
    """#11 FATF: mixers and tumblers."""
    return _tag_exposure(inp, p["categories"])


def illicit_category_exposure(inp: RuleInput, p: Params) -> Outcome:
    """#12 Direct exposure to illicit services (darknet, ransomware, scam, stolen funds, terrorist financing)."""
    return _tag_exposure(inp, p["categories"])


def privacy_asset(inp: RuleInput, p: Params) -> Outcome:
    """#13 FATF: anonymity-enhanced coins (the organization's privacy-asset list)."""
    tx = inp.event
    if tx.asset.upper() not in inp.lists.privacy_assets:
        return None
    return hit((tx,), asset=tx.asset.upper(), amount=tx.amount)


def rapid_pass_through(inp: RuleInput, p: Params) -> Outcome:
    """#4 Mirroring / pass-through (layering): inflows sent on within the window.

    The outflows are matched to the inflows by amount and time: for an inflow of the window (the most
    recent first), the outflows from its time up to and including the evaluated one, at most
    `max_outflows` of them, total between min_outflow_pct and max_outflow_pct of what came in from
    that inflow on (one deposit, or several gathered and sent on together). A 549 payment does not
    pass on a 102 inflow."""
    tx = inp.event
    if tx.direction != "out":
        return None
    if tx.usd_value is None:
        return no_price(tx)
    hours = p["window_hours"]
    inflows = [t for t in inp.history.transactions(hours=hours, direction="in") if t.usd_value]
    outflows = [t for t in inp.history.transactions(hours=hours, direction="out") if t.usd_value is not None]
    received, used = Decimal(0), len(outflows)
    for i in range(len(inflows) - 1, -1, -1):
        inflow = inflows[i]
        received += inflow.usd_value
        while used and outflows[used - 1].timestamp >= inflow.timestamp:
            used -= 1
        following = outflows[used:]
        if len(following) > p["max_outflows"]:
            return None  # earlier inflows have even more outflows after them
        sent = usd_total(following).usd
        matched = percent_of(received, p["min_outflow_pct"]) <= sent <= percent_of(received, p["max_outflow_pct"])
        if matched and received >= p["min_inflow_usd"]:
            gathered = inflows[i:]
            measured = PassThrough(inflow, tuple(following), sent).measured()
            measured.update(inflow_count=len(gathered), inflow_usd=received, outflow_share=ratio(sent, received))
            return hit((*gathered, *following), **measured)
    return None


def peel_chain(inp: RuleInput, p: Params) -> Outcome:
    """#14 Peel chain: successive payments to fresh addresses, each smaller than the one before."""
    tx = inp.event
    if tx.direction != "out" or not inp.history.is_first_contact(tx):
        return None
    if tx.usd_value is None:
        return no_price(tx)
    outflows = inp.history.transactions(hours=p["window_hours"], direction="out")
    chain = _decreasing_run_ending_at([t for t in outflows if t.usd_value is not None and inp.history.is_first_contact(t)])
    if len(chain) < p["min_count"]:
        return None
    return hit(chain, count=len(chain), values_usd=[t.usd_value for t in chain])


def _decreasing_run_ending_at(transfers: list[Transaction]) -> list[Transaction]:
    """The longest run of consecutive transfers, ending with the last, in which each is smaller than the one before."""
    run = [transfers[-1]]
    for earlier in reversed(transfers[:-1]):
        if earlier.usd_value <= run[-1].usd_value:
            break
        run.append(earlier)
    return run[::-1]


def cyclic_flow(inp: RuleInput, p: Params) -> Outcome:
    """#15 Round-tripping: value leaves an own wallet and comes back through known wallets."""
    tx = inp.event
    if tx.direction == "self" or tx.to_address == tx.from_address or not _is_known_wallet(inp):
        return None
    if tx.usd_value is None:
        return no_price(tx)
    # Evaluated for both sides of the closing transfer: the receiver (its value came back) and the sender (it closed the loop).
    search = CycleSearch(inp.network.transfers, tx.to_address, micros(tx.timestamp) - span(days=p["window_days"]), p)
    cycle = search.back_from([tx])
    if search.exhausted:
        return Skip(f"cycle search stopped after examining {p['max_transfers_examined']} transfers")
    if cycle is None:
        return None
    accounts = [address_label((t.chain_id, t.from_address)) for t in cycle]
    return hit_shape(cycle, pattern="cycle", wallet=address_label((tx.chain_id, tx.to_address)), hops=len(cycle), accounts=accounts,
                     values_usd=[t.usd_value for t in cycle])


def _is_known_wallet(inp: RuleInput) -> bool:
    """The evaluated transfer's value came back from a registered wallet (a customer's, or the entity's own)."""
    return bool(inp.counterparty_entity_id()) or inp.event.counterparty_key in inp.context.own_wallets


class CycleSearch:
    """Depth-first, backwards in time, through transfers between registered wallets, to a hop leaving `origin`.

    A hub wallet can make the paths explode; past a budget of examined transfers the search stops and says so.
    """

    def __init__(self, graph: TransferGraph, origin: str, since_us: int, p: Params) -> None:
        self.graph, self.origin, self.since_us = graph, origin, since_us
        self.max_hops, self.min_pct, self.budget = p["max_hops"], p["min_hop_pct"], p["max_transfers_examined"]
        self.exhausted = False

    def back_from(self, path: list[Transaction]) -> list[Transaction] | None:
        first = path[0]
        on_path = {t.from_address for t in path} - {self.origin}
        for hop in self.graph.arrivals(first.chain_id, first.from_address, since_us=self.since_us, until_us=micros(first.timestamp)):
            self.budget -= 1
            if self.budget < 0:
                self.exhausted = True
                return None
            if hop.id != first.id and hop.usd_value is not None and hop.from_address not in on_path:
                found = self._extend([hop, *path])
                if found or self.exhausted:
                    return found
        return None

    def _extend(self, candidate: list[Transaction]) -> list[Transaction] | None:
        if candidate[0].from_address == self.origin:
            return candidate if _hops_hold_value(candidate, self.min_pct) else None
        return self.back_from(candidate) if len(candidate) < self.max_hops else None


def _hops_hold_value(cycle: list[Transaction], min_pct: Decimal) -> bool:
    """Each later hop carries at least min_pct of what the first hop took out."""
    floor = percent_of(cycle[0].usd_value, min_pct)
    return all(t.usd_value >= floor for t in cycle[1:])


def _is_known_service(inp: RuleInput, categories: frozenset[str]) -> bool:
    return bool(inp.counterparty_tags() & categories)


def unhosted_large_transfer(inp: RuleInput, p: Params) -> Outcome:
    """#16 Unhosted-wallet transfers (EU TFR threshold): counterparty neither a customer nor a known service."""
    tx = inp.event
    # An unhosted wallet is an on-chain notion: an off-chain transfer's (chain 0) other side is an account
    # at a bank or a payment provider, named in the payment itself.
    if not tx.chain_id or tx.direction == "self" or inp.counterparty_entity_id() or _is_known_service(inp, p["service_categories"]):
        return None
    if tx.usd_value is None:
        return no_price(tx)
    if tx.usd_value < p["threshold_usd"]:
        return None
    return hit((tx,), counterparty=address_label(tx.counterparty_key), usd_value=tx.usd_value)


def own_wallet_layering(inp: RuleInput, p: Params) -> Outcome:
    """#17 Self-layering: many transfers between the entity's own wallets."""
    if inp.event.direction != "self":
        return None
    shuffles = inp.history.transactions(hours=p["window_hours"], direction="self")
    if len(shuffles) < p["min_count"]:
        return None
    return hit(shuffles, count=len(shuffles))


def volume_spike(inp: RuleInput, p: Params) -> Outcome:
    """#18 Sudden activity increase: the last 24 h against the daily average of the 30 days before them."""
    tx = inp.event
    if tx.direction == "self":
        return None
    if tx.usd_value is None:
        return no_price(tx)
    days = _baseline_days(inp, p)
    if days < p["min_history_days"]:
        return None
    recent = inp.history.transaction_volume(hours=p["window_hours"])
    if recent.usd < p["min_window_usd"]:
        return None
    baseline = inp.history.transaction_volume(days=p["baseline_days"], ending_hours_ago=p["window_hours"])
    if baseline.events < p["min_history_transfers"]:
        return None  # too little history to call anything a spike: the peer group (rule 30) judges new accounts
    daily = baseline.usd / days
    if not daily or recent.usd < p["multiplier"] * daily:
        return None
    measured = {"window_usd": recent.usd, "baseline_daily_usd": rounded(daily, "0.01"), "baseline_days": rounded(days, "0.01")}
    measured.update(multiple=ratio(recent.usd, daily), unpriced_events=recent.unpriced + baseline.unpriced)
    return hit(inp.history.transactions(hours=p["window_hours"]), **measured)


def _baseline_days(inp: RuleInput, p: Params) -> Decimal:
    """Days of history before the window, up to the baseline length (an entity younger than 30 days averages over fewer)."""
    first = inp.history.history.first_activity_at
    if first is None:
        return Decimal(0)
    available = inp.history.at_us - p["window_hours"] * MICROS_PER_HOUR - micros(first)
    return min(Decimal(max(available, 0)) / MICROS_PER_DAY, Decimal(p["baseline_days"]))


def counterparty_concentration(inp: RuleInput, p: Params) -> Outcome:
    """#19 Funnel account: most of the entity's volume flows with one unregistered counterparty."""
    tx = inp.event
    if tx.direction == "self" or inp.counterparty_entity_id():
        return None
    if tx.usd_value is None:
        return no_price(tx)
    total = inp.history.transaction_volume(days=p["window_days"])
    if total.usd < p["min_volume_usd"]:
        return None
    shared = [t for t in inp.history.transactions_with(tx.counterparty_key, days=p["window_days"]) if t.direction != "self"]
    share = usd_total(shared).usd
    if share < percent_of(total.usd, p["min_share_pct"]):
        return None
    measured = {"counterparty_usd": share, "volume_usd": total.usd, "share": ratio(share, total.usd), "unpriced_events": total.unpriced}
    return hit(shared, counterparty=address_label(tx.counterparty_key), **measured)


def chain_hopping(inp: RuleInput, p: Params) -> Outcome:
    """#20 Chain hopping: value moved across several chains in a short time (off-chain transfers do not count)."""
    tx = inp.event
    if not tx.chain_id:
        return None
    if tx.usd_value is None:
        return no_price(tx)
    moves = [t for t in inp.history.transactions(hours=p["window_hours"]) if t.chain_id]
    chains = {t.chain_id for t in moves}
    moved = usd_total(moves)
    if len(chains) < p["min_chains"] or moved.usd < p["min_volume_usd"]:
        return None
    return hit(moves, chains=chains, volume_usd=moved.usd, unpriced_events=moved.unpriced)


def travel_rule_missing(inp: RuleInput, p: Params) -> Outcome:
    """#21 FinCEN funds-travel rule / FATF R.16: a VASP-to-VASP-sized transfer without travel-rule data."""
    tx = inp.event
    if tx.direction == "self" or tx.travel_rule_present:
        return None
    other_customer = inp.counterparty_entity_id() not in (None, inp.entity.id)
    if not (other_customer or _is_known_service(inp, p["service_categories"])):
        return None
    if tx.usd_value is None:
        return no_price(tx)
    if tx.usd_value < p["threshold_usd"]:
        return None
    return hit((tx,), usd_value=tx.usd_value, counterparty=address_label(tx.counterparty_key), counterparty_is_customer=other_customer)


def high_risk_jurisdiction(inp: RuleInput, p: Params) -> Outcome:
    """#22 FATF call-for-action: the entity or a counterparty customer in a high-risk jurisdiction."""
    tx, listed = inp.event, inp.lists.high_risk_jurisdictions
    found = {}
    if (inp.entity.jurisdiction or "").upper() in listed:
        found["entity_jurisdiction"] = inp.entity.jurisdiction
    counterparty = inp.network.entities.get(inp.counterparty_entity_id() or "")
    if counterparty and (counterparty.jurisdiction or "").upper() in listed:
        found["counterparty_jurisdiction"] = counterparty.jurisdiction
        found["counterparty_entity_id"] = counterparty.id
    return hit((tx,), **found) if found else None


def smurfing_inbound(inp: RuleInput, p: Params) -> Outcome:
    """#23 FATF: many small inflows from several senders, adding up (before consolidation)."""
    tx = inp.event
    if tx.direction != "in":
        return None
    if tx.usd_value is None:
        return no_price(tx)
    small = UsdBand(Decimal(0), p["max_amount_usd"])
    if not small.holds(tx.usd_value):
        return None
    inflows = [t for t in inp.history.transactions(hours=p["window_hours"], direction="in") if small.holds(t.usd_value)]
    senders = {t.counterparty_key for t in inflows}
    total = usd_total(inflows).usd
    if len(inflows) < p["min_count"] or len(senders) < p["min_senders"] or total < p["min_total_usd"]:
        return None
    return hit(inflows, count=len(inflows), distinct_senders=len(senders), total_usd=total)
