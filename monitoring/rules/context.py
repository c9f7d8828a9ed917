"""The prepared context a rule reads, and the window and aggregation helpers every family shares.

Nothing here touches the database or the clock. The storage layer builds one `EntityContext` per entity
per batch (events, the entity, its history, the organization's lists and network); the engine cuts the
history at each event (`EntityHistory.view_at`) so that windows are measured back from the event's own
timestamp and a replay sees exactly what live traffic saw.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Context, Decimal
from itertools import accumulate
from operator import attrgetter
from typing import Any, ClassVar, Literal, NamedTuple, Protocol
from zoneinfo import ZoneInfo

Direction = Literal["in", "out", "self"]
AddressKey = tuple[int | None, str]
"""(chain_id, address). chain_id None in a list entry means "on every chain" (e.g. an OFAC EVM address)."""
Params = Mapping[str, Any]

TRANSACTION = "transaction"
WIRE_IN, WIRE_OUT, ACH_IN, ACH_OUT = "wire_in", "wire_out", "ach_in", "ach_out"
CARD_LOAD, CARD_PURCHASE, CARD_ATM, CARD_REFUND = "card_load", "card_purchase", "card_atm", "card_refund"
CHECK_DEPOSIT, CHECK_PURCHASE = "check_deposit", "check_purchase"
FIAT_EVENT_TYPES = (WIRE_IN, WIRE_OUT, ACH_IN, ACH_OUT, CARD_LOAD, CARD_PURCHASE, CARD_ATM, CARD_REFUND, CHECK_DEPOSIT, CHECK_PURCHASE)
EVENT_KINDS = frozenset((TRANSACTION, *FIAT_EVENT_TYPES))
# Money moving to the customer (in) or away from it (out); a refund credits the customer.
FIAT_INFLOWS = frozenset({WIRE_IN, ACH_IN, CARD_LOAD, CARD_REFUND, CHECK_DEPOSIT})
FIAT_OUTFLOWS = frozenset({WIRE_OUT, ACH_OUT, CARD_PURCHASE, CARD_ATM, CHECK_PURCHASE})
WIRE_EVENTS = frozenset({WIRE_IN, WIRE_OUT})
ACH_EVENTS = frozenset({ACH_IN, ACH_OUT})
CARD_EVENTS = frozenset({CARD_LOAD, CARD_PURCHASE, CARD_ATM, CARD_REFUND})
CARD_TYPES = ("credit", "debit", "prepaid")
CHECK_TYPES = ("personal", "business", "cashier", "money_order")
DEPOSIT_METHODS = ("teller", "atm", "rdc_mobile", "rdc_desktop")

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ONE_MICROSECOND = timedelta(microseconds=1)
MICROS_PER_HOUR = 3_600_000_000
MICROS_PER_DAY = 24 * MICROS_PER_HOUR
_ZERO = Decimal(0)


def micros(ts: datetime) -> int:
    """Exact integer microseconds since the epoch: window bounds compare without float rounding."""
    return (ts - EPOCH) // ONE_MICROSECOND


def span(*, hours: int = 0, days: int = 0) -> int:
    return hours * MICROS_PER_HOUR + days * MICROS_PER_DAY


def _require_aware(ts: datetime) -> None:
    if ts.tzinfo is None or ts.utcoffset() is None:
        raise ValueError("timestamps must be timezone-aware (UTC)")


# --- Events -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Transaction:
    """A crypto or API-submitted transfer, seen from the entity it is evaluated for."""

    id: str
    timestamp: datetime
    direction: Direction
    amount: Decimal
    usd_value: Decimal | None
    counterparty_address: str
    chain_id: int = 0
    tx_hash: str = ""
    from_address: str = ""
    to_address: str = ""
    asset: str = ""
    counterparty_entity_id: str | None = None
    travel_rule_present: bool = False
    counterparty_key: AddressKey = field(init=False, repr=False, compare=False)
    kind: ClassVar[str] = TRANSACTION

    def __post_init__(self) -> None:
        _require_aware(self.timestamp)
        object.__setattr__(self, "counterparty_key", (self.chain_id, self.counterparty_address))  # read by many rules

    @property
    def own_addresses(self) -> tuple[str, ...]:
        """The entity's side of the transfer (both sides for a transfer between its own wallets)."""
        if self.direction == "in":
            return (self.to_address,)
        if self.direction == "out":
            return (self.from_address,)
        return (self.from_address, self.to_address)


@dataclass(frozen=True, slots=True, kw_only=True)
class FiatEvent:
    """A wire, ACH, card or check event of the entity (README, "Backfill files": the fiat event fields)."""

    id: str
    timestamp: datetime
    event_type: str
    amount: Decimal
    usd_value: Decimal | None
    currency: str = "USD"
    counterparty_name: str = ""
    counterparty_bank: str = ""
    card_type: str | None = None
    merchant_category_code: str | None = None
    merchant_country: str | None = None
    check_type: str | None = None
    check_number: str | None = None
    deposit_method: str | None = None

    def __post_init__(self) -> None:
        _require_aware(self.timestamp)
        if self.event_type not in EVENT_KINDS or self.event_type == TRANSACTION:
            raise ValueError(f"unknown fiat event type {self.event_type!r}")

    @property
    def kind(self) -> str:
        return self.event_type

    @property
    def direction(self) -> Direction:
        return "in" if self.event_type in FIAT_INFLOWS else "out"


