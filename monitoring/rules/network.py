"""Network typologies over the transfer graph (rules 6, 7, 51–53): fan-in, fan-out, scatter-gather,
gather-scatter and layering chains. Rule 15 (cycles) lives with the transaction rules.

Each runs incrementally, on the evaluated transfer, inside a time window ending at it: the entity's
own windowed history answers fan-in, fan-out and gather-scatter; scatter-gather and layering chains
also read the arrivals into the wallets one or more hops back (`TransferGraph`, built by storage for
the batch). Every search is bounded: by the window, by a degree bound (an account with more distinct
counterparties in the window than the bound is a hub — an exchange, a payroll or a merchant — and
the rule skips it and says so rather than walking it), and by a budget of examined transfers.
Evidence names the participating accounts and transfers, so the console can draw the shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from monitoring.rules.context import (
    Outcome,
    Params,
    RuleInput,
    Skip,
    Transaction,
    address_label,
    hit,
    micros,
    no_price,
    percent_of,
    ratio,
    span,
    usd_total,
)


def _degree_skip(kind: str, found: int, bound: int) -> Skip:
    return Skip(f"{found} distinct {kind} in the window, above the degree bound of {bound}: a hub, not evaluated")


def _accounts(transfers: Sequence[Transaction]) -> list[str]:
    return sorted({address_label(t.counterparty_key) for t in transfers})


def _inflows_then_outflows(inp: RuleInput, hours: int) -> tuple[list[Transaction], list[Transaction]]:
    """The priced inflows of the window, and the priced outflows from the first of them on."""
    inflows = [t for t in inp.history.transactions(hours=hours, direction="in") if t.usd_value is not None]
    if not inflows:
        return [], []
    start = inflows[0].timestamp
    outflows = [t for t in inp.history.transactions(hours=hours, direction="out") if t.usd_value is not None and t.timestamp >= start]
    return inflows, outflows


def fan_in(inp: RuleInput, p: Params) -> Outcome:
    """#6 Convergence (gather): many distinct senders pay the entity, and the money leaves soon after.

    Evaluated on outflows (the money leaving is what completes the pattern)."""
    tx = inp.event
    if tx.direction != "out":
        return None
    if tx.usd_value is None:
        return no_price(tx)
    inflows, outflows = _inflows_then_outflows(inp, p["window_hours"])
    senders = {t.counterparty_key for t in inflows}
    if len(senders) > p["max_senders"]:
        return _degree_skip("senders", len(senders), p["max_senders"])
    if len(senders) < p["min_senders"]:
        return None
    received, sent = usd_total(inflows).usd, usd_total(outflows).usd
    if received < p["min_inflow_usd"] or sent < percent_of(received, p["min_outflow_pct"]):
        return None
    return hit_shape(inflows + outflows, pattern="fan_in", hub=_own(tx), distinct_senders=len(senders), senders=_accounts(inflows),
                     inflow_usd=received, outflow_usd=sent, outflow_share=ratio(sent, received))


def fan_out(inp: RuleInput, p: Params) -> Outcome:
    """#7 Divergence (scatter): an inflow dispersed to many distinct recipients soon after it arrived.

    "Funded" keeps payrolls and supplier runs out: the outflows must carry between min_outflow_pct and
    max_outflow_pct of what came in over the funding window before the first of them."""
    tx = inp.event
    if tx.direction != "out":
        return None
    if tx.usd_value is None:
        return no_price(tx)
    outflows = [t for t in inp.history.transactions(hours=p["window_hours"], direction="out") if t.usd_value is not None]
    recipients = {t.counterparty_key for t in outflows}
    if len(recipients) > p["max_recipients"]:
        return _degree_skip("recipients", len(recipients), p["max_recipients"])
    sent = usd_total(outflows).usd
    if len(recipients) < p["min_recipients"] or sent < p["min_outflow_usd"]:
        return None
    since = micros(outflows[0].timestamp) - span(hours=p["funding_hours"])
    window = inp.history.transactions(hours=p["window_hours"] + p["funding_hours"], direction="in")
    inflows = [t for t in window if t.usd_value is not None and since <= micros(t.timestamp) <= micros(outflows[0].timestamp)]
    received = usd_total(inflows).usd
    if not received or not percent_of(received, p["min_outflow_pct"]) <= sent <= percent_of(received, p["max_outflow_pct"]):
        return None
    return hit_shape(inflows + outflows, pattern="fan_out", hub=_own(tx), distinct_recipients=len(recipients),
                     recipients=_accounts(outflows), inflow_usd=received, outflow_usd=sent, outflow_share=ratio(sent, received))


def gather_scatter(inp: RuleInput, p: Params) -> Outcome:
    """#52 Gather-scatter: many senders → the entity → many recipients, most of the money passed on, in one window."""
    tx = inp.event
    if tx.direction != "out":
        return None
    if tx.usd_value is None:
        return no_price(tx)
    inflows, outflows = _inflows_then_outflows(inp, p["window_hours"])
    senders, recipients = {t.counterparty_key for t in inflows}, {t.counterparty_key for t in outflows}
    if max(len(senders), len(recipients)) > p["max_degree"]:
        return _degree_skip("counterparties", max(len(senders), len(recipients)), p["max_degree"])
    if len(senders) < p["min_senders"] or len(recipients) < p["min_recipients"]:
        return None
    received, sent = usd_total(inflows).usd, usd_total(outflows).usd
    if received < p["min_inflow_usd"] or sent < percent_of(received, p["min_outflow_pct"]):
        return None
    return hit_shape(inflows + outflows, pattern="gather_scatter", hub=_own(tx), senders=_accounts(inflows), recipients=_accounts(outflows),
                     inflow_usd=received, outflow_usd=sent, outflow_share=ratio(sent, received))


