"""Evaluating stored events: the same path for live ingestion, `run_monitoring` and replays.

Each involved entity's context is built once per batch (monitoring.engine.loading); the entity's
events of the batch are evaluated in time order (ties in ingestion order: ids are time-ordered);
hits become alerts (monitoring.alerts.services), skips are written on the event's evaluation record.
"""

import json
from collections import defaultdict
from dataclasses import dataclass, field

from monitoring.configuration.selectors import engine_settings, org_lists
from monitoring.engine.loading import BatchLoader, rule_fiat, rule_transaction
from monitoring.models import FiatEvent, Transaction
from monitoring.rules import EngineSettings, RuleResult, evaluate

TX_ROW_FIELDS = ("id", "timestamp", "chain_id", "tx_hash", "from_address", "to_address", "amount", "asset", "usd_value",
                 "from_entity_id", "to_entity_id")


@dataclass
class Evaluation:
    hits: list[RuleResult] = field(default_factory=list)
    skips: dict[str, list[dict]] = field(default_factory=lambda: defaultdict(list))


def _tx_row(tx: Transaction) -> dict:
    from decimal import Decimal

    row = {name: getattr(tx, name) for name in TX_ROW_FIELDS}
    row["amount_decimal"] = Decimal(tx.amount)
    return row


def _fiat_row(event: FiatEvent) -> dict:
    return {name: getattr(event, name) for name in (
        "id", "entity_id", "timestamp", "event_type", "amount", "currency", "usd_value", "counterparty_name", "counterparty_bank",
        "card_type", "merchant_category_code", "merchant_country", "check_type", "check_number", "deposit_method")}


def _events_by_entity(transactions, fiat_events) -> dict:
    events = defaultdict(list)
    for tx in transactions:
        row = _tx_row(tx)
        for entity_id in {tx.from_entity_id, tx.to_entity_id} - {None}:
            events[entity_id].append((tx.timestamp, tx.pk, rule_transaction(row, entity_id)))
    for event in fiat_events:
        events[event.entity_id].append((event.timestamp, event.pk, rule_fiat(_fiat_row(event))))
    return events


def evaluate_batch(*, organization, mode: str, transactions=(), fiat_events=(), settings: EngineSettings | None = None) -> Evaluation:
    """Evaluate the given stored events (creating nothing)."""
    settings = settings or engine_settings(organization)
    by_entity = _events_by_entity(transactions, fiat_events)
    evaluation = Evaluation()
    if not by_entity:
        return evaluation
    times = [at for events in by_entity.values() for at, _, _ in events]
    loader = BatchLoader(organization=organization, mode=mode, settings=settings, lists=org_lists(organization))
    contexts = loader.contexts(set(by_entity), min(times), max(times))
    for entity_id, events in by_entity.items():
        context = contexts[entity_id]
        for _, _, event in sorted(events, key=lambda item: (item[0], item[1])):
            for result in evaluate(event, context, settings):
                if result.is_hit:
                    evaluation.hits.append(result)
                else:
                    evaluation.skips[result.event_id].append({"rule": result.rule_code, "entity_id": str(entity_id),
                                                              "reason": result.reason})
    return evaluation


def monitor(*, organization, mode: str, transactions=(), fiat_events=()) -> int:
    """Evaluate stored events, open or extend alerts, mark the events monitored. Returns the number
    of distinct alerts the hits opened or extended."""
    from monitoring.alerts.services import alerts_record

    evaluation = evaluate_batch(organization=organization, mode=mode, transactions=transactions, fiat_events=fiat_events)
    event_times = {str(record.pk): record.timestamp for records in (transactions, fiat_events) for record in records}
    touched = alerts_record(organization=organization, mode=mode, hits=evaluation.hits, event_times=event_times)
    for model, records in ((Transaction, transactions), (FiatEvent, fiat_events)):
        _mark_monitored(model, records, evaluation.skips)
    return len(touched)


def _mark_monitored(model, records, skips: dict[str, list[dict]]) -> None:
    """monitored = true on every record, and the evaluation record (rules skipped and why) where
    there is one: one UPDATE, plus one per distinct record (skips repeat: "no USD price for X")."""
    if not records:
        return
    model.objects.filter(pk__in=[record.pk for record in records]).update(monitored=True)
    by_content: dict[str, list] = defaultdict(list)
    for record in records:
        record.monitored = True
        if skips.get(str(record.pk)):
            record.evaluation = {"skipped": skips[str(record.pk)]}
            by_content[json.dumps(record.evaluation, sort_keys=True)].append(record.pk)
    for content, ids in by_content.items():
        model.objects.filter(pk__in=ids).update(evaluation=json.loads(content))