Event = Transaction | FiatEvent


# --- The entity, the organization's lists and network ---------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PeerGroupStats:
    """30-day volume statistics of the entity's peer group (computed by storage, the entity excluded)."""

    size: int
    mean_volume_usd: Decimal
    stddev_volume_usd: Decimal
    active: int  # peers with a priced event in the window: a group without activity has no spread to compare against


@dataclass(frozen=True, slots=True, kw_only=True)
class Entity:
    id: str
    status: str = "approved"
    jurisdiction: str | None = None
    entity_type: str | None = None
    created_at: datetime | None = None
    onboarded_at: datetime | None = None
    expected_monthly_volume_usd: Decimal | None = None
    peer_group: PeerGroupStats | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CounterpartyEntity:
    """Another customer of the organization, as far as rules about counterparties need it."""

    id: str
    jurisdiction: str | None = None
    status: str = "approved"
    adverse_findings_at: tuple[datetime, ...] = ()
    """When its alerts were disposed true-positive and when reports on it were filed (rule 33)."""


class NameScreener(Protocol):
    """Screens a payment counterparty name against sanctions lists (rule 34); see `names.py`.

    Raises ScreeningUnavailable when it cannot judge the name (no list loaded, unreadable script).
    """

    def best_match(self, name: str) -> NameMatch | None: ...


class ScreeningUnavailable(Exception):
    """The name could not be screened; rule 34 records a skip with this message."""


@dataclass(frozen=True, slots=True)
class NameMatch:
    listed_name: str
    source: str
    score: Decimal


class _NoNames:
    def best_match(self, name: str) -> NameMatch | None:
        return None


DEFAULT_HIGH_RISK_JURISDICTIONS = frozenset({"KP", "IR", "MM"})
DEFAULT_PRIVACY_ASSETS = frozenset({"XMR", "ZEC", "DASH"})
DEFAULT_HIGH_RISK_MCCS = frozenset({"4829", "6051", "6211", "7995", "5993"})


def _lookup(mapping: Mapping[AddressKey, Any], chain_id: int, address: str) -> Any:
    found = mapping.get((chain_id, address))
    return found if found is not None else mapping.get((None, address))


@dataclass(frozen=True, slots=True, kw_only=True)
class OrgLists:
    """The organization's editable lists (docs/rules.md, "Default lists"); defaults are the seeded values."""

    asset_prices: Mapping[str, Decimal] = field(default_factory=lambda: {"USD": Decimal(1)})
    address_tags: Mapping[AddressKey, frozenset[str]] = field(default_factory=dict)
    sanctioned_addresses: Mapping[AddressKey, str] = field(default_factory=dict)
    blocked_addresses: frozenset[AddressKey] = frozenset()
    high_risk_jurisdictions: frozenset[str] = DEFAULT_HIGH_RISK_JURISDICTIONS
    privacy_assets: frozenset[str] = DEFAULT_PRIVACY_ASSETS
    high_risk_mccs: frozenset[str] = DEFAULT_HIGH_RISK_MCCS
    sanctions_names: NameScreener = field(default_factory=_NoNames)

    def __post_init__(self) -> None:
        # Labels and codes compare upper-case whatever the admin typed; done once per batch.
        upper = {"asset_prices": {label.upper(): rate for label, rate in self.asset_prices.items()}}
        upper |= {
            name: frozenset(code.strip().upper() for code in getattr(self, name)) for name in ("high_risk_jurisdictions", "privacy_assets")
        }
        upper["high_risk_mccs"] = frozenset(code.strip() for code in self.high_risk_mccs)
        for name, value in upper.items():
            object.__setattr__(self, name, value)

    def tags_for(self, chain_id: int, address: str) -> frozenset[str]:
        return _lookup(self.address_tags, chain_id, address) or frozenset()

    def usd_rate(self, label: str) -> Decimal | None:
        return self.asset_prices.get(label.upper())

    def sanctions_source(self, chain_id: int, address: str) -> str | None:
        """Which list puts the address off limits: a loaded sanctions list, a `sanctions` tag or the block list."""
        listed = _lookup(self.sanctioned_addresses, chain_id, address)
        if listed:
            return listed
        if "sanctions" in self.tags_for(chain_id, address):
            return "address tag: sanctions"
        blocked = (chain_id, address) in self.blocked_addresses or (None, address) in self.blocked_addresses
        return "block list" if blocked else None


class TransferGraph:
    """Transfers between the organization's registered wallets, indexed by recipient (rule 15 traces cycles)."""

    __slots__ = ("_arrivals",)

    def __init__(self, transfers: Iterable[Transaction] = ()) -> None:
        arrivals: dict[AddressKey, list[tuple[int, Transaction]]] = {}
        for transfer in transfers:
            arrivals.setdefault((transfer.chain_id, transfer.to_address), []).append((micros(transfer.timestamp), transfer))
        for edges in arrivals.values():
            edges.sort(key=lambda edge: edge[0])
        self._arrivals = arrivals

    def arrivals(self, chain_id: int, address: str, *, since_us: int, until_us: int) -> Iterator[Transaction]:
        """Transfers into the wallet with since_us ≤ time ≤ until_us."""
        edges = self._arrivals.get((chain_id, address), ())
        start = bisect_left(edges, since_us, key=lambda edge: edge[0])
        for at, transfer in edges[start:]:
            if at > until_us:
                return
            yield transfer


