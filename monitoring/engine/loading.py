"""Building the pure engine's context (monitoring.rules) from the database, once per batch.

A fixed number of queries per batch, whatever its size (monitoring.engine.reads), and one more for
each entity whose rules ask for its transfers before the rows (EntityHistory.load_earlier): the
entities, their history over the engine's look-back (rows for the short windows, sums before
them), the facts that reach further back (latest activity before the span; for rule 14, whether
the counterparties it could call fresh were dealt with before the rows), and the organization's
network as the batch's events need it (registered and flagged wallets among the batch's addresses,
the customers on the other side, the part of the transfer graph a cycle search can reach).
Nothing is kept between batches: every batch reads what it needs, so a change committed by any
process applies to the next batch.
"""

from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from operator import itemgetter

from monitoring.choices import Disposition
from monitoring.engine import reads
from monitoring.engine.events import rule_fiat, rule_transaction, transfers_by_entity
from monitoring.engine.peers import peer_group_stats
from monitoring.models import Alert
from monitoring.rules import (
    CounterpartyEntity,
    EngineSettings,
    Entity,
    EntityContext,
    EntityHistory,
    OrgLists,
    OrgNetwork,
    PeerGroupStats,
    TransferGraph,
)
from monitoring.rules.context import EPOCH, ONE_MICROSECOND, FarVolume, micros
from onboarding.models import Entity as EntityRow


@dataclass
class Batch:
    """What a batch's events are, in the shapes the loader needs: TX_COLUMNS / FIAT_COLUMNS tuples."""

    tx_rows: list[tuple] = field(default_factory=list)
    fiat_rows: list[tuple] = field(default_factory=list)

    @property
    def entity_ids(self) -> set[str]:
        ids = {side for row in self.tx_rows for side in (row[9], row[10]) if side}
        return ids | {row[1] for row in self.fiat_rows}

    @property
    def counterparty_addresses(self) -> set[str]:
        """The addresses on the other side of an evaluated transfer (both for a transfer between customers)."""
        found = set()
        for row in self.tx_rows:
            if row[9]:
                found.add(row[5])
            if row[10]:
                found.add(row[4])
        return found

    @property
    def address_keys(self) -> set[tuple[int, str]]:
        return {(row[2], address) for row in self.tx_rows for address in (row[4], row[5])}

    def span(self) -> tuple[datetime, datetime]:
        times = [row[1] for row in self.tx_rows] + [row[2] for row in self.fiat_rows]
        return min(times), max(times)


# The rules whose parameters change what the loader reads (beyond the look-back): a backtest
# prepares one history for candidates that agree on these (monitoring.backtest.replay).
PARAMETERS_READ = frozenset({"peel_chain", "cyclic_flow", "layering_chain", "scatter_gather", "peer_group_outlier"})


def _active_params(settings: EngineSettings, code: str) -> dict | None:
    assert code in PARAMETERS_READ, f"{code} changes what is loaded: list it in PARAMETERS_READ"
    return next((active.params for active in settings.active if active.rule.code == code), None)


