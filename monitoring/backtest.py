"""Backtests: how one rule with candidate parameters would have behaved on stored history,
compared with its current settings. Replays events in time order through the same evaluation
path as live ingestion (monitoring.engine.runner.evaluate_batch) and creates nothing."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from common.errors import ValidationFailed
from common.permissions import require_role
from common.principal import Principal
from monitoring.configuration.selectors import engine_settings, rule_or_404, rule_settings_of
from monitoring.configuration.services import merged_overrides
from monitoring.engine.runner import evaluate_batch
from monitoring.models import FiatEvent, Transaction
from organizations.choices import Role

BACKTEST_ROLE = Role.ADMIN
MAX_RANGE = timedelta(days=366)
MAX_EVENTS = 200_000
CHUNK = 1000


@dataclass
class Tally:
    """What the rule would have raised for one entity: one alert (hits dedupe into it, as no
    disposition closes it during a replay) and its hits."""

    hits: int = 0
    first_at: datetime | None = None
    last_at: datetime | None = None
    event_ids: set = field(default_factory=set)

    def add(self, result, at: datetime) -> None:
        self.hits += 1
        self.first_at = min(self.first_at or at, at)
        self.last_at = max(self.last_at or at, at)
        self.event_ids.add(result.event_id)

    def as_dict(self) -> dict:
        return {"alerts": 1 if self.hits else 0, "hits": self.hits, "first_triggered_at": self.first_at,
                "last_triggered_at": self.last_at}


def _events(principal: Principal, start: datetime, end: datetime):
    """Stored transactions and fiat events of the range, both kinds merged, in time order, in chunks."""
    scope = {"organization": principal.organization, "mode": principal.mode, "timestamp__gte": start, "timestamp__lte": end}
    transfers = Transaction.objects.filter(**scope, orphaned=False)  # a reorganised-away block's transfers happened nowhere
    count = transfers.count() + FiatEvent.objects.filter(**scope).count()
    if count > MAX_EVENTS:
        raise ValidationFailed.for_field("to_date", f"The range holds {count} events; a backtest replays at most {MAX_EVENTS}.")
    cursors = [transfers.order_by("timestamp", "id").iterator(chunk_size=CHUNK),
               FiatEvent.objects.filter(**scope).order_by("timestamp", "id").iterator(chunk_size=CHUNK)]
    merged = sorted((event for cursor in cursors for event in cursor), key=lambda event: (event.timestamp, event.pk))
    for index in range(0, len(merged), CHUNK):
        chunk = merged[index:index + CHUNK]
        yield [e for e in chunk if isinstance(e, Transaction)], [e for e in chunk if isinstance(e, FiatEvent)]


def rule_backtest(*, principal: Principal, rule_id, parameters: dict, start: datetime, end: datetime) -> dict:
    require_role(principal, BACKTEST_ROLE)
    rule = rule_or_404(rule_id)
    if end <= start or end - start > MAX_RANGE:
        raise ValidationFailed.for_field("to_date", f"to_date must be after from_date and at most {MAX_RANGE.days} days later.")
    stored = rule_settings_of(principal.organization).get(rule.code)
    candidate = merged_overrides(rule, stored.parameters if stored else {}, parameters)
    variants = {  # both enabled, whatever the stored setting; "current" keeps the stored parameters
        "candidate": engine_settings(principal.organization, only=[rule.code],
                                     overrides={rule.code: {"parameters": candidate, "enabled": True}}),
        "current": engine_settings(principal.organization, only=[rule.code], overrides={rule.code: {"enabled": True}}),
    }
    tallies = {name: defaultdict(Tally) for name in variants}
    replayed = 0
    for transactions, fiat_events in _events(principal, start, end):
        times = {str(event.pk): event.timestamp for event in (*transactions, *fiat_events)}
        replayed += len(times)
        for name, settings in variants.items():
            evaluation = evaluate_batch(organization=principal.organization, mode=principal.mode, transactions=transactions,
                                        fiat_events=fiat_events, settings=settings)
            for hit in evaluation.hits:
                tallies[name][hit.entity_id].add(hit, times[hit.event_id])
    return _report(rule, candidate, stored, tallies, replayed, start, end)


def _report(rule, candidate: dict, stored, tallies: dict, replayed: int, start, end) -> dict:
    entities = sorted(set(tallies["candidate"]) | set(tallies["current"]))
    rows = []
    for entity_id in entities:
        now, then = tallies["candidate"].get(entity_id, Tally()), tallies["current"].get(entity_id, Tally())
        change = "unchanged" if bool(now.hits) == bool(then.hits) else "new" if now.hits else "removed"
        rows.append({"entity_id": entity_id, "candidate": now.as_dict(), "current": then.as_dict(), "change": change})
    totals = {name: {"alerts": sum(1 for t in tally.values() if t.hits), "hits": sum(t.hits for t in tally.values())}
              for name, tally in tallies.items()}
    return {
        "rule": {"number": rule.number, "code": rule.code}, "from_date": start, "to_date": end, "events_replayed": replayed,
        "parameters": {"candidate": rule.params_json(rule.effective_params(candidate)),
                       "current": rule.params_json(rule.effective_params(stored.parameters if stored else {}))},
        "totals": totals, "entities": rows,
    }