@dataclass(frozen=True, slots=True, kw_only=True)
class OrgNetwork:
    """What the organization knows about wallets and other customers, shared by every entity of a batch."""

    registered_wallets: Mapping[AddressKey, str] = field(default_factory=dict)
    entities: Mapping[str, CounterpartyEntity] = field(default_factory=dict)
    flagged_wallets: frozenset[AddressKey] = frozenset()
    transfers: TransferGraph = field(default_factory=TransferGraph)

    def counterparty_entity_id(self, tx: Transaction) -> str | None:
        return tx.counterparty_entity_id or _lookup(self.registered_wallets, tx.chain_id, tx.counterparty_address)

    def is_flagged(self, chain_id: int, address: str) -> bool:
        return (chain_id, address) in self.flagged_wallets or (None, address) in self.flagged_wallets


# --- History and its per-event view ---------------------------------------------------------------------


class Volume(NamedTuple):
    """A USD sum over a window; events without a price are left out and counted. (A named tuple:
    the rules make some 25,000 a batch, and a frozen dataclass's construction costs three times as much.)"""

    usd: Decimal
    events: int
    unpriced: int


class _RunningVolume:
    """Prefix sums of USD values so that any window's volume costs two bisects.

    `values` by position; `excluded`, when given, marks the positions that count in no sum (own-wallet
    transfers). Built for every entity of every batch: when nothing is excluded or unpriced (the
    usual history), the sums are itertools.accumulate's, with no Python step per value."""

    __slots__ = ("_priced", "_unpriced", "_usd")

    def __init__(self, values: list[Decimal | None], excluded: list[bool] | None = None) -> None:
        if excluded is None and None not in values:
            self._usd = list(accumulate(values, initial=_ZERO))
            self._priced, self._unpriced = list(range(len(values) + 1)), [0] * (len(values) + 1)
            return
        counted = [True] * len(values) if excluded is None else [not out for out in excluded]
        pairs = list(zip(values, counted, strict=True))
        self._usd = list(accumulate((value if include and value is not None else _ZERO for value, include in pairs), initial=_ZERO))
        self._priced = list(accumulate((include and value is not None for value, include in pairs), initial=0))
        self._unpriced = list(accumulate((include and value is None for value, include in pairs), initial=0))

    def between(self, lo: int, hi: int) -> Volume:
        return Volume(self._usd[hi] - self._usd[lo], self._priced[hi] - self._priced[lo], self._unpriced[hi] - self._unpriced[lo])


_NO_VOLUME = _RunningVolume([])


class HistoryChanged(Exception):
    """The transfers before the loaded rows were not what their sums said when the rows were read:
    a transfer was stored (or changed) between the two reads. The batch is evaluated again from
    one read of the whole span (monitoring.engine.runner)."""


class FarVolume:
    """The volumes of an entity's transfers older than the rows storage loaded for a batch.

    Storage reads rows only as far back as the batch's short windows reach, and for the stretch
    before them (rule 18's baseline, the 30-day volumes) only sums: groups of transfers, each
    `(first µs, last µs, usd, priced, unpriced, transfers)` (own-wallet transfers count in the times
    and in `transfers` only), in time order and not overlapping. A window edge is answered exactly
    when no group straddles it; storage keeps the transfers at the edges that the batch's windows use
    in groups of their own time, so those are. `between` returns None for an edge inside a group:
    the caller then needs the rows themselves.
    """

    __slots__ = ("_first", "_last", "_transfers", "_usd", "_priced", "_unpriced")

    def __init__(self, groups: Iterable[tuple[int, int, Decimal, int, int, int]]) -> None:
        self._first, self._last, self._transfers = [], [], 0
        total, priced, unpriced = Decimal(0), 0, 0
        self._usd, self._priced, self._unpriced = [total], [0], [0]
        for first, last, usd, n_priced, n_unpriced, n_transfers in groups:
            self._first.append(first)
            self._last.append(last)
            total, priced, unpriced = total + usd, priced + n_priced, unpriced + n_unpriced
            self._usd.append(total)
            self._priced.append(priced)
            self._unpriced.append(unpriced)
            self._transfers += n_transfers

    def __len__(self) -> int:
        return len(self._first)

    @property
    def first_us(self) -> int | None:
        return self._first[0] if self._first else None

    @property
    def last_us(self) -> int | None:
        return self._last[-1] if self._last else None

    def between(self, lo: int, hi: int) -> Volume | None:
        """The volume of transfers with lo ≤ time < hi, or None when a group straddles either edge."""
        start = bisect_left(self._first, lo)
        if start and self._last[start - 1] >= lo:
            return None
        stop = bisect_left(self._last, hi)
        if stop < len(self._first) and self._first[stop] < hi:
            return None
        stop = max(stop, start)
        return Volume(self._usd[stop] - self._usd[start], self._priced[stop] - self._priced[start],
                      self._unpriced[stop] - self._unpriced[start])

    def check(self, rows: Transfers) -> None:
        """Raise HistoryChanged unless `rows` are the transfers these sums were made of (their
        number, times, priced and unpriced counts and USD total)."""
        counted = [usd for usd, direction in zip(rows.usd, rows.directions, strict=True) if direction != "self"]
        priced = [usd for usd in counted if usd is not None]
        found = (len(rows), rows.at[0] if rows.at else None, rows.at[-1] if rows.at else None, len(priced),
                 len(counted) - len(priced), sum(priced, Decimal(0)))
        if found != (self._transfers, self.first_us, self.last_us, self._priced[-1], self._unpriced[-1], self._usd[-1]):
            raise HistoryChanged(f"{found[0]} transfers before the loaded rows, {self._transfers} when they were summed")


