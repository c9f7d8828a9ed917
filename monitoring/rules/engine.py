"""Running the enabled rules over one event: `evaluate(event, context, settings) -> list[RuleResult]`.

Build `EngineSettings` once per organization per batch (it validates the overrides and groups the enabled
rules by event kind), and an `EntityContext` once per entity per batch; then evaluate the entity's events
in time order. Results carry what the alert store needs: rule, severity, score, evidence, event ids.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal

from monitoring.rules.context import EVENT_KINDS, EntityContext, Event, Hit, Outcome, Skip, Transaction, json_ready
from monitoring.rules.registry import RULES, InvalidParameters, Rule, Severity, duration, get_rule


@dataclass(frozen=True, slots=True)
class RuleSetting:
    """An organization's setting for one rule, as the API stores it."""

    enabled: bool = True
    parameters: Mapping[str, Any] = field(default_factory=dict)
    severity: Severity | str | None = None
    shadow: bool = False  # evaluated and recorded, no alert (storage's concern: the engine's results are the same)


@dataclass(frozen=True, slots=True)
class RuleResult:
    """A hit (an alert to open or extend) or a skip (the rule could not judge the event; record why)."""

    rule_number: int
    rule_code: str
    family: str
    outcome: Literal["hit", "skipped"]
    severity: str
    score: int
    entity_id: str
    event_id: str
    event_kind: str
    evidence: dict[str, Any]
    transaction_ids: tuple[str, ...] = ()
    fiat_event_ids: tuple[str, ...] = ()
    reason: str | None = None

    @property
    def is_hit(self) -> bool:
        return self.outcome == "hit"

    def as_dict(self) -> dict[str, Any]:
        return {name: json_ready(getattr(self, name)) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class ActiveRule:
    """An enabled rule with the organization's effective parameters, ready to run."""

    rule: Rule
    params: Mapping[str, Any]
    severity: Severity
    parameters_json: Mapping[str, Any]
    check: Callable[[Any, Mapping[str, Any]], Outcome] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The rule's function at hand: `evaluate` calls it some 30,000 times a batch, one frame each.
        object.__setattr__(self, "check", self.rule.check)

    def result(self, outcome: Hit | Skip, event: Event, entity_id: str) -> RuleResult:
        rule = self.rule
        common = {"rule_number": rule.number, "rule_code": rule.code, "family": str(rule.family), "severity": str(self.severity)}
        common.update(score=rule.score, entity_id=entity_id, event_id=event.id, event_kind=event.kind)
        if isinstance(outcome, Skip):
            return RuleResult(**common, outcome="skipped", evidence={"reason": outcome.reason}, reason=outcome.reason)
        evidence = {"parameters": dict(self.parameters_json), "measured": json_ready(outcome.measured)}
        transactions, fiat_events = _event_ids(outcome.events, event)
        return RuleResult(**common, outcome="hit", evidence=evidence, transaction_ids=transactions, fiat_event_ids=fiat_events)


def _event_ids(events: Iterable[Event], current: Event) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Ids of the events involved, split by channel, in order, each once; the evaluated event always included."""
    transactions: dict[str, None] = {}
    fiat_events: dict[str, None] = {}
    for event in (*events, current):
        (transactions if isinstance(event, Transaction) else fiat_events)[event.id] = None
    return tuple(transactions), tuple(fiat_events)


@dataclass(frozen=True, slots=True)
class Lookback:
    """How much history to load before a batch's first event, per channel."""

    transactions: timedelta
    fiat: timedelta


class InvalidSettings(ValueError):
    def __init__(self, errors: Mapping[str, Any]) -> None:
        super().__init__(errors)
        self.errors = dict(errors)


class EngineSettings:
    """The enabled rules of an organization with their effective parameters, grouped by event kind."""

    __slots__ = ("_by_kind", "active", "shadow")

    def __init__(self, active: Iterable[ActiveRule], shadow: Iterable[str] = ()) -> None:
        self.active: tuple[ActiveRule, ...] = tuple(sorted(active, key=lambda a: a.rule.number))
        self._by_kind = {kind: tuple(a for a in self.active if kind in a.rule.applies_to) for kind in EVENT_KINDS}
        self.shadow: frozenset[str] = frozenset(shadow)  # codes of the active rules whose hits raise no alert

    @classmethod
    def build(
        cls, settings: Mapping[int | str, RuleSetting | Mapping[str, Any]] | None = None, *, only: Iterable[int | str] | None = None
    ) -> EngineSettings:
        """From stored settings keyed by rule number or code; rules without a setting run with defaults.

        `only` restricts to some rules (a backtest of one rule). Raises InvalidSettings.
        """
        by_rule, errors = _settings_by_rule(settings or {})
        try:
            chosen = RULES if only is None else tuple(get_rule(key) for key in only)
        except KeyError as exc:
            raise InvalidSettings({str(exc.args[0]): "unknown rule"}) from None
        active = []
        for rule in chosen:
            try:
                found = _activate(rule, by_rule.get(rule.number, RuleSetting()))
            except (InvalidParameters, ValueError) as exc:
                errors[rule.code] = getattr(exc, "errors", str(exc))
                continue
            if found:
                active.append(found)
        if errors:
            raise InvalidSettings(errors)
        return cls(active, shadow=(found.rule.code for found in active if by_rule.get(found.rule.number, RuleSetting()).shadow))

    def rules_for(self, kind: str) -> tuple[ActiveRule, ...]:
        return self._by_kind.get(kind, ())

    def lookback(self) -> Lookback:
        needs = {"transactions": timedelta(0), "fiat": timedelta(0)}
        for active in self.active:
            for channel in active.rule.reads:
                needs[channel] = max(needs[channel], active.rule.lookback(active.params))
        return Lookback(**needs)

    def _reading_transfers(self) -> Iterator[ActiveRule]:
        return (active for active in self.active if "transactions" in active.rule.reads)

    def row_reach(self) -> timedelta:
        """How far back before an event the rules read transfers one by one in most evaluations: their
        windows in hours (24 h, 48 h). Longer windows (days) are read as volumes, or as transfers only
        by some evaluations (a round amount, a large counterparty volume): storage may load the rows
        of this reach and the rest as sums (EntityHistory, FarVolume)."""
        hours = [timedelta(hours=active.params[param.name]) for active in self._reading_transfers() for param in active.rule.params
                 if param.kind == "hours"]
        # A rule of hour windows alone that reads further than its longest one (fan-out's funding before its window).
        hours += [active.rule.lookback(active.params) for active in self._reading_transfers()
                  if active.rule.reach and all(param.kind != "days" for param in active.rule.params)]
        return max(hours, default=timedelta(0))

    def volume_widths(self) -> set[timedelta]:
        """Every window length of the rules that read transfers (volumes start that long before an event)."""
        widths = set()
        for active in self._reading_transfers():
            widths.add(active.rule.lookback(active.params))
            widths.update(duration(param.kind, active.params[param.name]) for param in active.rule.params
                          if param.kind in ("hours", "days"))
        return widths

    def __contains__(self, key: int | str) -> bool:
        rule = get_rule(key)
        return any(active.rule is rule for active in self.active)


def _settings_by_rule(settings: Mapping[int | str, RuleSetting | Mapping[str, Any]]) -> tuple[dict[int, RuleSetting], dict[str, Any]]:
    by_rule, errors = {}, {}
    for key, setting in settings.items():
        try:
            rule = get_rule(key)
            by_rule[rule.number] = setting if isinstance(setting, RuleSetting) else RuleSetting(**setting)
        except KeyError:
            errors[str(key)] = "unknown rule"
        except TypeError:
            errors[rule.code] = f"a rule setting takes {sorted(RuleSetting.__slots__)}"
    return by_rule, errors


def _activate(rule: Rule, setting: RuleSetting) -> ActiveRule | None:
    if not setting.enabled:
        return None
    params = rule.effective_params(setting.parameters)
    severity = Severity(setting.severity) if setting.severity else rule.severity
    return ActiveRule(rule, params, severity, rule.params_json(params))


DEFAULT_SETTINGS = EngineSettings.build()


def evaluate(event: Event, context: EntityContext, settings: EngineSettings | None = None) -> list[RuleResult]:
    """Every enabled rule that applies to the event's kind; hits and skips only ("no hit" is not returned)."""
    inp = context.input_for(event)
    results = []
    for active in (settings or DEFAULT_SETTINGS).rules_for(event.kind):
        outcome = active.check(inp, active.params)
        if outcome is not None:
            results.append(active.result(outcome, event, context.entity.id))
    return results


def evaluate_in_order(events: Iterable[Event], context: EntityContext, settings: EngineSettings | None = None) -> Iterator[RuleResult]:
    """The entity's events of a batch, oldest first (same-timestamp events keep their given order)."""
    for event in sorted(events, key=lambda e: e.timestamp):
        yield from evaluate(event, context, settings)
