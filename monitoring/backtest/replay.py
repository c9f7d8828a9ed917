"""The stored history of a range, prepared once and evaluated under several settings.

A replay used to run the live path (monitoring.engine.runner.evaluate_batch) once per chunk of
1,000 events and once per variant: every chunk re-read each involved entity's look-back, and every
candidate read it again. Here the whole range is one batch for the same loader
(monitoring.engine.loading.BatchLoader, every transfer as a row): each entity's context is built
once, and each of its events is turned once into the rules' input (the windows a rule asks for are
cached on it); then every variant's rules run on that input. A rule is a pure function of its
input and parameters, so each variant gets what its own replay would have given.

What the loader reads that depends on parameters (the look-back, and the rules whose parameters
change what is read: loading.PARAMETERS_READ) is taken as the widest of the variants, or the
variants are prepared apart when those rules' parameters differ.
"""

import re
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction

from common.errors import ValidationFailed
from common.pg import on_postgres, pg_rows
from common.principal import Principal
from monitoring.engine.gcpause import gc_paused
from monitoring.engine.lists import batch_lists
from monitoring.engine.loading import PARAMETERS_READ, Batch, BatchLoader
from monitoring.engine.reads import FIAT_COLUMNS, TX_COLUMNS, _select
from monitoring.models import FiatEvent, Transaction
from monitoring.rules import EngineSettings
from monitoring.rules.context import Skip, micros

MAX_EVENTS = 200_000
_FIGURES = re.compile(r"\d+(?:[.,]\d+)*")


def skip_reason_kind(reason: str) -> str:
    """A skip's reason with its figures as N, so that skips of one kind count together."""
    return _FIGURES.sub("N", reason)


@dataclass
class Tally:
    """What one variant would have raised for one entity: one alert (hits dedupe into it, as no
    disposition closes it during a replay) and its hits."""

    hits: int = 0
    first_at: datetime | None = None
    last_at: datetime | None = None

    def add(self, at: datetime) -> None:
        self.hits += 1
        self.first_at = at if self.first_at is None else min(self.first_at, at)
        self.last_at = at if self.last_at is None else max(self.last_at, at)

    def as_dict(self) -> dict:
        return {"alerts": 1 if self.hits else 0, "hits": self.hits, "first_triggered_at": self.first_at,
                "last_triggered_at": self.last_at}


@dataclass
class Outcomes:
    """One variant's replay: per entity what it raised, and how many evaluations were skipped, by reason
    (the reason with its figures as N: a hub above the degree bound, a search stopped at its budget, no price)."""

    tallies: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    skipped: int = 0
    skipped_by_reason: Counter = field(default_factory=Counter)


# The range's transfers in one statement, binary (PostgreSQL): a backtest reads up to MAX_EVENTS of them.
RANGE_TX_SQL = f"""SELECT {_select(TX_COLUMNS)} FROM monitoring_transaction WHERE organization_id = %(org)s AND mode = %(mode)s
AND timestamp >= %(start)s AND timestamp <= %(end)s AND NOT orphaned"""


def range_batch(principal: Principal, start: datetime, end: datetime) -> Batch:
    """The range's stored transfers (not orphaned by a reorganisation) and fiat events, as one batch
    (TX_COLUMNS / FIAT_COLUMNS tuples, ids as text, as the live path makes them from records)."""
    scope = {"organization": principal.organization, "mode": principal.mode, "timestamp__gte": start, "timestamp__lte": end}
    transfers = Transaction.objects.filter(**scope, orphaned=False)
    fiat = FiatEvent.objects.filter(**scope)
    count = transfers.count() + fiat.count()
    if count > MAX_EVENTS:
        raise ValidationFailed.for_field("to_date", f"The range holds {count} events; a backtest replays at most {MAX_EVENTS}.")
    if on_postgres():
        tx_rows = pg_rows(RANGE_TX_SQL, {"org": principal.organization.pk, "mode": principal.mode, "start": start, "end": end})
    else:
        tx_rows = [(str(row[0]), *row[1:9], _text(row[9]), _text(row[10])) for row in transfers.values_list(*TX_COLUMNS)]
    fiat_rows = [(str(row[0]), str(row[1]), *row[2:]) for row in fiat.values_list(*FIAT_COLUMNS)]
    return Batch(tx_rows=tx_rows, fiat_rows=fiat_rows)