_by_time = attrgetter("timestamp")  # (a C-level key: the sort runs for every history of every batch)


class Transfers(Sequence[Transaction]):
    """An entity's transfers in time order, kept as the columns the windows and volumes need.

    The `Transaction` objects themselves are made only when a rule reads them: a batch loads each of
    its entities' 31 days of transfers (rule 18's baseline), but most rules read the last 24 hours,
    and the long windows are answered from the columns (times, USD values, directions, counterparty
    keys). `make(source, direction, usd_value)` builds the transfer at a position from its source
    record; transfers given as objects are their own source.
    """

    __slots__ = ("at", "directions", "ids", "keys", "usd", "_made", "_make", "_sources")

    def __init__(self, *, at: list[int], ids: list[str], usd: list[Decimal | None], directions: list[str],
                 keys: list[AddressKey], sources: list[Any], make: Any = None) -> None:
        self.at, self.ids, self.usd, self.directions, self.keys = at, ids, usd, directions, keys
        self._sources, self._make = sources, make
        self._made: list[Transaction | None] = sources if make is None else [None] * len(sources)

    @classmethod
    def of(cls, transactions: Iterable[Transaction]) -> Transfers:
        """From transfer objects, sorted by time (ties keep the given order)."""
        made = sorted(transactions, key=_by_time)
        # micros() inlined: this runs for every loaded transfer of every batch.
        return cls(at=[(tx.timestamp - EPOCH) // ONE_MICROSECOND for tx in made], ids=[tx.id for tx in made],
                   usd=[tx.usd_value for tx in made], directions=[tx.direction for tx in made],
                   keys=[tx.counterparty_key for tx in made], sources=made)

    def after(self, earlier: Transfers) -> Transfers:
        """These transfers after `earlier` (all of which precede the first of these): one time-ordered set."""
        if not earlier.at:
            return self
        joined = Transfers(at=earlier.at + self.at, ids=earlier.ids + self.ids, usd=earlier.usd + self.usd,
                           directions=earlier.directions + self.directions, keys=earlier.keys + self.keys,
                           sources=earlier._sources + self._sources, make=self._make or earlier._make)
        joined._made = earlier._made + self._made
        return joined

    def __len__(self) -> int:
        return len(self.at)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self.at))
            if step == 1:
                return self.window(start, stop)
            return tuple(self._get(i) for i in range(start, stop, step))
        if index < 0:
            index += len(self.at)
        if not 0 <= index < len(self.at):
            raise IndexError("transfer index out of range")
        return self._get(index)

    def __iter__(self) -> Iterator[Transaction]:
        return (self._get(i) for i in range(len(self.at)))

    def window(self, start: int, stop: int) -> tuple[Transaction, ...]:
        """The transfers at positions start to stop (exclusive). Every rule's window comes through
        here: a copy of what is made, the rest made in place, rather than a look-up per position."""
        window = self._made[start:stop]
        for offset, tx in enumerate(window):
            if tx is None:
                window[offset] = self._get(start + offset)
        return tuple(window)

    def made(self) -> int:
        """How many of the transfer objects exist so far (the rest are columns only)."""
        return sum(tx is not None for tx in self._made)

    def _get(self, i: int) -> Transaction:
        tx = self._made[i]
        if tx is None:
            tx = self._made[i] = self._make(self._sources[i], self.directions[i], self.usd[i])
        return tx


