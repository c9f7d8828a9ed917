"""The stored form of list entries, or what is wrong with them, field by field.

Shared by the services (every write), the admin forms (errors beside the field) and the commands
(errors with line numbers), so an entry means the same whichever way it arrived.
"""

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

import pycountry

from common.chain import EVM_ADDRESS, MAX_CHAIN_ID, AddressError, normalized_address
from common.errors import ValidationFailed
from monitoring.models import CodeListEntry
from monitoring.rules.registry import TAG_CATEGORIES

LABEL = re.compile(r"^[A-Z0-9][A-Z0-9._-]{0,19}$")
MCC = re.compile(r"^[0-9]{4}$")
RATE_INTEGER_DIGITS, RATE_DECIMALS = 18, 12  # AssetPrice.usd_rate: max_digits=30, decimal_places=12
MAX_ASSET_DECIMALS = 77  # a uint256 has 78 digits
ListName = CodeListEntry.ListName


def _text(raw: Any, *, max_length: int, required: bool = True) -> str:
    if raw is None:
        raw = ""
    if not isinstance(raw, str):
        raise ValueError("must be text")
    text = raw.strip()
    if required and not text:
        raise ValueError("is required")
    if len(text) > max_length:
        raise ValueError(f"is at most {max_length} characters")
    if any(ord(char) < 32 or ord(char) == 127 for char in text):
        raise ValueError("must not contain control characters")
    return text


def _whole_number(raw: Any, *, high: int, empty: int | None, hint: str = "") -> int | None:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return empty
    problem = f"must be a whole number{hint}"
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        raise ValueError(problem)
    try:
        value = int(raw.strip()) if isinstance(raw, str) else raw
    except ValueError:
        raise ValueError(problem) from None
    if not 0 <= value <= high:
        raise ValueError(f"must be between 0 and {high}")
    return value


def chain_id_of(raw: Any) -> int | None:
    """Empty means every chain (an EVM address is the same on every EVM chain); 0 is off-chain."""
    return _whole_number(raw, high=MAX_CHAIN_ID, empty=None, hint=", or empty for every chain")


def list_address(chain_id: int | None, raw: Any) -> str:
    """As transactions store it (common.chain): an EVM address lower-cased after its checksum is
    checked, also when the entry applies to every chain."""
    text = _text(raw, max_length=200)
    try:
        return normalized_address(1 if chain_id is None and EVM_ADDRESS.match(text) else chain_id, text)
    except AddressError as exc:
        raise ValueError(str(exc)) from None


def category_of(raw: Any) -> str:
    """One of the categories the rules know, as their parameters name it (`Stolen funds` → `stolen_funds`):
    a tag of another category would be stored and never match anything."""
    text = re.sub(r"[\s-]+", "_", _text(raw, max_length=40).lower())
    if text not in TAG_CATEGORIES:
        raise ValueError(f"{text!r} is not a known category; use one of {', '.join(TAG_CATEGORIES)}")
    return text


def label_of(raw: Any) -> str:
    text = _text(raw, max_length=20).upper()
    if not LABEL.match(text):
        raise ValueError("use letters, digits, '.', '_' or '-' (e.g. USDC, WETH.E)")
    return text


def usd_rate_of(raw: Any) -> Decimal:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str | Decimal):
        raise ValueError("must be a number")
    try:
        value = raw if isinstance(raw, Decimal) else Decimal(str(raw).strip())
    except InvalidOperation:
        raise ValueError("must be a number") from None
    if not value.is_finite() or value <= 0:
        raise ValueError("must be a number above 0")
    sign, digits, exponent = value.normalize().as_tuple()
    decimals = max(0, -exponent)
    if decimals > RATE_DECIMALS or len(digits) - decimals > RATE_INTEGER_DIGITS:
        raise ValueError(f"at most {RATE_INTEGER_DIGITS} digits before the point and {RATE_DECIMALS} after")
    return value


def asset_decimals_of(raw: Any) -> int:
    """Decimal places of the amounts submitted for the asset (AssetPrice.decimals); empty is 0, whole units."""
    return _whole_number(raw, high=MAX_ASSET_DECIMALS, empty=0)


def code_of(list_name: str, raw: Any) -> str:
    if list_name == ListName.HIGH_RISK_JURISDICTIONS:
        code = _text(raw, max_length=2).upper()
        if len(code) != 2 or pycountry.countries.get(alpha_2=code) is None:
            raise ValueError(f"{code!r} is not an ISO 3166-1 alpha-2 country code")
        return code
    if list_name == ListName.HIGH_RISK_MCCS:
        code = _text(raw, max_length=4)
        if not MCC.match(code):
            raise ValueError("a merchant category code is 4 digits")
        return code
    return label_of(raw)


def _collect(checks: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    """Run each field's check; all problems at once, as a 422 naming each field (the message is the
    reason alone: a form shows it beside the field, a command as `field: reason`)."""
    clean, details = {}, []
    for field, check in checks.items():
        try:
            clean[field] = check()
        except ValueError as exc:
            details.append({"field": field, "message": str(exc)})
    if details:
        raise ValidationFailed(details=details)
    return clean


def clean_asset_price(*, asset: Any, usd_rate: Any, decimals: Any = 0) -> dict[str, Any]:
    clean = _collect({"asset": lambda: label_of(asset), "usd_rate": lambda: usd_rate_of(usd_rate),
                      "decimals": lambda: asset_decimals_of(decimals)})
    if clean["asset"] == "USD" and clean["usd_rate"] != 1:
        raise ValidationFailed.for_field("usd_rate", "usd_rate of USD is always 1.")
    return clean


def _address_entry(chain_id: Any, address: Any, **others: Callable[[], Any]) -> dict[str, Any]:
    try:
        chain = chain_id_of(chain_id)
    except ValueError:
        chain = None  # reported by the chain_id check below; the address is judged as on every chain
    return _collect({"chain_id": lambda: chain_id_of(chain_id), "address": lambda: list_address(chain, address), **others})


def clean_address_tag(*, chain_id: Any, address: Any, category: Any, source: Any = "") -> dict[str, Any]:
    return _address_entry(chain_id, address, category=lambda: category_of(category),
                          source=lambda: _text(source, max_length=100, required=False))


def clean_blocked_address(*, chain_id: Any, address: Any, reason: Any = "") -> dict[str, Any]:
    return _address_entry(chain_id, address, reason=lambda: _text(reason, max_length=300, required=False))


def clean_code_list_entry(*, list_name: Any, code: Any, note: Any = "") -> dict[str, Any]:
    if list_name not in ListName.values:
        raise ValidationFailed.for_field("list_name", f"list_name must be one of {', '.join(ListName.values)}.")
    return {"list_name": list_name,
            **_collect({"code": lambda: code_of(list_name, code), "note": lambda: _text(note, max_length=200, required=False)})}
