"""The catalogue of the 53 rules: metadata, parameter schemas and override validation.

`validate_overrides` is what `PATCH /v1/monitoring/rules/{id}` calls; `describe` is what
`GET /v1/monitoring/rules` lists. Parameters hold typed values (Decimal, int, frozenset, date);
`params_json` gives their JSON form for storage and evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from monitoring.rules import card, check, cross_channel, fiat, network, transactions
from monitoring.rules.context import (
    ACH_EVENTS,
    CARD_ATM,
    CARD_EVENTS,
    CARD_LOAD,
    CARD_PURCHASE,
    CARD_REFUND,
    CHECK_DEPOSIT,
    CHECK_PURCHASE,
    CHECK_TYPES,
    EVENT_KINDS,
    FIAT_EVENT_TYPES,
    FIAT_INFLOWS,
    FIAT_OUTFLOWS,
    TRANSACTION,
    WIRE_EVENTS,
    Outcome,
    Params,
    RuleInput,
    json_ready,
)


class Family(StrEnum):
    TRANSACTIONS = "transactions"
    FIAT = "fiat"
    CROSS_CHANNEL = "cross_channel"
    CARD = "card"
    CHECK = "check"


class Severity(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


# What one hit adds to the entity risk score, by the rule's default severity.
SEVERITY_SCORE = {Severity.LOW: 5, Severity.MEDIUM: 10, Severity.HIGH: 20, Severity.CRITICAL: 40}

ParamKind = Literal["decimal", "integer", "hours", "days", "percent", "strings", "text", "timezone", "dates"]
Channel = Literal["transactions", "fiat"]
NON_FIELD = "non_field_errors"


class InvalidParameters(ValueError):
    def __init__(self, errors: Mapping[str, list[str]]) -> None:
        super().__init__(errors)
        self.errors = dict(errors)


# --- Parameters -----------------------------------------------------------------------------------------


NOT_A_NUMBER = "must be a number: digits and an optional decimal point (10000 or 2.5), no thousands separators"
MAX_WHOLE_DIGITS = 78
"""uint256's: no amount, value or count the rules compare can be larger. Checked before the value
is written out in plain notation, which for "1e999999999" would be a billion-digit string."""


def _to_decimal(raw: Any) -> Decimal:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str | Decimal):
        raise ValueError(NOT_A_NUMBER)
    try:
        value = Decimal(str(raw).strip()) if not isinstance(raw, Decimal) else raw
    except InvalidOperation:
        raise ValueError(NOT_A_NUMBER) from None
    if not value.is_finite():
        raise ValueError("must be a finite number")
    if value and value.adjusted() >= MAX_WHOLE_DIGITS:
        raise ValueError(f"must have at most {MAX_WHOLE_DIGITS} digits before the decimal point")
    # Plain notation whatever was sent (1e5 is stored and shown as 100000).
    return Decimal(format(value, "f")) if value.as_tuple().exponent > 0 else value


def _to_integer(raw: Any) -> int:
    value = _to_decimal(raw)
    if value != value.to_integral_value():
        raise ValueError("must be a whole number")
    return int(value)


def _to_strings(raw: Any) -> frozenset[str]:
    if isinstance(raw, str) or not isinstance(raw, list | tuple | set | frozenset):
        raise ValueError("must be a list of strings")
    if not all(isinstance(item, str) and item.strip() for item in raw):
        raise ValueError("every item must be a non-empty string")
    return frozenset(item.strip() for item in raw)


def _to_dates(raw: Any) -> frozenset[date]:
    try:
        return frozenset(date.fromisoformat(item) for item in _to_strings(raw))
    except ValueError:
        raise ValueError("every item must be a date YYYY-MM-DD") from None


def _to_text(raw: Any) -> str:
    if not isinstance(raw, str):
        raise ValueError("must be a string")
    return raw.strip()


def _to_timezone(raw: Any) -> str:
    name = _to_text(raw)
    try:
        name and ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError("must be an IANA time zone such as America/New_York, or empty") from None
    return name


_PARSERS: dict[str, Callable[[Any], Any]] = {
    "decimal": _to_decimal, "percent": _to_decimal, "integer": _to_integer, "hours": _to_integer, "days": _to_integer,
    "strings": _to_strings, "dates": _to_dates, "text": _to_text, "timezone": _to_timezone,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Param:
    """One tunable parameter of a rule, with its type, bounds and allowed values."""

    name: str
    kind: ParamKind
    default: Any
    description: str
    minimum: Decimal | int | None = None
    maximum: Decimal | int | None = None
    choices: tuple[str, ...] | None = None
    allow_empty: bool = False

    def clean(self, raw: Any) -> Any:
        """The typed value, or ValueError with a message for the API."""
        value = _PARSERS[self.kind](raw)
        self._check_bounds(value)
        if isinstance(value, frozenset):
            self._check_items(value)
        return value

    def _check_bounds(self, value: Any) -> None:
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"must be at least {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"must be at most {self.maximum}")

    def _check_items(self, value: frozenset) -> None:
        if not value and not self.allow_empty:
            raise ValueError("must not be empty")
        unknown = sorted(str(item) for item in value if self.choices and item not in self.choices)
        if unknown:
            raise ValueError(f"unknown values {unknown}; allowed: {list(self.choices or ())}")

    def schema(self) -> dict[str, Any]:
        described = {"name": self.name, "type": self.kind, "default": json_ready(self.default), "description": self.description}
        bounds = {"minimum": self.minimum, "maximum": self.maximum, "choices": self.choices}
        described.update({key: json_ready(value) for key, value in bounds.items() if value is not None})
        return described


def usd(name: str, default: str, description: str, *, minimum: str = "0") -> Param:
    return Param(name, "decimal", Decimal(default), description, minimum=Decimal(minimum))


def amount(name: str, default: str, description: str) -> Param:
    """An amount in the event's own currency (no conversion)."""
    return Param(name, "decimal", Decimal(default), description, minimum=Decimal("0.01"))