class EntityHistory:
    """The entity's recent transactions and fiat events, each in time order.

    Load at least `EngineSettings.lookback()` before the batch's first event and include the batch's own
    events. Ties keep the given order, so pass same-timestamp events in ingestion order.
    `transactions`: the transfers, or a `Transfers` already in time order (storage builds one from rows).
    `earlier_activity_at`: the latest timestamp among the entity's events *not* loaded here (dormancy, rule 10).
    `first_activity_at`: the entity's first event ever (rule 18's "≥ 7 days of history").
    `known_counterparties`: counterparties the entity dealt with before the loaded span (rule 14, optional).

    Storage may load the transfers only from `rows_from` (a batch's short windows) and give the
    older part of the span as a `FarVolume` with `earlier_rows`, which reads that part's transfers
    when a rule asks for more than the volumes (a longer window of transfers, a counterparty's
    30 days, the whole past): at most once, after which the history is the whole span. The answers
    are those of a history loaded whole.
    """

    __slots__ = (
        "earlier_activity_at", "fiat_events", "first_activity_at", "transactions", "_by_counterparty", "_known",
        "_fiat_at", "_fiat_index", "_fiat_volume", "_first_contacts", "_tx_at", "_tx_index", "_tx_volume",
        "_far", "_earlier_rows", "_rows_from", "_prepended",
    )  # fmt: skip

    def __init__(
        self,
        transactions: Iterable[Transaction] | Transfers = (),
        fiat_events: Iterable[FiatEvent] = (),
        *,
        earlier_activity_at: datetime | None = None,
        first_activity_at: datetime | None = None,
        known_counterparties: Iterable[AddressKey] = (),
        rows_from: datetime | None = None,
        far: FarVolume | None = None,
        earlier_rows: Callable[[], Transfers] | None = None,
    ) -> None:
        transfers = transactions if isinstance(transactions, Transfers) else Transfers.of(transactions)
        self.fiat_events: tuple[FiatEvent, ...] = tuple(sorted(fiat_events, key=_by_time)) if fiat_events else ()
        self.earlier_activity_at = earlier_activity_at
        if self.fiat_events:
            self._fiat_at = [(ev.timestamp - EPOCH) // ONE_MICROSECOND for ev in self.fiat_events]
            self._fiat_index = {ev.id: i for i, ev in enumerate(self.fiat_events)}
            self._fiat_volume = _RunningVolume([ev.usd_value for ev in self.fiat_events])
        else:  # most histories of a batch (one per entity) hold no fiat event
            self._fiat_at, self._fiat_index, self._fiat_volume = [], {}, _NO_VOLUME
        self._set_transactions(transfers)
        self.first_activity_at = first_activity_at or self._earliest()
        self._known = frozenset(known_counterparties)
        if far and earlier_rows is None:
            raise ValueError("summed transfers need earlier_rows, which reads them when the sums cannot answer")
        partial = rows_from is not None and earlier_rows is not None
        self._rows_from = micros(rows_from) if partial else None
        self._far = (far or FarVolume(())) if partial else None
        self._earlier_rows = earlier_rows if partial else None
        self._prepended = 0  # transfers put before the loaded rows since (the views' positions move by as many)

    def _set_transactions(self, transfers: Transfers) -> None:
        self.transactions: Transfers = transfers
        self._tx_at = transfers.at
        self._tx_index = dict(zip(transfers.ids, range(len(transfers.ids)), strict=True))
        directions = transfers.directions
        self._tx_volume = _RunningVolume(transfers.usd, [direction == "self" for direction in directions] if "self" in directions else None)
        self._by_counterparty: dict[AddressKey, list[int]] | None = None  # built when a rule first asks
        self._first_contacts: frozenset[str] | None = None  # likewise

    def covers(self, since_us: int) -> bool:
        """Every transfer from `since_us` on is loaded as a row."""
        return self._rows_from is None or since_us >= self._rows_from

    def load_earlier(self) -> None:
        """Read the transfers before the loaded rows (once): the history is then the whole span.
        The first contacts are found again over it, with the same counterparties known from before."""
        if self._earlier_rows is None:
            return
        earlier = self._earlier_rows()
        self._far.check(earlier)  # read after the sums: a transfer stored meanwhile must not mix two states
        self._earlier_rows, self._rows_from, self._far = None, None, None
        if len(earlier):
            self._set_transactions(self.transactions.after(earlier))
            self._prepended += len(earlier)

    def knowing(self, known_counterparties: Iterable[AddressKey]) -> EntityHistory:
        """The same history, with these counterparties known from before the loaded span (what is
        built from the events is shared; the first contacts are found again on first use)."""
        known = object.__new__(EntityHistory)
        for name in EntityHistory.__slots__:
            setattr(known, name, getattr(self, name))
        known._known, known._first_contacts = frozenset(known_counterparties), None
        return known

    def _counterparties(self) -> dict[AddressKey, list[int]]:
        """Each counterparty's positions in time order (rule 19), built on first use."""
        if self._by_counterparty is None:
            by_counterparty: dict[AddressKey, list[int]] = {}
            for position, key in enumerate(self.transactions.keys):
                by_counterparty.setdefault(key, []).append(position)
            self._by_counterparty = by_counterparty
        return self._by_counterparty

    def first_contacts(self) -> frozenset[str]:
        """Ids of the transfers that were the entity's first with their counterparty, one not known
        from before the span (rule 14), found on first use."""
        if self._first_contacts is None:
            keys, ids = self.transactions.keys, self.transactions.ids
            # A dict of the reversed (key, position) pairs keeps each key's first position (in C).
            first = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1), strict=True))
            self._first_contacts = frozenset(ids[position] for key, position in first.items() if key not in self._known)
        return self._first_contacts

    def _earliest(self) -> datetime | None:
        # Older activity exists but its start is unknown: its latest moment is a conservative lower bound.
        if self.earlier_activity_at:
            return self.earlier_activity_at
        firsts = [at[0] for at in (self._tx_at, self._fiat_at) if at]
        return EPOCH + min(firsts) * ONE_MICROSECOND if firsts else None

    def __contains__(self, event: Event) -> bool:
        index = self._tx_index if isinstance(event, Transaction) else self._fiat_index
        return event.id in index

    def including(self, event: Event) -> EntityHistory:
        """A copy with the event added (when storage evaluates an event it has not loaded): O(n)."""
        self.load_earlier()
        txs, fiat = list(self.transactions), list(self.fiat_events)
        (txs if isinstance(event, Transaction) else fiat).append(event)
        return EntityHistory(
            txs,
            fiat,
            earlier_activity_at=self.earlier_activity_at,
            first_activity_at=self.first_activity_at,
            known_counterparties=self._known,
        )

    def view_at(self, event: Event) -> HistoryView:
        history = self if event in self else self.including(event)
        return HistoryView(history, event)