def _text(value) -> str | None:
    return None if value is None else str(value)


def _preparation_key(settings: EngineSettings) -> tuple:
    """What, beyond the look-back, makes the loader read differently for these settings."""
    return tuple(sorted((active.rule.code, tuple(sorted(active.params.items(), key=str)))
                        for active in settings.active if active.rule.code in PARAMETERS_READ))


def replay(principal: Principal, batch: Batch, variants: list[EngineSettings], start: datetime, end: datetime) -> list[Outcomes]:
    """Each variant's outcomes over the batch (the range [start, end]), the history prepared once per preparation key."""
    outcomes = [Outcomes() for _ in variants]
    if not batch.tx_rows and not batch.fiat_rows:
        return outcomes
    groups: dict[tuple, list[int]] = defaultdict(list)
    for index, settings in enumerate(variants):
        groups[_preparation_key(settings)].append(index)
    replayed = {row[0] for row in batch.tx_rows} | {row[0] for row in batch.fiat_rows}
    for indexes in groups.values():
        chosen = [variants[index] for index in indexes]
        with gc_paused(), transaction.atomic(savepoint=False):
            contexts = _contexts(principal, batch, chosen)
            _evaluate(contexts, replayed, micros(start), micros(end), chosen, [outcomes[index] for index in indexes])
    return outcomes


def _contexts(principal: Principal, batch: Batch, variants: list[EngineSettings]) -> dict:
    """The entities' contexts, every transfer of the widest look-back as a row."""
    widest = max(variants, key=lambda settings: settings.lookback().transactions)
    loader = BatchLoader(organization=principal.organization, mode=principal.mode, settings=widest,
                         lists=batch_lists(principal.organization, batch.counterparty_addresses), whole_span=True)
    lookbacks = [settings.lookback() for settings in variants]
    loader.lookback = type(loader.lookback)(transactions=max(lb.transactions for lb in lookbacks), fiat=max(lb.fiat for lb in lookbacks))
    return loader.contexts(batch)


def _range_events(context, replayed: set[str], start_us: int, end_us: int) -> list:
    """The entity's events of the range, in (time, id) order, as its history holds them: the objects
    the rules' windows return are the evaluated events themselves (made once, from the columns)."""
    history = context.history
    transfers, at = history.transactions, history.transactions.at
    events = [(at[i], transfers.ids[i], 0, i) for i in range(bisect_left(at, start_us), bisect_right(at, end_us))
              if transfers.ids[i] in replayed]
    fiat_at = [micros(event.timestamp) for event in history.fiat_events]
    events += [(fiat_at[i], event.id, 1, i) for i, event in enumerate(history.fiat_events)
               if start_us <= fiat_at[i] <= end_us and event.id in replayed]
    events.sort()
    return [transfers[i] if kind == 0 else history.fiat_events[i] for _, _, kind, i in events]


def _evaluate(contexts: dict, replayed: set[str], start_us: int, end_us: int, variants: list[EngineSettings],
              outcomes: list[Outcomes]) -> None:
    """The engine's evaluate (monitoring.rules.engine.evaluate), with one input per event shared by the variants."""
    for entity_id, context in contexts.items():
        for event in _range_events(context, replayed, start_us, end_us):
            rules = [(variant.rules_for(event.kind), found) for variant, found in zip(variants, outcomes, strict=True)]
            if not any(active for active, _ in rules):
                continue
            inp = context.input_for(event)
            for active_rules, found in rules:
                for active in active_rules:
                    outcome = active.check(inp, active.params)
                    if outcome is None:
                        continue
                    if isinstance(outcome, Skip):
                        found.skipped += 1
                        found.skipped_by_reason[skip_reason_kind(outcome.reason)] += 1
                    else:
                        found.tallies[entity_id].add(event.timestamp)
