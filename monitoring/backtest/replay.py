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

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace

from django.db import transaction

from common.errors import ValidationFailed
from common.principal import Principal
from monitoring.engine.events import fiat_row, tx_row
from monitoring.engine.gcpause import gc_paused
from monitoring.engine.lists import batch_lists
from monitoring.engine.loading import PARAMETERS_READ, Batch, BatchLoader
from monitoring.engine.reads import FIAT_COLUMNS, TX_COLUMNS
from monitoring.engine.runner import events_by_entity
from monitoring.models import FiatEvent, Transaction
from monitoring.rules import EngineSettings
from monitoring.rules.context import Skip

MAX_EVENTS = 200_000


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
    """One variant's replay: per entity what it raised, and how many evaluations were skipped."""

    tallies: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    skipped: int = 0


def range_batch(principal: Principal, start: datetime, end: datetime) -> Batch:
    """The range's stored transfers (not orphaned by a reorganisation) and fiat events, as one batch."""
    scope = {"organization": principal.organization, "mode": principal.mode, "timestamp__gte": start, "timestamp__lte": end}
    transfers = Transaction.objects.filter(**scope, orphaned=False)
    fiat = FiatEvent.objects.filter(**scope)
    count = transfers.count() + fiat.count()
    if count > MAX_EVENTS:
        raise ValidationFailed.for_field("to_date", f"The range holds {count} events; a backtest replays at most {MAX_EVENTS}.")
    tx_rows = [_as_row(tx_row, TX_COLUMNS, row) for row in transfers.order_by("timestamp", "id").values_list(*TX_COLUMNS)]
    fiat_rows = [_as_row(fiat_row, FIAT_COLUMNS, row) for row in fiat.order_by("timestamp", "id").values_list(*FIAT_COLUMNS)]
    return Batch(tx_rows=tx_rows, fiat_rows=fiat_rows)


def _as_row(convert, columns: tuple[str, ...], values: tuple) -> tuple:
    """A values_list row as the live path's conversion makes it from a record (ids as text)."""
    return convert(SimpleNamespace(**dict(zip(columns, values, strict=True))))


def _preparation_key(settings: EngineSettings) -> tuple:
    """What, beyond the look-back, makes the loader read differently for these settings."""
    return tuple(sorted((active.rule.code, tuple(sorted(active.params.items(), key=str)))
                        for active in settings.active if active.rule.code in PARAMETERS_READ))


def replay(principal: Principal, batch: Batch, variants: list[EngineSettings]) -> list[Outcomes]:
    """Each variant's outcomes over the batch, the history prepared once per preparation key."""
    outcomes = [Outcomes() for _ in variants]
    if not batch.tx_rows and not batch.fiat_rows:
        return outcomes
    groups: dict[tuple, list[int]] = defaultdict(list)
    for index, settings in enumerate(variants):
        groups[_preparation_key(settings)].append(index)
    by_entity = events_by_entity(batch)
    for indexes in groups.values():
        chosen = [variants[index] for index in indexes]
        with gc_paused(), transaction.atomic(savepoint=False):
            contexts = _contexts(principal, batch, chosen)
            _evaluate(by_entity, contexts, chosen, [outcomes[index] for index in indexes])
    return outcomes


def _contexts(principal: Principal, batch: Batch, variants: list[EngineSettings]) -> dict:
    """The entities' contexts, every transfer of the widest look-back as a row."""
    widest = max(variants, key=lambda settings: settings.lookback().transactions)
    loader = BatchLoader(organization=principal.organization, mode=principal.mode, settings=widest,
                         lists=batch_lists(principal.organization, batch.counterparty_addresses), whole_span=True)
    lookbacks = [settings.lookback() for settings in variants]
    loader.lookback = type(loader.lookback)(transactions=max(lb.transactions for lb in lookbacks), fiat=max(lb.fiat for lb in lookbacks))
    return loader.contexts(batch)


def _evaluate(by_entity: dict, contexts: dict, variants: list[EngineSettings], outcomes: list[Outcomes]) -> None:
    """The engine's evaluate (monitoring.rules.engine.evaluate), with one input per event shared by the variants."""
    for entity_id, events in by_entity.items():
        context = contexts[entity_id]
        for _, _, event in sorted(events, key=lambda item: (item[0], item[1])):
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
                    else:
                        found.tallies[entity_id].add(event.timestamp)