class HistoryView:
    """The history as it stood when `event` happened: windows end at the event (inclusive) and reach back.

    Same-channel events are cut at the event's position; the other channel stops strictly before its
    timestamp. Window starts are inclusive: with a 24 h window an event exactly 24 h earlier counts.
    Results are cached per view, because the 50 rules ask for the same few windows.
    """

    __slots__ = ("_cache", "_fiat_end", "_fiat_prior", "_h", "_prepended", "_tx_end", "_tx_prior", "at", "at_us", "event")

    def __init__(self, history: EntityHistory, event: Event) -> None:
        self._h, self.event, self.at = history, event, event.timestamp
        self.at_us = micros(event.timestamp)
        self._cache: dict[tuple, Any] = {}
        if isinstance(event, Transaction):
            self._tx_prior = history._tx_index[event.id]
            self._tx_end = self._tx_prior + 1
            self._fiat_prior = self._fiat_end = bisect_left(history._fiat_at, self.at_us)
        else:
            self._fiat_prior = history._fiat_index[event.id]
            self._fiat_end = self._fiat_prior + 1
            self._tx_prior = self._tx_end = bisect_left(history._tx_at, self.at_us)
        self._prepended = history._prepended

    @property
    def history(self) -> EntityHistory:
        return self._h

    def _rows_since(self, since_us: int | None) -> None:
        """Make sure the history holds the transfers from `since_us` on as rows (None: all of them)."""
        h = self._h
        if since_us is None or not h.covers(since_us):
            h.load_earlier()
        self._follow()

    def _follow(self) -> None:
        """Positions move by the transfers the history put before its rows since this view was made."""
        moved = self._h._prepended - self._prepended
        if moved:
            self._tx_prior, self._tx_end, self._prepended = self._tx_prior + moved, self._tx_end + moved, self._h._prepended

    def transactions(self, *, hours: int = 0, days: int = 0, direction: Direction | None = None) -> Sequence[Transaction]:
        """Transactions in [event time − window, event], optionally of one direction, in time order."""
        key = (TRANSACTION, hours, days, direction)
        found = self._cache.get(key)
        if found is None:  # (the rules ask for a few windows about 4,000 times a batch: the steps are inlined)
            h, since = self._h, self.at_us - hours * MICROS_PER_HOUR - days * MICROS_PER_DAY
            if h._rows_from is not None and since < h._rows_from:
                h.load_earlier()
            if h._prepended != self._prepended:
                self._follow()
            window = h.transactions.window(bisect_left(h._tx_at, since, 0, self._tx_end), self._tx_end)
            found = self._cache[key] = window if direction is None else [tx for tx in window if tx.direction == direction]
        return found

    def fiat_events(self, *, hours: int = 0, days: int = 0, types: frozenset[str] | None = None) -> Sequence[FiatEvent]:
        """Fiat events in [event time − window, event], optionally of some event types, in time order."""
        key = ("fiat", hours, days, types)
        if key not in self._cache:
            lo = bisect_left(self._h._fiat_at, self.at_us - span(hours=hours, days=days), 0, self._fiat_end)
            window = self._h.fiat_events[lo : self._fiat_end]
            self._cache[key] = window if types is None else [ev for ev in window if ev.event_type in types]
        return self._cache[key]

    def transaction_volume(self, *, hours: int = 0, days: int = 0, ending_hours_ago: int = 0) -> Volume:
        """USD moved in transactions (own-wallet transfers excluded) over the window.

        With `ending_hours_ago` the window ends that long before the event (exclusive), e.g. a baseline.
        """
        key = ("volume", hours, days, ending_hours_ago)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._transaction_volume(hours * MICROS_PER_HOUR + days * MICROS_PER_DAY, ending_hours_ago)
        return found

    def _transaction_volume(self, width: int, ending_hours_ago: int) -> Volume:
        h = self._h
        if h._prepended != self._prepended:
            self._follow()
        stop = self.at_us - ending_hours_ago * MICROS_PER_HOUR
        if h._rows_from is not None and stop - width < h._rows_from:
            # It reaches before the loaded rows: their sums answer, unless an edge splits a sum.
            far = h._far.between(stop - width, min(stop, h._rows_from))
            if far is not None:
                near = self._volume(h._tx_at, h._tx_volume, self._tx_end, width, ending_hours_ago)
                return Volume(far.usd + near.usd, far.events + near.events, far.unpriced + near.unpriced)
            self._rows_since(None)
        return self._volume(h._tx_at, h._tx_volume, self._tx_end, width, ending_hours_ago)

    def fiat_volume(self, *, hours: int = 0, days: int = 0) -> Volume:
        return self._volume(self._h._fiat_at, self._h._fiat_volume, self._fiat_end, span(hours=hours, days=days), 0)

    def _volume(self, times: list[int], running: _RunningVolume, end: int, width: int, ending_hours_ago: int) -> Volume:
        stop = self.at_us - ending_hours_ago * MICROS_PER_HOUR
        hi = end if not ending_hours_ago else bisect_left(times, stop, 0, end)
        return running.between(bisect_left(times, stop - width, 0, hi), hi)

    def all_channels_volume(self, *, days: int) -> Volume:
        crypto, fiat = self.transaction_volume(days=days), self.fiat_volume(days=days)
        return Volume(crypto.usd + fiat.usd, crypto.events + fiat.events, crypto.unpriced + fiat.unpriced)

    def previous_activity_at(self) -> datetime | None:
        """When the entity was last active before this event, on any channel."""
        self._follow()
        candidates = [self._h.earlier_activity_at] if self._h.earlier_activity_at else []
        if self._tx_prior:
            candidates.append(self._h.transactions[self._tx_prior - 1].timestamp)
        if self._fiat_prior:
            candidates.append(self._h.fiat_events[self._fiat_prior - 1].timestamp)
        return max(candidates, default=None)

    def transactions_with(self, counterparty: AddressKey, *, days: int) -> list[Transaction]:
        """Transactions with one counterparty in the window, through a per-counterparty index."""
        since = self.at_us - span(days=days)
        self._rows_since(since)
        positions = self._h._counterparties().get(counterparty, [])
        first = bisect_left(self._h._tx_at, since, 0, self._tx_end)
        start, stop = bisect_left(positions, first), bisect_left(positions, self._tx_end)
        return [self._h.transactions[i] for i in positions[start:stop]]

    def earlier_transactions(self) -> Sequence[Transaction]:
        """Every loaded transaction before this event (the whole span)."""
        self._rows_since(None)
        return self._h.transactions[: self._tx_prior]

    def is_first_contact(self, tx: Transaction) -> bool:
        """The entity had not dealt with this counterparty before this transaction (as far as storage knows)."""
        return tx.id in self._h.first_contacts()


