"""The counterparty graph of one entity (GET /v1/onboarding/entities/{entity_id}/counterparty-graph).

A node is a customer (an entity of the organization, whichever of its wallets moved the money) or an
outside address (chain and address). An edge is every transfer from one node to another in the period,
summed in SQL: USD amount (transfers without a price count in `transfer_count` and `unpriced_count`,
not in the amount), number of transfers. Hop 1 is the entity's own counterparties, read through the
(from_entity, timestamp) and (to_entity, timestamp) indexes; hop 2 is what those counterparties moved
with others, in one more grouped query over the kept hop-1 nodes only. Both are cut to the largest by
USD amount, then by count, and the answer says how many there were and how many are shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from functools import partial
from uuid import UUID

from django.db import connection
from django.db.models import Count, Q, Sum
from django.utils import timezone

from monitoring.choices import AlertStatus
from monitoring.engine.lists import batch_lists
from monitoring.models import Alert, Transaction
from onboarding.models import Entity

DEFAULT_DAYS, MAX_DAYS = 90, 366
DEFAULT_LIMIT, MAX_LIMIT = 50, 200
EDGES_PER_NODE = 4  # the edge budget: hop-1 edges always, hop-2 edges up to this many per node shown
TOTALS = {"amount": Sum("usd_value"), "transfers": Count("id"), "unpriced": Count("id", filter=Q(usd_value__isnull=True))}
SIDES = {"from": ("from_entity_id", "from_address"), "to": ("to_entity_id", "to_address")}
ZERO = Decimal("0.00")


@dataclass
class Flow:
    """Transfers summed: the weight of an edge or of a node's tie to the graph."""

    amount: Decimal = ZERO
    transfers: int = 0
    unpriced: int = 0

    def add(self, row: dict) -> None:
        self.amount += row["amount"] or ZERO
        self.transfers += row["transfers"]
        self.unpriced += row["unpriced"]

    def rank(self) -> tuple:
        return (-self.amount, -self.transfers)


def node_key(entity_id, chain_id, address) -> str:
    """A customer is one node whatever wallet it used; an outside address is a node per chain."""
    return f"entity:{entity_id}" if entity_id else f"address:{chain_id}:{address}"


def _row_key(row: dict, side: str) -> str:
    entity, address = SIDES[side]
    return node_key(row.get(entity), row["chain_id"], row.get(address))


