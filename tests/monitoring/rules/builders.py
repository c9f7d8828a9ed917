"""Compact builders for rule tests: events placed relative to T0, and one-rule runs.

tx("9000", ago=hours(3))                      # inbound 9,000 USD transfer three hours before T0
fiat("wire_in", "5000", ago=days(1), name="Acme")
run("structuring_below_threshold", tx(...), tx(...), tx("9000"))   # evaluates the last event
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from monitoring.rules import (
    EngineSettings,
    Entity,
    EntityContext,
    EntityHistory,
    Event,
    FiatEvent,
    OrgLists,
    OrgNetwork,
    RuleResult,
    RuleSetting,
    Transaction,
    evaluate,
)

T0 = datetime(2025, 3, 12, 15, 0, tzinfo=UTC)  # a Wednesday, 11:00 in New York
OWN = "0xme"
_ids = itertools.count(1)


def seconds(n: float) -> timedelta:
    return timedelta(seconds=n)


def minutes(n: float) -> timedelta:
    return timedelta(minutes=n)


def hours(n: float) -> timedelta:
    return timedelta(hours=n)


def days(n: float) -> timedelta:
    return timedelta(days=n)


def _usd(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def tx(
    usd: str | None = "100",
    *,
    ago: timedelta = timedelta(0),
    direction: str = "in",
    cp: str = "0xcp",
    own: str = OWN,
    chain: int = 1,
    asset: str = "USDC",
    cp_entity: str | None = None,
    travel: bool = False,
    id: str | None = None,
) -> Transaction:
    """A transfer of `usd` USD (None: no price). For "self", `cp` is the entity's other wallet."""
    sender, recipient = (cp, own) if direction == "in" else (own, cp)
    return Transaction(
        id=id or f"tx{next(_ids)}", timestamp=T0 - ago, direction=direction, amount=Decimal(usd or "1"), usd_value=_usd(usd),
        counterparty_address=cp, chain_id=chain, tx_hash=f"0xhash{next(_ids)}", from_address=sender, to_address=recipient,
        asset=asset, counterparty_entity_id=cp_entity, travel_rule_present=travel,
    )  # fmt: skip


def fiat(
    event_type: str,
    usd: str | None = "100",
    *,
    ago: timedelta = timedelta(0),
    amount: str | None = None,
    currency: str = "USD",
    name: str = "",
    bank: str = "",
    id: str | None = None,
    **fields: Any,
) -> FiatEvent:
    """A fiat event worth `usd` USD; its amount is `amount` (default: the USD value) in `currency`."""
    return FiatEvent(
        id=id or f"fe{next(_ids)}", timestamp=T0 - ago, event_type=event_type, amount=Decimal(amount or usd or "1"),
        usd_value=_usd(usd), currency=currency, counterparty_name=name, counterparty_bank=bank, **fields,
    )  # fmt: skip


ONE_MINUTE = timedelta(minutes=1)


def series(n: int, make: Callable[[timedelta], Event], *, every: timedelta = ONE_MINUTE, start: timedelta = ONE_MINUTE) -> list[Event]:
    """n events made at start, start + every, ... before T0 (so the evaluated event at T0 comes last)."""
    return [make(start + every * i) for i in range(n)]


@dataclass(frozen=True)
class Scenario:
    """One table row: the events (the last is evaluated), the expected outcome, and what else the context holds."""

    events: tuple[Event, ...]
    expect: str | None
    params: dict[str, Any] = field(default_factory=dict)
    entity: Entity | None = None
    lists: OrgLists | None = None
    network: OrgNetwork | None = None
    context: dict[str, Any] = field(default_factory=dict)
    history: dict[str, Any] = field(default_factory=dict)


def given(*events: Event | Iterable[Event], expect: str | None, **extra: Any) -> Scenario:
    flat: list[Event] = []
    for item in events:
        flat.extend([item] if isinstance(item, Transaction | FiatEvent) else item)
    return Scenario(tuple(flat), expect, **extra)


def context_for(s: Scenario) -> EntityContext:
    txs = [e for e in s.events if isinstance(e, Transaction)]
    fiats = [e for e in s.events if isinstance(e, FiatEvent)]
    return EntityContext(
        entity=s.entity or Entity(id="entity-1", jurisdiction="US"), history=EntityHistory(txs, fiats, **s.history),
        own_wallets=frozenset({(1, OWN)}), lists=s.lists or OrgLists(), network=s.network or OrgNetwork(), **s.context,
    )  # fmt: skip


def run(code: str, scenario: Scenario) -> RuleResult | None:
    settings = EngineSettings.build({code: RuleSetting(parameters=scenario.params)}, only=[code])
    results = evaluate(scenario.events[-1], context_for(scenario), settings)
    assert len(results) <= 1
    return results[0] if results else None


def outcome(result: RuleResult | None) -> str | None:
    return None if result is None else result.outcome


HIT, SKIP, NONE = "hit", "skipped", None


def cases(code: str, table: dict[str, Scenario]) -> list:
    """pytest params named "<code>: <case>" from a rule's table."""
    return [pytest.param(code, scenario, id=f"{code}: {name}") for name, scenario in table.items()]