def _own(tx: Transaction) -> str:
    return address_label((tx.chain_id, tx.own_addresses[0]))


def hit_shape(transfers: Sequence[Transaction], **measured) -> Outcome:
    """A hit whose evidence lists the transfers as edges (from, to, USD, time): enough to draw the shape."""
    ordered = sorted({t.id: t for t in transfers}.values(), key=lambda t: (t.timestamp, t.id))
    edges = [{"id": t.id, "from": address_label((t.chain_id, t.from_address)), "to": address_label((t.chain_id, t.to_address)),
              "usd": t.usd_value, "at": t.timestamp} for t in ordered]
    return hit(ordered, **measured, transfers=edges)


# --- Scatter-gather: source → k intermediaries → sink ---------------------------------------------------


def _passes_on(received: Decimal, passed: Decimal, tolerance_pct: Decimal) -> bool:
    """`passed` is what was received, give or take the tolerance (fees, a cut kept by the mule)."""
    return percent_of(received, 100 - tolerance_pct) <= passed <= percent_of(received, 100 + tolerance_pct)


def scatter_gather(inp: RuleInput, p: Params) -> Outcome:
    """#51 Scatter-gather: one source pays k customers who each pass it on to the entity within the window.

    Evaluated on an inflow from a customer's wallet (the intermediary); the source is found among the
    arrivals into that wallet (`TransferGraph`), then the entity's other inflows from customers in the
    window are checked for the same source. Bounded by `max_senders` distinct senders (any) into the entity."""
    tx = inp.event
    if tx.direction != "in" or not inp.counterparty_entity_id():
        return None
    if tx.usd_value is None:
        return no_price(tx)
    window = inp.history.transactions(hours=p["window_hours"], direction="in")
    senders = {t.counterparty_key for t in window}
    if len(senders) > p["max_senders"]:
        return _degree_skip("senders", len(senders), p["max_senders"])
    inflows = [t for t in window if t.usd_value is not None and inp.network.counterparty_entity_id(t)]
    since = micros(tx.timestamp) - span(hours=p["window_hours"])
    sink = tx.to_address
    legs: dict[str, dict[str, tuple[Transaction, Transaction]]] = {}
    for passed in inflows:
        for leg in _feeding(inp, passed, since, sink, p["amount_tolerance_pct"]):
            legs.setdefault(leg.from_address, {}).setdefault(passed.from_address, (leg, passed))
    for source in _sources_of(tx, inp, since, sink, p["amount_tolerance_pct"]):
        used = legs.get(source, {})
        if len(used) >= p["min_intermediaries"] and tx.from_address in used:
            transfers = [t for pair in used.values() for t in pair]
            return hit_shape(transfers, pattern="scatter_gather", source=address_label((tx.chain_id, source)),
                             sink=address_label((tx.chain_id, sink)), intermediaries=sorted(address_label((tx.chain_id, a)) for a in used),
                             total_usd=usd_total(pair[1] for pair in used.values()).usd)
    return None