def counterparty_graph(*, organization, mode: str, entity: Entity, days: int = DEFAULT_DAYS, hops: int = 2,
                       limit: int = DEFAULT_LIMIT, highlight_transactions=None, now=None) -> dict:
    """The graph as a JSON-ready dict (monitoring.api.graph_serializers.CounterpartyGraphResponse).
    `highlight_transactions`: a queryset of the transfers to mark (an alert's or a case's)."""
    until = now or timezone.now()
    since = until - timedelta(days=days)
    transfers = Transaction.objects.filter(organization=organization, mode=mode, orphaned=False, timestamp__gte=since,
                                           timestamp__lte=until).order_by()
    subject = node_key(entity.pk, None, None)
    highlighted = _highlighted_edges(highlight_transactions)
    forced = {key for pair in highlighted for key in pair if key != subject}
    budget = limit if hops == 1 else max(limit - limit // 2, 1)
    edges, first, first_total = _first_hop(organization=organization, mode=mode, entity_id=entity.pk, subject=subject, since=since,
                                           until=until, budget=budget, forced=forced)
    kept = list(first)
    second, second_kept = {}, []
    if hops == 2 and kept:
        second_edges, second = _second_hop(transfers, entity.pk, set(kept))
        second_kept = _top(second, limit - len(kept), set())
        edges.update(second_edges)
    shown = {subject, *kept, *second_kept}
    all_edges = {pair: flow for pair, flow in edges.items() if pair[0] in shown and pair[1] in shown}
    chosen = _edge_cut(all_edges, subject, highlighted, EDGES_PER_NODE * limit)
    nodes = [_node(subject, 0, Flow(), highlighted), *(_node(key, 1, first[key], highlighted) for key in kept),
             *(_node(key, 2, second[key], highlighted) for key in second_kept)]
    _describe(nodes, organization=organization, mode=mode)
    return {
        "entity_id": str(entity.pk), "from_date": since, "to_date": until, "days": days, "hops": hops, "limit": limit,
        "nodes": nodes,
        "edges": [_edge(pair, all_edges[pair], pair in highlighted) for pair in chosen],
        "cut": {"ranked_by": "USD amount, then number of transfers", "counterparties_total": first_total,
                "counterparties_shown": len(kept), "second_hop_total": len(second), "second_hop_shown": len(second_kept),
                "edges_total": len(all_edges), "edges_shown": len(chosen),
                "truncated": len(kept) < first_total or len(second_kept) < len(second) or len(chosen) < len(all_edges)},
        "highlighted_transfers": sum(highlighted.values()),
    }


# Hop 1 in one statement: the entity's transfers, both directions, summed per counterparty (a customer,
# or an outside address on its chain), ranked and cut in SQL; COUNT(*) OVER () is the number before the cut.
# The highlighted counterparties (an alert's or case's) come first whatever their size.
FIRST_HOP_SQL = """
WITH sides AS (
  SELECT to_entity_id AS entity_id, CASE WHEN to_entity_id IS NULL THEN chain_id END AS chain_id,
         CASE WHEN to_entity_id IS NULL THEN to_address END AS address, 1 AS outgoing, usd_value
    FROM monitoring_transaction
   WHERE from_entity_id = %(entity)s AND organization_id = %(org)s AND mode = %(mode)s AND orphaned = %(no)s
     AND timestamp >= %(since)s AND timestamp <= %(until)s AND (to_entity_id IS NULL OR to_entity_id <> %(entity)s)
  UNION ALL
  SELECT from_entity_id, CASE WHEN from_entity_id IS NULL THEN chain_id END, CASE WHEN from_entity_id IS NULL THEN from_address END,
         0, usd_value
    FROM monitoring_transaction
   WHERE to_entity_id = %(entity)s AND organization_id = %(org)s AND mode = %(mode)s AND orphaned = %(no)s
     AND timestamp >= %(since)s AND timestamp <= %(until)s AND (from_entity_id IS NULL OR from_entity_id <> %(entity)s)
)
SELECT entity_id, chain_id, address,
       SUM(CASE WHEN outgoing = 1 THEN usd_value END), SUM(outgoing),
       SUM(CASE WHEN outgoing = 1 AND usd_value IS NULL THEN 1 ELSE 0 END),
       SUM(CASE WHEN outgoing = 0 THEN usd_value END), SUM(1 - outgoing),
       SUM(CASE WHEN outgoing = 0 AND usd_value IS NULL THEN 1 ELSE 0 END),
       COUNT(*) OVER ()
  FROM sides GROUP BY entity_id, chain_id, address
 ORDER BY CASE WHEN {forced} THEN 0 ELSE 1 END, COALESCE(SUM(usd_value), 0) DESC, COUNT(*) DESC, entity_id, chain_id, address
 LIMIT %(budget)s"""


def _first_hop(*, organization, mode: str, entity_id, subject: str, since, until, budget: int, forced: set[str]):
    """(edges, the kept counterparties' totals in rank order, how many counterparties there are)."""
    uuid_field = Transaction._meta.get_field("from_entity").target_field  # ids as the database stores them (hex on SQLite)
    as_stored = partial(uuid_field.get_db_prep_value, connection=connection)
    params = {"entity": as_stored(entity_id), "org": as_stored(organization.pk), "mode": mode, "no": False,
              "since": connection.ops.adapt_datetimefield_value(since),
              "until": connection.ops.adapt_datetimefield_value(until), "budget": max(budget, 0)}
    forced_entities = [as_stored(key.split(":", 1)[1]) for key in forced if key.startswith("entity:")]
    forced_addresses = [key.split(":", 2)[2] for key in forced if key.startswith("address:")]
    conditions = []
    for name, values in (("entity_id", forced_entities), ("address", forced_addresses)):
        for index, value in enumerate(values):
            params[f"{name}{index}"] = value
        if values:
            conditions.append(f"{name} IN ({', '.join(f'%({name}{index})s' for index in range(len(values)))})")
    with connection.cursor() as cursor:
        cursor.execute(FIRST_HOP_SQL.format(forced=" OR ".join(conditions) or "1 = 0"), params)
        rows = cursor.fetchall()
    edges: dict[tuple[str, str], Flow] = {}
    first: dict[str, Flow] = {}
    for entity, chain_id, address, *sums, _total in rows:
        key = node_key(UUID(str(entity)) if entity else None, chain_id, address)
        outgoing, incoming = Flow(_money(sums[0]), sums[1], sums[2]), Flow(_money(sums[3]), sums[4], sums[5])
        for pair, flow in (((subject, key), outgoing), ((key, subject), incoming)):
            if flow.transfers:
                edges[pair] = flow
        first[key] = Flow(outgoing.amount + incoming.amount, outgoing.transfers + incoming.transfers, outgoing.unpriced + incoming.unpriced)
    return edges, first, rows[0][-1] if rows else 0


def _money(value) -> Decimal:
    """A SUM of the USD column: a Decimal on PostgreSQL, a float or integer on SQLite."""
    return ZERO if value is None else Decimal(str(value)).quantize(ZERO)


def _second_hop(transfers, entity_id, first: set[str]) -> tuple[dict, dict]:
    """What the kept hop-1 counterparties moved with anyone but the entity: edges and hop-2 totals."""
    entity_ids = [key.split(":", 1)[1] for key in first if key.startswith("entity:")]
    addresses = {key.split(":", 2)[2] for key in first if key.startswith("address:")}
    touching = (Q(from_entity_id__in=entity_ids) | Q(to_entity_id__in=entity_ids) | Q(from_address__in=addresses)
                | Q(to_address__in=addresses))
    rows = (transfers.filter(touching).exclude(from_entity_id=entity_id).exclude(to_entity_id=entity_id)
            .values("from_entity_id", "from_address", "to_entity_id", "to_address", "chain_id").annotate(**TOTALS))
    edges: dict[tuple[str, str], Flow] = {}
    second: dict[str, Flow] = {}
    for row in rows:
        source, target = _row_key(row, "from"), _row_key(row, "to")
        if source == target or (source not in first and target not in first):
            continue  # an address of a hop-1 node on another chain, or a customer's own wallets
        edges.setdefault((source, target), Flow()).add(row)
        for key in (source, target):
            if key not in first:
                second.setdefault(key, Flow()).add(row)
    return edges, second


def _top(flows: dict[str, Flow], budget: int, forced: set[str]) -> list[str]:
    """The `budget` largest (the highlighted first, whatever their size), largest first."""
    ranked = sorted(flows, key=lambda key: (key not in forced, *flows[key].rank(), key))
    return ranked[:max(budget, 0)]


def _edge_cut(edges: dict, subject: str, highlighted: dict, budget: int) -> list[tuple[str, str]]:
    """Every edge of the entity itself (each shown node has one), then the largest others up to `budget`."""
    own = [pair for pair in edges if subject in pair]
    others = sorted((pair for pair in edges if subject not in pair), key=lambda pair: (pair not in highlighted, *edges[pair].rank(), pair))
    return sorted(own, key=lambda pair: (*edges[pair].rank(), pair)) + others[:max(budget - len(own), 0)]


def _highlighted_edges(transactions) -> dict[tuple[str, str], int]:
    """{(source, target): transfers of the alert or case on that edge}."""
    if transactions is None:
        return {}
    counts: dict[tuple[str, str], int] = {}
    for row in transactions.values("from_entity_id", "from_address", "to_entity_id", "to_address", "chain_id"):
        pair = (_row_key(row, "from"), _row_key(row, "to"))
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def _node(key: str, hop: int, flow: Flow, highlighted: dict) -> dict:
    kind, _, rest = key.partition(":")
    chain_id, address = rest.split(":", 1) if kind == "address" else (None, None)
    on_highlighted = hop > 0 and any(key in pair for pair in highlighted)
    return {"id": key, "kind": "subject" if hop == 0 else ("customer" if kind == "entity" else "address"), "hop": hop,
            "label": "", "entity_id": rest if kind == "entity" else None, "chain_id": int(chain_id) if chain_id else None,
            "address": address, "amount_usd": f"{flow.amount:.2f}", "transfer_count": flow.transfers,
            "status": None, "tags": [], "sanctioned": None, "open_alerts": 0, "highlighted": on_highlighted}


def _edge(pair: tuple[str, str], flow: Flow, highlighted: bool) -> dict:
    return {"source": pair[0], "target": pair[1], "amount_usd": f"{flow.amount:.2f}", "transfer_count": flow.transfers,
            "unpriced_count": flow.unpriced, "highlighted": highlighted}


def _describe(nodes: list[dict], *, organization, mode: str) -> None:
    """Names of customers and their open alerts; address tags and sanctions listings of outside addresses
    (the same lists, read the same way, as the rules: monitoring.engine.lists)."""
    customers = {node["entity_id"]: node for node in nodes if node["entity_id"]}
    for entity_id, name, status in Entity.objects.filter(organization=organization, mode=mode, pk__in=list(customers)).values_list(
            "pk", "legal_name", "status"):
        customers[str(entity_id)].update(label=name, status=status)
    open_alerts = (Alert.objects.filter(organization=organization, mode=mode, entity_id__in=list(customers))
                   .exclude(status=AlertStatus.CLOSED).order_by().values("entity_id").annotate(open=Count("id")))
    for row in open_alerts:
        customers[str(row["entity_id"])]["open_alerts"] = row["open"]
    outside = [node for node in nodes if node["address"] is not None]
    lists = batch_lists(organization, {node["address"] for node in outside})
    for node in outside:
        node["label"] = short_address(node["address"])
        node["tags"] = sorted(lists.tags_for(node["chain_id"], node["address"]))
        node["sanctioned"] = lists.sanctions_source(node["chain_id"], node["address"])


def short_address(address: str, *, head: int = 6, tail: int = 4) -> str:
    """0x5290…9ee7: enough to tell addresses apart on a page; the full one is in the title and copy button."""
    return address if len(address) <= head + tail + 1 else f"{address[:head]}…{address[-tail:]}"
