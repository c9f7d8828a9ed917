"""An alert's evidence as an investigator reads it: each value the rule measured beside the parameter
it was held against ("7 transfers within 24 h ≥ 5"), rather than the stored JSON.

The engine stores {"parameters": {...}, "measured": {...}} (monitoring.rules.engine). A measured value
is paired with its parameter by the rules' naming: `count` with `min_count` (or with the short or long
window's `*_min_count` when the hit names that window), `usd_value` with `threshold_usd`, `x` with
`min_x` or `max_x`. What pairs with nothing is still listed, as measured or as a setting.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

# measured name → the parameters it may be held against, in order of preference; "≥" unless the name starts with max_
PAIRS = {
    "count": ("min_count",),
    "usd_value": ("threshold_usd", "min_amount_usd", "min_total_usd"),
    "total_usd": ("total_threshold_usd", "min_total_usd", "threshold_usd", "min_volume_usd"),
    "volume_usd": ("min_volume_usd", "total_threshold_usd", "min_total_usd"),
    "distinct_senders": ("min_senders",),
    "distinct_recipients": ("min_recipients",),
    "inflow_usd": ("min_inflow_usd",),
    "outflow_usd": ("min_outflow_usd",),
}
WINDOWS = (("window_hours", "h"), ("window_days", "days"))
NOUNS = {"count": "{unit}", "usd_value": "USD", "total_usd": "USD in total", "volume_usd": "USD moved",
         "distinct_senders": "distinct senders", "distinct_recipients": "distinct recipients"}


@dataclass
class EvidenceRow:
    measure: str
    measured: str
    condition: str = ""  # "≥ 5 (min_count)"
    met: bool | None = None


@dataclass
class EvidenceTable:
    headline: list[str] = field(default_factory=list)  # "7 transfers within 24 h ≥ 5"
    rows: list[EvidenceRow] = field(default_factory=list)
    settings: list[tuple[str, str]] = field(default_factory=list)  # parameters no measured value was held against
    note: str = ""  # a skipped evaluation's reason


def evidence_table(evidence: dict, *, unit: str = "transfers") -> EvidenceTable:
    parameters, measured = dict(evidence.get("parameters") or {}), dict(evidence.get("measured") or {})
    table = EvidenceTable(note=str(evidence.get("reason", "")))
    window, window_parameter = _window(measured, parameters)
    used = {window_parameter}
    for name, value in measured.items():
        if name in {w for w, _ in WINDOWS}:
            continue  # said with the value it qualifies
        partner = _partner(name, measured, parameters)
        row = EvidenceRow(measure=_words(name), measured=_text(value))
        if partner is not None:
            used.add(partner)
            sign = "≤" if partner.startswith("max_") else "≥"
            row.condition, row.met = f"{sign} {_text(parameters[partner])} ({partner})", _holds(value, sign, parameters[partner])
            noun = NOUNS.get(name, _words(name)).format(unit=unit)
            table.headline.append(f"{_text(value)} {noun}{window} {sign} {_text(parameters[partner])}")
        table.rows.append(row)
    if window:
        table.rows.append(EvidenceRow(measure="window", measured=window.removeprefix(" within ")))
    table.settings = [(name, _text(value)) for name, value in parameters.items() if name not in used]
    return table


def _partner(name: str, measured: dict, parameters: dict) -> str | None:
    if isinstance(measured[name], list | dict):
        return None  # the accounts or transfers of a shape: listed, held against nothing
    if name == "count":
        for window, _ in WINDOWS:
            for span in ("short", "long"):  # the window the hit names: its own minimum
                if window in measured and parameters.get(f"{span}_{window}") == measured[window] and f"{span}_min_count" in parameters:
                    return f"{span}_min_count"
    for candidate in (*PAIRS.get(name, ()), f"min_{name}", f"max_{name}"):
        if candidate in parameters:
            return candidate
    return None


def _window(measured: dict, parameters: dict) -> tuple[str, str | None]:
    """(" within 24 h", the parameter it came from or None): the hit's own window first."""
    for name, suffix in WINDOWS:
        if name in measured:
            return f" within {_text(measured[name])} {suffix}", None
        if name in parameters:
            return f" within {_text(parameters[name])} {suffix}", name
    return "", None


def _holds(value, sign: str, limit) -> bool | None:
    try:
        left, right = float(value), float(limit)
    except (TypeError, ValueError):
        return None
    return left >= right if sign == "≥" else left <= right


def _words(name: str) -> str:
    return name.replace("_usd", " (USD)").replace("_", " ")


def _edge(value) -> str | None:
    """A network rule's transfer as an edge ({"from", "to", "usd", "at"}: monitoring.rules.network.hit_shape)."""
    if isinstance(value, dict) and {"from", "to"} <= value.keys():
        return f"{value['from']} → {value['to']}" + (f" ({_text(value['usd'])} USD)" if value.get("usd") is not None else "")
    return None


def _text(value) -> str:
    if isinstance(value, list) and value and all(_edge(item) for item in value):
        return "; ".join(_edge(item) for item in value) if len(value) <= 8 else f"{len(value)} transfers (drawn in the graph below)"
    if isinstance(value, list):
        return ", ".join(_text(item) for item in value) if len(value) <= 8 else f"{len(value)} items"
    if isinstance(value, dict):
        return json.dumps(value, default=str, separators=(", ", ": "))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