def pct(name: str, default: str, description: str) -> Param:
    return Param(name, "percent", Decimal(default), description, minimum=Decimal("0.01"), maximum=Decimal(100))


def multiple(name: str, default: str, description: str) -> Param:
    return Param(name, "decimal", Decimal(default), description, minimum=Decimal("0.01"), maximum=Decimal(1000))


def count(name: str, default: int, description: str, *, minimum: int = 1) -> Param:
    return Param(name, "integer", default, description, minimum=minimum, maximum=100_000)


def hours(name: str, default: int, description: str = "window length in hours") -> Param:
    return Param(name, "hours", default, description, minimum=1, maximum=24 * 366)


def days(name: str, default: int, description: str = "window length in days") -> Param:
    return Param(name, "days", default, description, minimum=1, maximum=3660)


def strings(name: str, default: Iterable[str], description: str, *, choices: Iterable[str] | None = None) -> Param:
    return Param(name, "strings", frozenset(default), description, choices=tuple(choices) if choices else None)


# --- Rules ----------------------------------------------------------------------------------------------

Check = Callable[[RuleInput, Params], Outcome]


@dataclass(frozen=True, slots=True)
class Rule:
    number: int
    code: str
    family: Family
    severity: Severity
    fires_when: str
    typology: str
    check: Check
    applies_to: frozenset[str]
    params: tuple[Param, ...] = ()
    reads: frozenset[Channel] = frozenset()
    value_based: bool = False
    reach: Callable[[Params], timedelta] | None = None
    constraint: Callable[[Params], str | None] | None = None

    @property
    def score(self) -> int:
        return SEVERITY_SCORE[self.severity]

    @property
    def defaults(self) -> dict[str, Any]:
        return {param.name: param.default for param in self.params}

    def validate_overrides(self, overrides: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, list[str]]]:
        """(clean overrides, None-free) or (None, errors by parameter name; cross-parameter errors under non_field_errors).

        Pass the complete set of overrides the organization will have; a value of None resets to the default.
        """
        by_name = {param.name: param for param in self.params}
        clean, errors = {}, {}
        for name, raw in overrides.items():
            if name not in by_name:
                errors[name] = [f"unknown parameter; {self.code} takes {sorted(by_name) or 'none'}"]
            elif raw is not None:
                try:
                    clean[name] = by_name[name].clean(raw)
                except ValueError as exc:
                    errors[name] = [str(exc)]
        problem = None if errors or not self.constraint else self.constraint({**self.defaults, **clean})
        if problem:
            errors[NON_FIELD] = [problem]
        return (None, errors) if errors else (clean, {})

    def effective_params(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        clean, errors = self.validate_overrides(overrides or {})
        if errors:
            raise InvalidParameters(errors)
        return {**self.defaults, **clean}

    def fires_when_with(self, params: Mapping[str, Any]) -> str:
        """The definition for the parameters in force: `fires_when` states the defaults, so a changed
        parameter is named with its value ('… by default; here window_hours 48') rather than hidden."""
        defaults = self.params_json(self.defaults)
        changed = {name: value for name, value in self.params_json(params).items() if defaults.get(name) != value}
        if not changed:
            return self.fires_when
        return self.fires_when + " by default; here " + ", ".join(f"{name} {_shown(value)}" for name, value in changed.items())

    def params_json(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {name: json_ready(value) for name, value in params.items()}

    def lookback(self, params: Mapping[str, Any]) -> timedelta:
        """How much history before an event the rule reads (the longest of its windows, unless it says otherwise)."""
        if self.reach:
            return self.reach(params)
        windows = [duration(param.kind, params[param.name]) for param in self.params if param.kind in ("hours", "days")]
        return max(windows, default=timedelta(0))

    def describe(self) -> dict[str, Any]:
        return {
            "number": self.number, "code": self.code, "family": str(self.family), "severity": str(self.severity),
            "score": self.score, "fires_when": self.fires_when, "typology": self.typology, "value_based": self.value_based,
            "applies_to": sorted(self.applies_to), "defaults": self.params_json(self.defaults),
            "parameters": [param.schema() for param in self.params],
        }  # fmt: skip


def _shown(value: Any) -> str:
    return ", ".join(str(item) for item in value) if isinstance(value, list) else str(value)


def duration(kind: str, value: int) -> timedelta:
    return timedelta(hours=value) if kind == "hours" else timedelta(days=value)


def _below(low: str, high: str) -> Callable[[Params], str | None]:
    return lambda p: f"{low} must be below {high}" if p[low] >= p[high] else None


TX = frozenset({TRANSACTION})
FIAT = frozenset(FIAT_EVENT_TYPES)
TXS: frozenset[Channel] = frozenset({"transactions"})
FIATS: frozenset[Channel] = frozenset({"fiat"})
BOTH: frozenset[Channel] = frozenset({"transactions", "fiat"})
MIXERS = ("mixer",)
ILLICIT = ("darknet", "ransomware", "scam", "stolen_funds", "terrorist_financing")
SERVICES = ("exchange", "vasp", "custodian", "payment_processor", "merchant", "bridge", "defi")
# The address-tag categories an organization may load (docs/rules.md, "Default lists"): those the rules
# name, and `sanctions`, as loaded OFAC digital-currency addresses count (rule 2).
TAG_CATEGORIES = ("sanctions", *MIXERS, *ILLICIT, *SERVICES)
SERVICE_HELP = "address-tag categories that identify a known service (VASP or business)"

RULES: tuple[Rule, ...] = (
    # --- 1–23 Transactions ---
    Rule(1, "large_transfer", Family.TRANSACTIONS, Severity.MEDIUM, "one transfer ≥ 10,000 USD",
         "large-value reporting thresholds", transactions.large_transfer, TX, value_based=True,
         params=(usd("threshold_usd", "10000", "smallest transfer that alerts"),)),
    Rule(2, "sanctioned_counterparty", Family.TRANSACTIONS, Severity.CRITICAL,
         "counterparty address is on a loaded sanctions list or the org's block list",
         "OFAC SDN digital-currency addresses", transactions.sanctioned_counterparty, TX),
    Rule(3, "structuring_below_threshold", Family.TRANSACTIONS, Severity.HIGH,
         "≥ 3 transfers each 80–99.99 % of 10,000 USD within 24 h, same direction",
         "FATF: splitting to stay under thresholds", transactions.structuring_below_threshold, TX, reads=TXS, value_based=True,
         params=(usd("threshold_usd", "10000", "the threshold being avoided; transfers at or above it do not count", minimum="1"),
                 pct("band_floor_pct", "80", "a transfer counts from this share of the threshold up to just below it"),
                 count("min_count", 3, "transfers in the band, this one included"), hours("window_hours", 24)),
         constraint=lambda p: "band_floor_pct must be below 100" if p["band_floor_pct"] >= 100 else None),
    Rule(4, "rapid_pass_through", Family.TRANSACTIONS, Severity.HIGH,
         "inbound transfers (≥ 1,000 USD) followed within 24 h by ≤ 3 outbound transfers totalling 90–110 % of them",
         "mirroring / pass-through (layering)", transactions.rapid_pass_through, TX, reads=TXS, value_based=True,
         params=(hours("window_hours", 24), pct("min_outflow_pct", "90", "outflows as a share of the inbound transfer"),
                 Param("max_outflow_pct", "percent", Decimal(110), "outflows above this share of the inflow are not its pass-through",
                       minimum=Decimal(1), maximum=Decimal(1000)),
                 count("max_outflows", 3, "most outflows that pass one inflow on (a spending spree is not a pass-through)"),
                 usd("min_inflow_usd", "1000", "smaller inflows (together) are not followed")),
         constraint=_below("min_outflow_pct", "max_outflow_pct")),
    Rule(5, "high_velocity", Family.TRANSACTIONS, Severity.MEDIUM, "≥ 20 transfers in 1 h, or ≥ 100 in 24 h",
         "velocity burst", transactions.high_velocity, TX, reads=TXS,
         params=(count("short_min_count", 20, "transfers in the short window"), hours("short_window_hours", 1),
                 count("long_min_count", 100, "transfers in the long window"), hours("long_window_hours", 24))),
    Rule(6, "fan_in", Family.TRANSACTIONS, Severity.MEDIUM,
         "≥ 8 distinct senders pay the entity ≥ 10,000 USD within 72 h and ≥ 80 % of it leaves within the window (≤ 200 senders)",
         "convergence, gather (collection account)", network.fan_in, TX, reads=TXS, value_based=True,
         params=(count("min_senders", 8, "distinct sending addresses in the window"), hours("window_hours", 72),
                 usd("min_inflow_usd", "10000", "the inflows of the window must reach this"),
                 pct("min_outflow_pct", "80", "outflows after the first inflow, as a share of the inflows"),
                 count("max_senders", 200, "degree bound: above it the account is a hub and is skipped"))),
    Rule(7, "fan_out", Family.TRANSACTIONS, Severity.MEDIUM,
         "≥ 4 distinct recipients paid ≥ 10,000 USD within 72 h, 80–110 % of what came in over the 72 h before (≤ 200 recipients)",
         "divergence, scatter (distribution account)", network.fan_out, TX, reads=TXS, value_based=True,
         params=(count("min_recipients", 4, "distinct receiving addresses in the window"), hours("window_hours", 72),
                 usd("min_outflow_usd", "10000", "the outflows of the window must reach this"),
                 hours("funding_hours", 72, "how long before the first outflow the funding inflows count"),
                 pct("min_outflow_pct", "80", "outflows as a share of the funding inflows, at least"),
                 Param("max_outflow_pct", "percent", Decimal(110), "outflows as a share of the funding inflows, at most",
                       minimum=Decimal(1), maximum=Decimal(1000)),
                 count("max_recipients", 200, "degree bound: above it the account is a hub and is skipped")),
         constraint=_below("min_outflow_pct", "max_outflow_pct"),
         reach=lambda p: timedelta(hours=p["window_hours"] + p["funding_hours"])),  # the funding before the window
    Rule(8, "round_amounts", Family.TRANSACTIONS, Severity.LOW,
         "≥ 3 transfers of round value (multiple of 1,000 USD, ≥ 5,000 USD) within 7 days",
         "round-figure layering", transactions.round_amounts, TX, reads=TXS, value_based=True,
         params=(usd("round_unit_usd", "1000", "a round value is a multiple of this", minimum="0.01"),
                 usd("min_amount_usd", "5000", "smallest round value that counts"),
                 count("min_count", 3, "round transfers, this one included"), days("window_days", 7))),
    Rule(9, "new_wallet_large_transfer", Family.TRANSACTIONS, Severity.MEDIUM,
         "the wallet was first seen < 7 days ago and moves ≥ 5,000 USD",
         "FATF: large first deposit out of profile", transactions.new_wallet_large_transfer, TX, value_based=True,
         params=(days("max_wallet_age_days", 7, "a wallet first seen less than this long ago is new"),
                 usd("threshold_usd", "5000", "smallest transfer that alerts"))),
    Rule(10, "dormant_reactivation", Family.TRANSACTIONS, Severity.MEDIUM,
         "no activity for ≥ 180 days, then a transfer ≥ 1,000 USD",
         "dormant account reactivated", transactions.dormant_reactivation, TX, value_based=True,
         params=(days("dormant_days", 180, "days without activity (or since onboarding) that make the entity dormant"),
                 usd("threshold_usd", "1000", "smallest reactivating transfer that alerts")),
         reach=lambda p: timedelta(0)),
    Rule(11, "mixer_exposure", Family.TRANSACTIONS, Severity.HIGH, "counterparty is tagged `mixer` in the address-tag list",
         "FATF: mixers and tumblers", transactions.mixer_exposure, TX,
         params=(strings("categories", MIXERS, "address-tag categories treated as mixers"),)),
    Rule(12, "illicit_category_exposure", Family.TRANSACTIONS, Severity.CRITICAL,
         "counterparty is tagged darknet, ransomware, scam, stolen_funds or terrorist_financing",
         "direct exposure to illicit services", transactions.illicit_category_exposure, TX,
         params=(strings("categories", ILLICIT, "address-tag categories treated as illicit services"),)),
    Rule(13, "privacy_asset", Family.TRANSACTIONS, Severity.MEDIUM, "asset is in the privacy-asset list (XMR, ZEC, DASH by default)",
         "FATF: anonymity-enhanced coins", transactions.privacy_asset, TX),
    Rule(14, "peel_chain", Family.TRANSACTIONS, Severity.MEDIUM,
         "≥ 4 outbound transfers within 24 h to previously unseen counterparties, each smaller than the last",
         "peel chain", transactions.peel_chain, TX, reads=TXS, value_based=True,
         params=(count("min_count", 4, "successively smaller transfers to new counterparties", minimum=2), hours("window_hours", 24))),
    Rule(15, "cyclic_flow", Family.TRANSACTIONS, Severity.HIGH,
         "value leaves a wallet and returns to it through ≤ 6 hops among known wallets within 7 days, each hop ≥ 70 % of the first",
         "cycle / round-tripping", transactions.cyclic_flow, TX, value_based=True,
         params=(Param("max_hops", "integer", 6, "most transfers in the cycle, the return included", minimum=2, maximum=8),
                 days("window_days", 7), pct("min_hop_pct", "70", "each hop's value as a share of the first hop (amount preserved)"),
                 count("max_transfers_examined", 5000, "search budget per evaluation; past it the rule skips and says so",
                       minimum=100)),
         reach=lambda p: timedelta(0)),
    Rule(16, "unhosted_large_transfer", Family.TRANSACTIONS, Severity.LOW,
         "on-chain counterparty is neither a registered wallet nor a known service, value ≥ 1,000 USD",
         "unhosted-wallet transfers (EU TFR threshold)", transactions.unhosted_large_transfer, TX, value_based=True,
         params=(usd("threshold_usd", "1000", "smallest transfer that alerts"), strings("service_categories", SERVICES, SERVICE_HELP))),
    Rule(17, "own_wallet_layering", Family.TRANSACTIONS, Severity.LOW, "≥ 5 transfers between the entity's own wallets within 24 h",
         "self-layering", transactions.own_wallet_layering, TX, reads=TXS,
         params=(count("min_count", 5, "own-wallet transfers, this one included"), hours("window_hours", 24))),
    Rule(18, "volume_spike", Family.TRANSACTIONS, Severity.MEDIUM,
         "24 h volume ≥ 5 × the entity's 30-day daily average and ≥ 5,000 USD (needs ≥ 7 days and ≥ 20 transfers of history)",
         "sudden activity increase", transactions.volume_spike, TX, reads=TXS, value_based=True,
         params=(multiple("multiplier", "5", "window volume as a multiple of the baseline daily average"),
                 hours("window_hours", 24), days("baseline_days", 30, "days before the window that make the baseline"),
                 days("min_history_days", 7, "days of history the baseline needs"),
                 usd("min_window_usd", "5000", "a window volume below this is never a spike"),
                 count("min_history_transfers", 20, "priced transfers the baseline needs (a sparse account has no daily profile)",
                       minimum=0)),
         reach=lambda p: timedelta(hours=p["window_hours"], days=p["baseline_days"])),
    Rule(19, "counterparty_concentration", Family.TRANSACTIONS, Severity.LOW,
         "≥ 80 % of 30-day volume with one unregistered counterparty, volume ≥ 50,000 USD",
         "funnel account", transactions.counterparty_concentration, TX, reads=TXS, value_based=True,
         params=(pct("min_share_pct", "80", "the counterparty's share of the entity's volume"),
                 usd("min_volume_usd", "50000", "the entity's volume in the window must reach this"), days("window_days", 30))),
    Rule(20, "chain_hopping", Family.TRANSACTIONS, Severity.MEDIUM, "the entity moves ≥ 10,000 USD on ≥ 3 different chains within 24 h",
         "chain hopping", transactions.chain_hopping, TX, reads=TXS, value_based=True,
         params=(usd("min_volume_usd", "10000", "total moved across the chains"), count("min_chains", 3, "distinct chains", minimum=2),
                 hours("window_hours", 24))),
    Rule(21, "travel_rule_missing", Family.TRANSACTIONS, Severity.HIGH,
         "transfer ≥ 3,000 USD with a counterparty that is another customer or known service, and no travel-rule record",
         "FinCEN funds-travel rule, FATF R.16", transactions.travel_rule_missing, TX, value_based=True,
         params=(usd("threshold_usd", "3000", "smallest transfer that needs travel-rule data"),
                 strings("service_categories", SERVICES, SERVICE_HELP))),
    Rule(22, "high_risk_jurisdiction", Family.TRANSACTIONS, Severity.HIGH,
         "the entity or a counterparty customer is in the high-risk jurisdiction list (default KP, IR, MM)",
         "FATF call-for-action list", transactions.high_risk_jurisdiction, TX),
    Rule(23, "smurfing_inbound", Family.TRANSACTIONS, Severity.MEDIUM,
         "≥ 10 inbound transfers, each < 1,000 USD, from ≥ 5 distinct senders within 24 h, totalling ≥ 5,000 USD",
         "FATF: many small inflows then consolidation", transactions.smurfing_inbound, TX, reads=TXS, value_based=True,
         params=(count("min_count", 10, "small inbound transfers"), usd("max_amount_usd", "1000", "a small transfer is below this"),
                 count("min_senders", 5, "distinct senders"), usd("min_total_usd", "5000", "total of the small transfers"),
                 hours("window_hours", 24))),
    # --- 24–26 Fiat ---
    Rule(24, "large_fiat_transaction", Family.FIAT, Severity.MEDIUM,
         "one fiat event, or one business day's fiat events in one direction, ≥ 10,000 (USD, or CAD/AUD for CA/AU entities)",
         "31 CFR 1010.311 / .313 aggregation", fiat.large_fiat_transaction, FIAT, reads=FIATS, value_based=True,
         params=(amount("threshold", "10000", "in the reporting currency: USD, CAD for CA entities, AUD for AU entities"),
                 Param("business_day_timezone", "timezone", "", "time zone of the business day; empty: by the entity's jurisdiction"),
                 Param("closed_days", "dates", frozenset(), "bank holidays (YYYY-MM-DD): events post to the next business day",
                       allow_empty=True)),
         reach=lambda p: timedelta(days=fiat.business_day_reach(p))),
    Rule(25, "fiat_structuring", Family.FIAT, Severity.HIGH,
         "≥ 2 inbound fiat events of 3,000–9,999.99 within 24 h summing ≥ 10,000, or ≥ 3 within 5 days",
         "structuring under the CTR threshold", fiat.fiat_structuring, FIAT_INFLOWS, reads=FIATS, value_based=True,
         params=(usd("threshold_usd", "10000", "the CTR threshold being avoided", minimum="1"),
                 usd("band_floor_usd", "3000", "an event counts from this value up to just below the threshold"),
                 count("short_min_count", 2, "events in the short window"), hours("short_window_hours", 24),
                 count("long_min_count", 3, "events in the long window"), days("long_window_days", 5)),
         constraint=_below("band_floor_usd", "threshold_usd")),
    Rule(26, "wire_layering", Family.FIAT, Severity.HIGH,
         "wire_in/ach_in followed within 3 days by wire_out/ach_out totalling ≥ 90 % of it",
         "layering: in, then ≥ 90 % out", fiat.wire_layering, frozenset(fiat.WIRE_ACH_OUT), reads=FIATS, value_based=True,
         params=(days("window_days", 3), pct("min_outflow_pct", "90", "outflows as a share of the credit"))),
    # --- 27–33 Cross-channel ---
    Rule(27, "fiat_to_crypto_rapid", Family.CROSS_CHANNEL, Severity.MEDIUM,
         "fiat inflow followed within 48 h by crypto outflow ≥ 80 % of it",
         "on-ramp pass-through", cross_channel.fiat_to_crypto_rapid, TX, reads=BOTH, value_based=True,
         params=(hours("window_hours", 48), pct("min_outflow_pct", "80", "crypto outflow as a share of the fiat inflow"))),
    Rule(28, "crypto_to_fiat_cashout", Family.CROSS_CHANNEL, Severity.MEDIUM,
         "crypto inflow followed within 48 h by wire_out/ach_out/card_atm ≥ 80 % of it",
         "FATF: cash-out to fiat", cross_channel.crypto_to_fiat_cashout, cross_channel.CASH_OUT, reads=BOTH, value_based=True,
         params=(hours("window_hours", 48), pct("min_outflow_pct", "80", "fiat outflow as a share of the crypto inflow"))),
    Rule(29, "profile_deviation", Family.CROSS_CHANNEL, Severity.MEDIUM,
         "30-day volume (all channels) > 2 × the entity's declared expected monthly volume",
         "activity inconsistent with profile", cross_channel.profile_deviation, EVENT_KINDS, reads=BOTH, value_based=True,
         params=(multiple("multiplier", "2", "volume as a multiple of the declared monthly volume"), days("window_days", 30))),
    Rule(30, "peer_group_outlier", Family.CROSS_CHANNEL, Severity.LOW,
         "30-day volume > peer-group mean + 3 σ (peer group of ≥ 5 entities, ≥ 5 of them active in the window)",
         "peer-group deviation", cross_channel.peer_group_outlier, EVENT_KINDS, reads=BOTH, value_based=True,
         params=(multiple("sigma", "3", "standard deviations above the peer mean"),
                 count("min_peer_group_size", 5, "peer groups smaller than this are not compared", minimum=2),
                 count("min_active_peers", 5, "peers with a priced event in the window needed to compare: a group without "
                       "history has no spread, and every active member would stand out"), days("window_days", 30))),
    Rule(31, "inactive_entity_activity", Family.CROSS_CHANNEL, Severity.HIGH, "any activity for an entity that is rejected or suspended",
         "activity after off-boarding", cross_channel.inactive_entity_activity, EVENT_KINDS,
         params=(strings("statuses", ("rejected", "suspended"), "entity statuses in which any activity alerts"),)),
    Rule(32, "flagged_wallet_activity", Family.CROSS_CHANNEL, Severity.HIGH,
         "the transfer touches a wallet already flagged in this organization",
         "known-bad wallet reuse", cross_channel.flagged_wallet_activity, TX),
    Rule(33, "true_positive_counterparty", Family.CROSS_CHANNEL, Severity.HIGH,
         "counterparty belongs to an entity with a true-positive alert or a filed report in the last 365 days",
         "network exposure", cross_channel.true_positive_counterparty, TX,
         params=(days("lookback_days", 365, "how recent the true positive or filing must be"),), reach=lambda p: timedelta(0)),
    # --- 34–38 Fiat ---
    Rule(34, "sanctioned_fiat_counterparty", Family.FIAT, Severity.CRITICAL,
         "counterparty_name or counterparty_bank matches a sanctions-list name (score ≥ 0.90)",
         "OFAC name screening of payments", fiat.sanctioned_fiat_counterparty, FIAT,
         params=(Param("min_score", "decimal", Decimal("0.90"), "smallest name-match score (0–1)",
                       minimum=Decimal("0.5"), maximum=Decimal(1)),)),
    Rule(35, "ach_velocity", Family.FIAT, Severity.MEDIUM, "≥ 10 ACH events in 24 h, or ≥ 30 in 7 days",
         "ACH velocity", fiat.ach_velocity, ACH_EVENTS, reads=FIATS,
         params=(count("short_min_count", 10, "ACH events in the short window"), hours("short_window_hours", 24),
                 count("long_min_count", 30, "ACH events in the long window"), days("long_window_days", 7))),
    Rule(36, "repeated_round_fiat", Family.FIAT, Severity.LOW,
         "≥ 3 fiat events of round amounts (multiple of 1,000, ≥ 3,000) within 7 days",
         "round-figure transfers", fiat.repeated_round_fiat, FIAT, reads=FIATS, value_based=True,
         params=(amount("round_unit", "1000", "a round amount is a multiple of this, in the event's own currency"),
                 usd("min_amount_usd", "3000", "smallest round event that counts, in USD"),
                 count("min_count", 3, "round events, this one included"), days("window_days", 7))),
    Rule(37, "new_counterparty_large_wire", Family.FIAT, Severity.MEDIUM,
         "wire of ≥ 10,000 with a counterparty not seen in the previous 90 days",
         "new payee, large value", fiat.new_counterparty_large_wire, WIRE_EVENTS, reads=FIATS, value_based=True,
         params=(usd("threshold_usd", "10000", "smallest wire that alerts"),
                 days("lookback_days", 90, "how long a counterparty stays known"))),
    Rule(38, "duplicate_fiat_transaction", Family.FIAT, Severity.LOW, "same event type, amount and counterparty twice within 24 h",
         "duplicate ACH / wire", fiat.duplicate_fiat_transaction, FIAT, reads=FIATS,
         params=(hours("window_hours", 24),
                 strings("event_types", FIAT_EVENT_TYPES, "fiat event types compared", choices=FIAT_EVENT_TYPES))),
    # --- 39–44 Card ---
    Rule(39, "high_risk_mcc", Family.CARD, Severity.MEDIUM,
         "card event with an MCC in the high-risk list and amount ≥ 500, or ≥ 3 such events within 7 days",
         "quasi-cash, gambling, money transfer", card.high_risk_mcc, CARD_EVENTS, reads=FIATS, value_based=True,
         params=(usd("threshold_usd", "500", "smallest single card event at a high-risk MCC that alerts"),
                 count("min_count", 3, "card events at high-risk MCCs"), days("window_days", 7))),
    Rule(40, "card_testing", Family.CARD, Severity.HIGH, "≥ 5 card purchases under 5.00 within 1 h",
         "card testing", card.card_testing, frozenset({CARD_PURCHASE}), reads=FIATS, value_based=True,
         params=(usd("max_amount_usd", "5.00", "a test purchase is below this", minimum="0.01"),
                 count("min_count", 5, "tiny purchases, this one included"), hours("window_hours", 1))),
    Rule(41, "prepaid_load_structuring", Family.CARD, Severity.HIGH,
         "prepaid card loads totalling ≥ 10,000 within 7 days, or ≥ 5 loads within 24 h",
         "prepaid access (31 CFR 1022.380)", card.prepaid_load_structuring, frozenset({CARD_LOAD}), reads=FIATS, value_based=True,
         params=(usd("total_threshold_usd", "10000", "prepaid loads adding up to this"), days("total_window_days", 7),
                 count("min_count", 5, "prepaid loads in the count window"), hours("count_window_hours", 24))),
    Rule(42, "excessive_atm", Family.CARD, Severity.MEDIUM, "≥ 5 ATM withdrawals or ≥ 3,000 within 24 h",
         "cash extraction", card.excessive_atm, frozenset({CARD_ATM}), reads=FIATS, value_based=True,
         params=(count("min_count", 5, "ATM withdrawals"), usd("total_threshold_usd", "3000", "ATM withdrawals adding up to this"),
                 hours("window_hours", 24))),
    Rule(43, "high_risk_country_card", Family.CARD, Severity.HIGH,
         "card event whose merchant country is in the high-risk jurisdiction list",
         "geography", card.high_risk_country_card, CARD_EVENTS),
    Rule(44, "refund_abuse", Family.CARD, Severity.MEDIUM,
         "≥ 3 refunds within 7 days making up ≥ 50 % of the card's purchase count, "
         "or a refund with no purchase from that merchant in 90 days",
         "refund / chargeback abuse", card.refund_abuse, frozenset({CARD_REFUND}), reads=FIATS,
         params=(count("min_refunds", 3, "refunds in the window"), days("window_days", 7),
                 pct("min_refund_pct", "50", "refunds as a share of purchases in the window"),
                 days("merchant_lookback_days", 90, "how far back a purchase from the refunding merchant is looked for"))),
    # --- 45–50 Check ---
    Rule(45, "duplicate_check_deposit", Family.CHECK, Severity.HIGH,
         "the same check number and amount deposited twice within 90 days",
         "duplicate presentment", check.duplicate_check_deposit, frozenset({CHECK_DEPOSIT}), reads=FIATS,
         params=(days("window_days", 90),)),
    Rule(46, "sequential_checks", Family.CHECK, Severity.MEDIUM, "≥ 3 deposited checks with consecutive numbers within 7 days",
         "sequential money orders / checks", check.sequential_checks, frozenset({CHECK_DEPOSIT}), reads=FIATS,
         params=(count("min_count", 3, "consecutively numbered checks", minimum=2), days("window_days", 7))),
    Rule(47, "monetary_instrument_structuring", Family.CHECK, Severity.HIGH,
         "check purchases of money_order or cashier of 3,000–10,000 each, totalling ≥ 10,000 within 5 days",
         "31 CFR 1010.415 monetary instruments", check.monetary_instrument_structuring, frozenset({CHECK_PURCHASE}),
         reads=FIATS, value_based=True,
         params=(usd("band_floor_usd", "3000", "smallest purchase that counts"),
                 usd("band_ceiling_usd", "10000", "largest purchase that counts"),
                 usd("total_threshold_usd", "10000", "the purchases must add up to this"),
                 count("min_count", 2, "purchases (structuring takes more than one)"), days("window_days", 5),
                 strings("check_types", ("money_order", "cashier"), "instrument types", choices=CHECK_TYPES)),
         constraint=_below("band_floor_usd", "band_ceiling_usd")),
    Rule(48, "rdc_velocity", Family.CHECK, Severity.MEDIUM,
         "≥ 5 remote-deposit (rdc_mobile, rdc_desktop) deposits within 24 h, or ≥ 15 within 7 days",
         "check-deposit velocity", check.rdc_velocity, frozenset({CHECK_DEPOSIT}), reads=FIATS,
         params=(count("short_min_count", 5, "remote deposits in the short window"), hours("short_window_hours", 24),
                 count("long_min_count", 15, "remote deposits in the long window"), days("long_window_days", 7))),
    Rule(49, "missing_check_number", Family.CHECK, Severity.LOW, "a check deposit without a check number, ≥ 1,000",
         "incomplete instrument data", check.missing_check_number, frozenset({CHECK_DEPOSIT}), value_based=True,
         params=(usd("threshold_usd", "1000", "smallest deposit without a number that alerts"),)),
    Rule(50, "check_kiting", Family.CHECK, Severity.HIGH,
         "a check deposit followed within 2 days by outflows ≥ 90 % of it, twice within 14 days",
         "kiting before clearance", check.check_kiting, FIAT_OUTFLOWS, reads=FIATS, value_based=True,
         params=(days("outflow_window_days", 2, "days after a deposit in which the outflows count"),
                 pct("min_outflow_pct", "90", "outflows as a share of the deposit"),
                 count("min_occurrences", 2, "drained deposits in the window"), days("window_days", 14))),
    # --- 51–53 Network typologies (docs/rules.md §6) ---
    Rule(51, "scatter_gather", Family.TRANSACTIONS, Severity.HIGH,
         "one source pays ≥ 3 customers who each pass it on (±10 %) to the entity within 72 h (≤ 50 senders into the entity)",
         "scatter-gather through intermediaries (layering)", network.scatter_gather, TX, reads=TXS, value_based=True,
         params=(count("min_intermediaries", 3, "distinct intermediaries between the source and the entity", minimum=2),
                 hours("window_hours", 72), pct("amount_tolerance_pct", "10", "an intermediary passes on what it got, within this"),
                 count("max_senders", 50, "degree bound: distinct senders into the entity in the window"))),
    Rule(52, "gather_scatter", Family.TRANSACTIONS, Severity.HIGH,
         "≥ 5 distinct senders pay the entity ≥ 10,000 USD and ≥ 80 % of it leaves to ≥ 5 distinct recipients within 72 h",
         "gather-scatter hub", network.gather_scatter, TX, reads=TXS, value_based=True,
         params=(count("min_senders", 5, "distinct senders in the window"), count("min_recipients", 5, "distinct recipients after them"),
                 hours("window_hours", 72), usd("min_inflow_usd", "10000", "the inflows of the window must reach this"),
                 pct("min_outflow_pct", "80", "outflows as a share of the inflows"),
                 count("max_degree", 200, "degree bound: above it (senders or recipients) the account is a hub and is skipped"))),
    Rule(53, "layering_chain", Family.TRANSACTIONS, Severity.HIGH,
         "the transfer ends a chain of ≥ 3 hops between customers, each passing on 90–100 % of the last within 24 h, ≥ 1,000 USD",
         "layering chain with small deductions", network.layering_chain, TX, value_based=True,
         params=(count("min_hops", 3, "hops in the chain, this transfer included", minimum=2),
                 hours("max_gap_hours", 24, "most time between one hop and the next"),
                 pct("max_deduction_pct", "10", "most a hop may keep back of what the hop before carried"),
                 usd("min_amount_usd", "1000", "smaller transfers are not followed"),
                 count("max_transfers_examined", 2000, "search budget per evaluation; past it the rule skips and says so", minimum=100)),
         reach=lambda p: timedelta(0)),
)  # fmt: skip

_BY_NUMBER = {rule.number: rule for rule in RULES}
_BY_CODE = {rule.code: rule for rule in RULES}


def get_rule(key: int | str) -> Rule:
    """A rule by number (3 or "3") or code ("structuring_below_threshold"); KeyError if there is none."""
    if isinstance(key, int) or (isinstance(key, str) and key.isdigit()):
        return _BY_NUMBER[int(key)]
    return _BY_CODE[key]


def validate_overrides(key: int | str, overrides: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, list[str]]]:
    return get_rule(key).validate_overrides(overrides)