def _feeding(inp: RuleInput, passed: Transaction, since: int, sink: str, tolerance: Decimal) -> list[Transaction]:
    """The transfers into `passed`'s sender, in the window and before it, that it passed on (amount within the tolerance)."""
    arrivals = inp.network.transfers.arrivals(passed.chain_id, passed.from_address, since_us=since, until_us=micros(passed.timestamp))
    return [leg for leg in arrivals if leg.usd_value is not None and leg.from_address not in (sink, passed.from_address)
            and _passes_on(leg.usd_value, passed.usd_value, tolerance)]


def _sources_of(tx: Transaction, inp: RuleInput, since: int, sink: str, tolerance: Decimal) -> list[str]:
    return list(dict.fromkeys(leg.from_address for leg in _feeding(inp, tx, since, sink, tolerance)))


# --- Layering chains: amounts passed on hop after hop, a little less each time ----------------------------


class ChainSearch:
    """Depth-first, backwards in time through the arrivals into each wallet, along hops that each carry
    between (100 − max_deduction_pct) % and 100 % of the hop before, each within max_gap_hours of it."""

    def __init__(self, inp: RuleInput, p: Params) -> None:
        self.graph, self.p, self.budget, self.exhausted = inp.network.transfers, p, p["max_transfers_examined"], False
        self.gap = span(hours=p["max_gap_hours"])

    def back_from(self, path: list[Transaction]) -> list[Transaction] | None:
        if len(path) >= self.p["min_hops"]:
            return path
        first = path[0]
        on_path = {t.from_address for t in path} | {path[-1].to_address}
        at = micros(first.timestamp)
        for hop in self.graph.arrivals(first.chain_id, first.from_address, since_us=at - self.gap, until_us=at):
            self.budget -= 1
            if self.budget < 0:
                self.exhausted = True
                return None
            if hop.id == first.id or hop.usd_value is None or hop.from_address in on_path:
                continue
            if percent_of(hop.usd_value, 100 - self.p["max_deduction_pct"]) <= first.usd_value <= hop.usd_value:
                found = self.back_from([hop, *path])
                if found or self.exhausted:
                    return found
        return None


def layering_chain(inp: RuleInput, p: Params) -> Outcome:
    """#53 Layering chain: the evaluated transfer is the last of ≥ min_hops hops between customers, each
    passing on the previous hop's amount less a small deduction, each soon after the one before."""
    tx = inp.event
    if tx.direction == "self" or tx.from_address == tx.to_address:
        return None
    if tx.direction == "in" and not inp.counterparty_entity_id():
        return None
    if tx.usd_value is None:
        return no_price(tx)
    if tx.usd_value < p["min_amount_usd"]:
        return None
    search = ChainSearch(inp, p)
    chain = search.back_from([tx])
    if search.exhausted:
        return Skip(f"chain search stopped after examining {p['max_transfers_examined']} transfers")
    if chain is None:
        return None
    accounts = [address_label((t.chain_id, t.from_address)) for t in chain] + [address_label((tx.chain_id, tx.to_address))]
    return hit_shape(chain, pattern="layering_chain", hops=len(chain), accounts=accounts, values_usd=[t.usd_value for t in chain],
                     retained_share=ratio(chain[-1].usd_value, chain[0].usd_value))