# --- What a rule returns --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hit:
    """The rule fired: the measured values that crossed its parameters and the events involved."""

    measured: Mapping[str, Any]
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Skip:
    """The rule could not be evaluated (e.g. no USD price); recorded, distinct from "no hit"."""

    reason: str


Outcome = Hit | Skip | None


def hit(events: Iterable[Event], **measured: Any) -> Hit:
    return Hit(measured, tuple(events))


def no_price(event: Event) -> Skip:
    label = event.asset if isinstance(event, Transaction) else event.currency
    return Skip(f"no USD price for {label or 'the asset'}")


def value_at_least(event: Event, threshold: Decimal) -> Outcome:
    """The one-event value clause: the event itself is worth at least `threshold` USD."""
    if event.usd_value is None:
        return no_price(event)
    return hit((event,), usd_value=event.usd_value) if event.usd_value >= threshold else None


def count_at_least(events: Sequence[Event], min_count: int, **measured: Any) -> Outcome:
    """The count clause: at least `min_count` events in the window."""
    return hit(events, count=len(events), **measured) if len(events) >= min_count else None


def either(*outcomes: Outcome) -> Outcome:
    """A rule with several clauses: the first hit wins; otherwise a skip (a clause could not be judged)."""
    skipped = None
    for outcome in outcomes:
        if isinstance(outcome, Hit):
            return outcome
        skipped = skipped or outcome
    return skipped


@dataclass(frozen=True, slots=True)
class RuleInput:
    """Everything one rule may read for one event."""

    event: Event
    context: EntityContext
    history: HistoryView
    _found: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def counterparty_entity_id(self) -> str | None:
        """The customer on the other side of the evaluated transfer (OrgNetwork.counterparty_entity_id),
        worked out once for the several rules that ask."""
        found = self._found
        if "entity" not in found:
            found["entity"] = self.context.network.counterparty_entity_id(self.event)
        return found["entity"]

    def counterparty_tags(self) -> frozenset[str]:
        """The organization's tags of the evaluated transfer's counterparty (OrgLists.tags_for), once
        for the several rules that ask."""
        found = self._found
        if "tags" not in found:
            tx = self.event
            found["tags"] = self.context.lists.tags_for(tx.chain_id, tx.counterparty_address)
        return found["tags"]

    @property
    def entity(self) -> Entity:
        return self.context.entity

    @property
    def lists(self) -> OrgLists:
        return self.context.lists

    @property
    def network(self) -> OrgNetwork:
        return self.context.network


@dataclass(frozen=True, slots=True, kw_only=True)
class EntityContext:
    """Built by storage once per entity per batch; the engine evaluates every event of the entity against it."""

    entity: Entity
    history: EntityHistory = field(default_factory=EntityHistory)
    own_wallets: frozenset[AddressKey] = frozenset()
    wallet_first_seen: Mapping[AddressKey, datetime] = field(default_factory=dict)
    lists: OrgLists = field(default_factory=OrgLists)
    network: OrgNetwork = field(default_factory=OrgNetwork)

    def input_for(self, event: Event) -> RuleInput:
        return RuleInput(event, self, self.history.view_at(event))