class BatchLoader:
    """Loads everything the engine needs for the entities of one batch."""

    def __init__(self, *, organization, mode: str, settings: EngineSettings, lists: OrgLists, whole_span: bool = False):
        """`whole_span`: every transfer of the look-back as rows, none as sums."""
        self.organization, self.mode, self.settings, self.lists = organization, mode, settings, lists
        self.lookback, self.whole_span = settings.lookback(), whole_span

    def contexts(self, batch: Batch, wallets: list[tuple] | None = None) -> dict[str, EntityContext]:
        """`wallets`: the registered wallets among (at least) the batch's addresses, when the caller has them."""
        start, end = batch.span()
        rows = reads.entities(batch.entity_ids)
        histories = self._histories(batch.entity_ids, start, end)
        keys = batch.address_keys
        if wallets is None:
            wallets = reads.registered_wallets(self.organization, self.mode, keys)
        else:
            wallets = [row for row in wallets if (row[0], row[1]) in keys]
        network, own_wallets = self._network(batch, wallets, start, end, histories), self._own_wallets(wallets)
        peers = self._peer_groups(rows, end)
        contexts = {}
        for row in rows:
            own = own_wallets.get(row[0], {})
            contexts[row[0]] = EntityContext(entity=self._entity(row, peers.get(row[0])), history=histories[row[0]],
                                             own_wallets=frozenset(own), wallet_first_seen=own, lists=self.lists, network=network)
        return contexts

    def _peer_groups(self, rows: list[tuple], end: datetime) -> dict:
        """Rule 30's peer-group statistics for the batch's entities (monitoring.engine.peers); none when it is off."""
        params = _active_params(self.settings, "peer_group_outlier")
        if params is None:
            return {}
        return peer_group_stats(self.organization, self.mode, rows, end, window_days=params["window_days"])

    def _histories(self, entity_ids: set[str], start: datetime, end: datetime) -> dict[str, EntityHistory]:
        """Each entity's history over the look-back before the batch and through it: the transfers as
        rows as far back as the rules' short windows reach, and before that as sums (split_at)."""
        tx_start, fiat_start = start - self.lookback.transactions, start - self.lookback.fiat
        split_at = tx_start if self.whole_span else max(start - self.settings.row_reach(), tx_start)
        tx_of = transfers_by_entity(reads.transactions(self.organization, self.mode, entity_ids, split_at, end), entity_ids)
        fiat_of: dict[str, list] = {entity: [] for entity in entity_ids}
        for row in reads.fiat_events(entity_ids, fiat_start, end):
            fiat_of[row[1]].append(rule_fiat(row))
        before = reads.activity_before(entity_ids, tx_start, fiat_start)

        if split_at == tx_start:
            # first_activity_at is left to the engine's default (the latest activity before the span
            # when there is some, else the first loaded event): rule 18, its only reader, caps the
            # history it needs at its baseline, which the span covers (lookback() includes rule 18's
            # reach), so an entity active before the span reads the full baseline either way.
            histories = {entity_id: EntityHistory(tx_of[entity_id], fiat_of[entity_id], earlier_activity_at=before.get(entity_id))
                         for entity_id in entity_ids}
        else:
            groups = reads.transaction_volume_groups(self.organization, self.mode, entity_ids, tx_start, split_at,
                                                     self._volume_bands(start, end, split_at))
            histories = {entity_id: self._split_history(entity_id, tx_of[entity_id], fiat_of[entity_id], before.get(entity_id),
                                                        FarVolume(groups.get(entity_id, ())), tx_start, split_at)
                         for entity_id in entity_ids}
        for entity_id, known in self._known_counterparties(histories, start, split_at).items():
            histories[entity_id] = histories[entity_id].knowing(known)
        return histories

    def _volume_bands(self, start: datetime, end: datetime, split_at: datetime) -> list[tuple[datetime, datetime]]:
        """Where the windows of the batch's events that reach before split_at can begin: those
        transfers are summed each at its own time, so that every such window's volume is exact."""
        return [(start - width, end - width) for width in self.settings.volume_widths() if start - width < split_at]

    def _split_history(self, entity_id: str, near, fiat: list, before: datetime | None, far: FarVolume, tx_start: datetime,
                       split_at: datetime) -> EntityHistory:
        """The history of rows from split_at on, the older transfers as sums; what is told about the
        time before the rows (latest activity, first activity) is what the whole span would tell."""
        latest = [moment for moment in (before, EPOCH + far.last_us * ONE_MICROSECOND if len(far) else None) if moment]
        firsts = [moment for moment in (far.first_us, near.at[0] if len(near) else None) if moment is not None]
        firsts += [micros(event.timestamp) for event in fiat[:1]]
        first = before or (EPOCH + min(firsts) * ONE_MICROSECOND if firsts else None)
        organization, mode, until = self.organization, self.mode, split_at - ONE_MICROSECOND

        def earlier_rows():
            return transfers_by_entity(reads.transactions(organization, mode, {entity_id}, tx_start, until), {entity_id})[entity_id]

        return EntityHistory(near, fiat, earlier_activity_at=max(latest, default=None), first_activity_at=first, rows_from=split_at,
                             far=far, earlier_rows=earlier_rows if len(far) else None)

    @staticmethod
    def _entity(row: tuple, peer_group: PeerGroupStats | None = None) -> Entity:
        entity_id, status, jurisdiction, entity_type, created_at, expected_volume = row
        return Entity(id=entity_id, status=status, jurisdiction=jurisdiction, entity_type=entity_type, created_at=created_at,
                      onboarded_at=created_at, expected_monthly_volume_usd=expected_volume, peer_group=peer_group)

    @staticmethod
    def _own_wallets(wallets: list[tuple]) -> dict[str, dict]:
        """{entity: {(chain_id, address): first seen}} for the entities' wallets among the batch's
        addresses, first seen being the earlier of registration and first transfer. The rules ask
        about the evaluated transfer's own addresses only (rules 9 and 15), so the entities' other
        wallets need not be read."""
        result: dict[str, dict] = {}
        for chain_id, address, entity_id, _, created_at, first_seen in wallets:
            result.setdefault(entity_id, {})[(chain_id, address)] = min(created_at, first_seen) if first_seen else created_at
        return result

    def _known_counterparties(self, histories: dict[str, EntityHistory], start: datetime, rows_from: datetime) -> dict[str, set]:
        """Rule 14's "previously unseen" needs storage only for the counterparties it could call
        fresh: outflows inside its window before the batch (or in it) that the loaded rows show as a
        first contact. Which of those the entity dealt with before the rows is read (those histories
        are then told of them); the rest of the entity's past cannot change a result. Nor can it for
        an entity with fewer such priced outflows than the rule's chain needs: there it only tells an
        unpriced outflow's skip from silence, so only those are asked about (the batch's events are among
        the loaded rows: ingestion stores them first). Nothing when rule 14 is off."""
        params = _active_params(self.settings, "peel_chain")
        if params is None:
            return {}
        cutoff = micros(start - timedelta(hours=params["window_hours"]))
        candidates = set()
        for entity_id, history in histories.items():
            transfers = history.transactions
            ids, directions, keys, usd = transfers.ids, transfers.directions, transfers.keys, transfers.usd
            outflows = [i for i in range(bisect_left(transfers.at, cutoff), len(transfers)) if directions[i] == "out"]
            if not outflows:
                continue  # (the first contacts are then not worked out for nothing)
            first = history.first_contacts()
            fresh = [i for i in outflows if ids[i] in first]
            chain_possible = sum(usd[i] is not None for i in fresh) >= params["min_count"]
            candidates.update((entity_id, *keys[i]) for i in fresh if chain_possible or usd[i] is None)
        known: dict[str, set] = {}
        for entity_id, chain_id, address in reads.known_counterparties(candidates, rows_from):
            known.setdefault(entity_id, set()).add((chain_id, address))
        return known

    def _network(self, batch: Batch, wallets: list[tuple], start: datetime, end: datetime,
                 histories: dict[str, EntityHistory]) -> OrgNetwork:
        """What the rules ask of the network, for the batch's events: the registered and flagged
        wallets among their addresses, the customers on their other side, and (rules 15, 51, 53) the
        part of the transfer graph their searches can reach."""
        registered = {(row[0], row[1]): row[2] for row in wallets}
        flagged = frozenset((row[0], row[1]) for row in wallets if row[3])
        return OrgNetwork(registered_wallets=registered, entities=self._counterparty_entities(self._counterparts(batch, registered)),
                          flagged_wallets=flagged, transfers=self._transfer_graph(batch, registered, start, end, histories))

    @staticmethod
    def _counterparts(batch: Batch, registered: dict) -> set[str]:
        """The customers on the other side of the batch's transfers, as the rules find them: the
        stored side when both sides are customers, else the owner of the other side's address."""
        found = set()
        for row in batch.tx_rows:
            chain_id, from_address, to_address, from_entity, to_entity = row[2], row[4], row[5], row[9], row[10]
            if from_entity and to_entity:
                found.update((from_entity, to_entity))
                continue
            other = (chain_id, to_address) if from_entity else (chain_id, from_address)
            if other in registered:
                found.add(registered[other])
        return found

    @staticmethod
    def _counterparty_entities(entity_ids: set[str]) -> dict[str, CounterpartyEntity]:
        if not entity_ids:
            return {}
        findings: dict[str, list] = {}
        for entity_id, at in Alert.objects.filter(entity_id__in=entity_ids, disposition=Disposition.TRUE_POSITIVE).values_list(
                "entity_id", "disposed_at"):
            findings.setdefault(str(entity_id), []).append(at)
        rows = EntityRow.objects.filter(pk__in=entity_ids).values_list("pk", "jurisdiction", "status")
        return {str(pk): CounterpartyEntity(id=str(pk), jurisdiction=jurisdiction, status=status,
                                            adverse_findings_at=tuple(sorted(findings.get(str(pk), ()))))
                for pk, jurisdiction, status in rows}

    def _graph_reach(self) -> tuple[timedelta, int]:
        """How far back and how many wallets deep the backward searches of rules 15 and 53 go."""
        reach, depth = timedelta(0), 0
        if cycles := _active_params(self.settings, "cyclic_flow"):
            reach, depth = timedelta(days=cycles["window_days"]), cycles["max_hops"] - 1
        if chains := _active_params(self.settings, "layering_chain"):
            reach = max(reach, timedelta(hours=chains["max_gap_hours"] * (chains["min_hops"] - 1)))
            depth = max(depth, chains["min_hops"] - 1)
        return reach, depth

    def _transfer_graph(self, batch: Batch, registered: dict, start: datetime, end: datetime,
                        histories: dict[str, EntityHistory]) -> TransferGraph:
        """Rules 15 and 53 search backwards from a transfer whose sender is a known wallet, through
        transfers between customers into each wallet they reach, at most depth wallets deep. Those
        wallets' arrivals over the rules' reach are read level by level: every list a search asks for
        is complete, so it finds (and counts towards its budget) exactly what it would in the whole
        graph. Rule 51 reads one level: the arrivals into the customers that paid a receiving entity
        within its window (unless more senders than its degree bound paid it: the rule skips those).
        Nothing is read when no transfer can start a search."""
        reach, depth = self._graph_reach()
        edges: dict = {}
        if depth:
            frontier = {(row[2], row[4]) for row in batch.tx_rows
                        if row[4] != row[5] and row[8] is not None and (row[9] or (row[10] and (row[2], row[4]) in registered))}
            since, visited = start - reach, set()
            for _ in range(depth):
                frontier -= visited
                if not frontier:
                    break
                visited |= frontier
                level = reads.arrivals(self.organization, self.mode, frontier, since, end)
                edges.update((row[0], row) for row in level)
                frontier = {(row[2], row[4]) for row in level}
        if gather := _active_params(self.settings, "scatter_gather"):
            since = start - timedelta(hours=gather["window_hours"])
            payers = self._payers(batch, histories, since, gather["max_senders"])
            edges.update((row[0], row) for row in reads.arrivals(self.organization, self.mode, payers, since, end))
        # In (timestamp, id) order, as the whole graph was read: equal times keep ingestion order.
        return TransferGraph(rule_transaction(row, row[9]) for row in sorted(edges.values(), key=itemgetter(1, 0)))

    @staticmethod
    def _payers(batch: Batch, histories: dict[str, EntityHistory], since: datetime, max_senders: int) -> set[tuple[int, str]]:
        """The senders into the batch's receiving entities since `since` (their loaded rows), for the
        entities paid by at most max_senders of them; only customers' wallets have arrivals in the graph."""
        receivers = {row[10] for row in batch.tx_rows if row[10] and row[9] and row[9] != row[10]}
        cutoff, payers = micros(since), set()
        for entity_id in receivers:
            transfers = histories[entity_id].transactions
            first = bisect_left(transfers.at, cutoff)
            senders = {transfers.keys[i] for i in range(first, len(transfers)) if transfers.directions[i] == "in"}
            if len(senders) <= max_senders:
                payers |= senders
        return payers
