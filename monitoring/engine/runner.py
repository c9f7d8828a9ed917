"""Evaluating stored events: the same path for live ingestion, `run_monitoring` and replays.

Each involved entity's context is built once per batch (monitoring.engine.loading); the entity's
events of the batch are evaluated in time order (ties in ingestion order: ids are time-ordered);
hits become alerts (monitoring.alerts.services), skips are written on the event's evaluation record.
"""

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction

from common.pg import serial_plans
from monitoring.choices import EARLIEST_EVENT
from monitoring.engine.events import fiat_row, rule_fiat, rule_transaction, tx_row
from monitoring.engine.gcpause import gc_paused
from monitoring.engine.lists import batch_lists
from monitoring.engine.loading import Batch, BatchLoader
from monitoring.engine.marking import mark_monitored
from monitoring.engine.settings import batch_settings
from monitoring.models import FiatEvent, Transaction
from monitoring.rules import EngineSettings, RuleResult, evaluate
from monitoring.rules.context import HistoryChanged


@dataclass
class Evaluation:
    hits: list[RuleResult] = field(default_factory=list)
    skips: dict[str, list[dict]] = field(default_factory=lambda: defaultdict(list))


def _events_by_entity(batch: Batch) -> dict[str, list]:
    """{entity: [(timestamp, id, rule event)]}: a transfer between two customers is evaluated for each."""
    events = defaultdict(list)
    for row in batch.tx_rows:
        for entity_id in {row[9], row[10]} - {None}:
            events[entity_id].append((row[1], row[0], rule_transaction(row, entity_id)))
    for row in batch.fiat_rows:
        events[row[1]].append((row[2], row[0], rule_fiat(row)))
    return events


def evaluate_batch(*, organization, mode: str, transactions=(), fiat_events=(), settings: EngineSettings | None = None,
                   wallets: list[tuple] | None = None) -> Evaluation:
    """Evaluate the given stored events (creating nothing). `wallets`: the registered wallets among
    the transfers' addresses, as reads.registered_wallets gives them, when the caller has just read
    them (ingestion); else they are read."""
    settings = settings or batch_settings(organization)
    with gc_paused(), transaction.atomic(savepoint=False):
        serial_plans()
        try:
            return _evaluate(organization, mode, transactions, fiat_events, settings, wallets)
        except HistoryChanged:
            # A transfer was stored between the sums of an entity's older transfers and the read of
            # those transfers: evaluate the batch again from one read of the whole span, as rows.
            return _evaluate(organization, mode, transactions, fiat_events, settings, wallets, whole_span=True)


def _evaluate(organization, mode: str, transactions, fiat_events, settings: EngineSettings, wallets: list[tuple] | None,
              whole_span: bool = False) -> Evaluation:
    batch = Batch(tx_rows=[tx_row(tx) for tx in transactions], fiat_rows=[fiat_row(event) for event in fiat_events])
    by_entity = _events_by_entity(batch)
    evaluation = Evaluation()
    if not by_entity:
        return evaluation
    lists = batch_lists(organization, batch.counterparty_addresses)
    loader = BatchLoader(organization=organization, mode=mode, settings=settings, lists=lists, whole_span=whole_span)
    contexts = loader.contexts(batch, wallets)
    for entity_id, events in by_entity.items():
        context = contexts[entity_id]
        for _, _, event in sorted(events, key=lambda item: (item[0], item[1])):
            for result in evaluate(event, context, settings):
                if result.is_hit:
                    evaluation.hits.append(result)
                else:
                    evaluation.skips[result.event_id].append({"rule": result.rule_code, "entity_id": entity_id,
                                                              "reason": result.reason})
    return evaluation


def monitor(*, organization, mode: str, transactions=(), fiat_events=(), wallets: list[tuple] | None = None) -> int:
    """Evaluate stored events, open or extend alerts, mark the events monitored. Returns the number
    of distinct alerts the hits opened or extended."""
    from monitoring.alerts.services import alerts_record

    settings = batch_settings(organization)
    evaluation = evaluate_batch(organization=organization, mode=mode, transactions=transactions, fiat_events=fiat_events,
                                settings=settings, wallets=wallets)
    hits, shadowed = evaluation.hits, {}
    if settings.shadow:  # rules in shadow mode: their hits are written on the events, no alert is opened
        hits = [hit for hit in evaluation.hits if hit.rule_code not in settings.shadow]
        shadowed = shadow_records(hit for hit in evaluation.hits if hit.rule_code in settings.shadow)
    event_times = {str(record.pk): record.timestamp for records in (transactions, fiat_events) for record in records}
    touched = alerts_record(organization=organization, mode=mode, hits=hits, event_times=event_times)
    mark_monitored(transactions, fiat_events, evaluation.skips, shadowed)
    return len(touched)


def shadow_records(hits) -> dict[str, list[dict]]:
    """{event id: [{"rule", "entity_id", "measured"}]}: what shadowed rules would have raised on each event."""
    found = defaultdict(list)
    for hit in hits:
        found[hit.event_id].append({"rule": hit.rule_code, "entity_id": hit.entity_id, "measured": hit.evidence["measured"]})
    return found


UNMONITORED_CHUNK = 1000


def unmonitored_filters(*, organization, mode: str, since: datetime | None = None) -> dict:
    """The stored events of (organization, mode) not evaluated yet (a backfill), at or after `since`
    (never before 1970: such times cannot be evaluated, the rules' windows would start before year 1)."""
    return {"organization": organization, "mode": mode, "monitored": False,
            "timestamp__gte": max(since, EARLIEST_EVENT) if since is not None else EARLIEST_EVENT}


def monitor_unmonitored(*, organization, mode: str, since: datetime | None = None,
                        chunk: int = UNMONITORED_CHUNK) -> Iterator[tuple[int, int]]:
    """Evaluate the stored events not monitored yet (`unmonitored_filters`) in (timestamp, id) order,
    both kinds merged, `chunk` events at a time, through `monitor`: the path live ingestion takes, so
    the alerts are those live ingestion in time order would have opened. Yields (events evaluated,
    alerts opened or extended) per chunk."""
    filters = unmonitored_filters(organization=organization, mode=mode, since=since)
    while True:
        transactions = list(Transaction.objects.filter(**filters).order_by("timestamp", "id")[:chunk])
        fiat_events = list(FiatEvent.objects.filter(**filters).order_by("timestamp", "id")[:chunk])
        merged = sorted([*transactions, *fiat_events], key=lambda event: (event.timestamp, event.pk))[:chunk]
        if not merged:
            return
        transactions = [event for event in merged if isinstance(event, Transaction)]
        fiat_events = [event for event in merged if isinstance(event, FiatEvent)]
        yield len(merged), monitor(organization=organization, mode=mode, transactions=transactions, fiat_events=fiat_events)