# --- Shared aggregation helpers -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UsdBand:
    """floor ≤ value < ceiling (or ≤ ceiling when inclusive); an unpriced value is never in the band."""

    floor: Decimal
    ceiling: Decimal
    ceiling_inclusive: bool = False

    def holds(self, value: Decimal | None) -> bool:
        if value is None or value < self.floor:
            return False
        return value <= self.ceiling if self.ceiling_inclusive else value < self.ceiling


def percent_of(value: Decimal, pct: Decimal) -> Decimal:
    return value * pct / 100


def usd_total(events: Iterable[Event]) -> Volume:
    total, priced, unpriced = Decimal(0), 0, 0
    for event in events:
        if event.usd_value is None:
            unpriced += 1
        else:
            total, priced = total + event.usd_value, priced + 1
    return Volume(total, priced, unpriced)


def address_label(key: AddressKey) -> str:
    chain_id, address = key
    return f"{chain_id}:{address}" if chain_id is not None else address


def normalize_party(name: str | None) -> str:
    """A counterparty or merchant name compared loosely: case, spacing and punctuation ignored."""
    return " ".join("".join(ch if ch.isalnum() else " " for ch in (name or "").casefold()).split())


WIDE = Context(prec=200)  # quantizing a huge ratio must not overflow the default 28 digits


def rounded(value: Decimal, places: str = "0.0001") -> Decimal:
    return value.quantize(Decimal(places), context=WIDE)


def ratio(part: Decimal | int, whole: Decimal | int) -> Decimal:
    return rounded(WIDE.divide(Decimal(part), Decimal(whole))) if whole else Decimal(0)


@dataclass(frozen=True, slots=True)
class PassThrough:
    """An inflow and the later outflows that carried most of it away (layering, mirroring)."""

    inflow: Event
    outflows: tuple[Event, ...]
    outflow_usd: Decimal

    @property
    def share(self) -> Decimal:
        return ratio(self.outflow_usd, self.inflow.usd_value or Decimal(0))

    def measured(self) -> dict[str, Any]:
        return {
            "inflow_id": self.inflow.id, "inflow_usd": self.inflow.usd_value, "inflow_at": self.inflow.timestamp,
            "outflow_usd": self.outflow_usd, "outflow_count": len(self.outflows), "outflow_share": self.share,
        }  # fmt: skip


def latest_pass_through(inflows: Sequence[Event], outflows: Sequence[Event], min_pct: Decimal) -> PassThrough | None:
    """The most recent priced inflow whose later outflows (up to now) total ≥ min_pct of it.

    Both sequences in time order; one backward sweep, so the cost is linear in the window.
    """
    taken, total, j = [], Decimal(0), len(outflows)
    for inflow in reversed(inflows):
        while j and outflows[j - 1].timestamp >= inflow.timestamp:
            j -= 1
            if outflows[j].usd_value is not None:
                total += outflows[j].usd_value
                taken.append(outflows[j])
        if inflow.usd_value and total >= percent_of(inflow.usd_value, min_pct):
            return PassThrough(inflow, tuple(reversed(taken)), total)
    return None


def pass_through_episodes(inflows: Sequence[Event], outflows: Sequence[Event], min_pct: Decimal, follow_us: int) -> list[PassThrough]:
    """Episodes, oldest inflow first, of an inflow drained by ≥ min_pct within `follow_us` after it.

    Each outflow drains one inflow at most: two deposits made close together and drained by
    outflows of their own are two episodes, one outflow that drains both is one. Inflows take the
    earliest outflows not yet taken, in time order.
    """
    episodes: list[PassThrough] = []
    taken: set[str] = set()
    for inflow in inflows:
        if not inflow.usd_value:
            continue
        episode = _drain(inflow, outflows, percent_of(inflow.usd_value, min_pct), micros(inflow.timestamp) + follow_us, taken)
        if episode:
            episodes.append(episode)
            taken.update(outflow.id for outflow in episode.outflows)
    return episodes


def _drain(inflow: Event, outflows: Sequence[Event], needed: Decimal, until_us: int, taken: set[str]) -> PassThrough | None:
    drained, total = [], Decimal(0)
    for outflow in outflows:
        if outflow.timestamp < inflow.timestamp or outflow.usd_value is None or outflow.id in taken:
            continue
        if micros(outflow.timestamp) > until_us:
            break
        drained.append(outflow)
        total += outflow.usd_value
        if total >= needed:
            return PassThrough(inflow, tuple(drained), total)
    return None


def business_day(ts: datetime, zone: ZoneInfo, closed_days: frozenset[date]) -> date:
    """The business day an event posts to: its local date, rolled past weekends and closed days.

    31 CFR 1010.313 aggregates per business day; a Saturday deposit posts on Monday.
    """
    day = ts.astimezone(zone).date()
    while day.weekday() >= 5 or day in closed_days:
        day += timedelta(days=1)
    return day


def json_ready(value: Any) -> Any:
    """Evidence as JSON: Decimals as strings, datetimes ISO 8601, sets sorted, events by id."""
    if value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, Decimal):
        return format(value, "f")  # never exponent notation: 1E+1 reads as "10"
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(key): json_ready(item) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        return sorted(json_ready(item) for item in value)
    if isinstance(value, list | tuple):
        return [json_ready(item) for item in value]
    if isinstance(value, Transaction | FiatEvent):
        return value.id
    return value
