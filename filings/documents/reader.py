"""Reading typed values out of untrusted JSON data, collecting every error with its field path.

Paths use the project's error-detail style (common.errors.flatten_details): dotted, with list
indexes as numbers, e.g. `subjects.0.addresses.1.country`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from functools import lru_cache
from typing import Any, TypeVar

import pycountry

from filings.documents.issues import ValidationIssue

T = TypeVar("T")
E = TypeVar("E", bound=StrEnum)

_ASSET_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.\-]{0,19}$")
# Up to uint256 (78 digits, docs/architecture.md §5) and 18 decimals for token amounts.
_MAX_DIGITS = 96


class FormInvalid(ValueError):
    """The form data cannot be read: wrong types, unknown fields or values. Carries every issue."""

    def __init__(self, issues: list[ValidationIssue]):
        self.issues = issues
        super().__init__("; ".join(f"{issue.path}: {issue.message}" for issue in issues[:5]))


@lru_cache(maxsize=512)
def known_country(code: str) -> bool:
    return pycountry.countries.get(alpha_2=code) is not None


@lru_cache(maxsize=512)
def known_currency(code: str) -> bool:
    return pycountry.currencies.get(alpha_3=code) is not None


def join(path: str, key: str | int) -> str:
    return f"{path}.{key}" if path else str(key)


class Reader:
    """Collects issues while converting; every method returns None (or a default) on error."""

    def __init__(self) -> None:
        self.issues: list[ValidationIssue] = []

    def error(self, path: str, message: str) -> None:
        self.issues.append(ValidationIssue(path=path, message=message, source="form"))

    def raise_if_invalid(self) -> None:
        if self.issues:
            raise FormInvalid(self.issues)

    # --- containers -------------------------------------------------------------------------

    def obj(self, data: Any, path: str, allowed: frozenset[str]) -> Mapping[str, Any] | None:
        if not isinstance(data, Mapping):
            self.error(path or "$", "Expected a JSON object.")
            return None
        for key in data:
            if key not in allowed:
                self.error(join(path, key), "Unknown field.")
        return data

    def items(self, data: Mapping, key: str, path: str, read: Callable[[Any, str], T | None], *,
              max_items: int = 100_000) -> tuple[T, ...]:
        value = data.get(key)
        here = join(path, key)
        if value is None:
            return ()
        if not isinstance(value, list):
            self.error(here, "Expected a list.")
            return ()
        if len(value) > max_items:
            self.error(here, f"At most {max_items} items.")
            return ()
        results = (read(item, join(here, index)) for index, item in enumerate(value))
        return tuple(item for item in results if item is not None)

    def child(self, data: Mapping, key: str, path: str, read: Callable[[Any, str], T | None]) -> T | None:
        value = data.get(key)
        return None if value is None else read(value, join(path, key))

    # --- scalars ----------------------------------------------------------------------------

    def text(self, data: Mapping, key: str, path: str, *, max_length: int = 200, required: bool = False) -> str | None:
        return self.text_value(data.get(key), join(path, key), max_length=max_length, required=required)

    def text_value(self, value: Any, path: str, *, max_length: int = 200, required: bool = False) -> str | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.error(path, "This field is required.")
            return None
        if not isinstance(value, str):
            self.error(path, "Expected a string.")
            return None
        value = value.strip()
        if len(value) > max_length:
            self.error(path, f"At most {max_length} characters.")
            return None
        return value

    def texts(self, data: Mapping, key: str, path: str, *, max_length: int = 200) -> tuple[str, ...]:
        return self.items(data, key, path, lambda value, here: self.text_value(value, here, max_length=max_length))

    def choice(self, data: Mapping, key: str, path: str, enum: type[E], *, required: bool = False) -> E | None:
        value = data.get(key)
        here = join(path, key)
        if value is None or value == "":
            if required:
                self.error(here, "This field is required.")
            return None
        try:
            return enum(value)
        except ValueError:
            self.error(here, f"{value!r} is not one of: {', '.join(member.value for member in enum)}.")
            return None

    def boolean(self, data: Mapping, key: str, path: str) -> bool | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, bool):
            self.error(join(path, key), "Expected true or false.")
            return None
        return value

    def integer(self, data: Mapping, key: str, path: str, *, minimum: int = 0, maximum: int = 2**63 - 1) -> int | None:
        value = data.get(key)
        here = join(path, key)
        if value is None:
            return None
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(here, "Expected an integer.")
            return None
        if not minimum <= value <= maximum:
            self.error(here, f"Must be between {minimum} and {maximum}.")
            return None
        return value

    def decimal(self, data: Mapping, key: str, path: str, *, required: bool = False) -> Decimal | None:
        """A non-negative amount, sent as a decimal string (preferred) or a JSON number."""
        value = data.get(key)
        here = join(path, key)
        if value is None or value == "":
            if required:
                self.error(here, "This field is required.")
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            self.error(here, "Expected a decimal amount as a string, e.g. \"1250.00\".")
            return None
        if isinstance(value, float) and not math.isfinite(value):
            self.error(here, "Expected a finite amount.")
            return None
        try:
            amount = Decimal(value.strip() if isinstance(value, str) else str(value))
        except InvalidOperation:
            self.error(here, f"{value!r} is not a decimal amount.")
            return None
        if not amount.is_finite() or amount < 0:
            self.error(here, "Expected a finite amount of zero or more.")
            return None
        # An exponent counts: "1e300" has one digit but 301 of them in a document.
        if len(amount.as_tuple().digits) > _MAX_DIGITS or amount.adjusted() >= _MAX_DIGITS:
            self.error(here, "Too many digits.")
            return None
        return amount

    def day(self, data: Mapping, key: str, path: str) -> date | None:
        value = data.get(key)
        here = join(path, key)
        if value is None or value == "":
            return None
        if not isinstance(value, str):
            self.error(here, "Expected a date as YYYY-MM-DD.")
            return None
        try:
            return date.fromisoformat(value.strip()) if len(value.strip()) == 10 else _bad_date()
        except ValueError:
            self.error(here, f"{value!r} is not a date as YYYY-MM-DD.")
            return None

    def moment(self, data: Mapping, key: str, path: str, *, required: bool = False) -> datetime | None:
        """An ISO 8601 timestamp with its UTC offset (or Z), returned in UTC (docs/architecture.md §5)."""
        value = data.get(key)
        here = join(path, key)
        if value is None or value == "":
            if required:
                self.error(here, "This field is required.")
            return None
        if not isinstance(value, str):
            self.error(here, "Expected an ISO 8601 timestamp.")
            return None
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            self.error(here, f"{value!r} is not an ISO 8601 timestamp.")
            return None
        if moment.tzinfo is None:
            self.error(here, "The timestamp needs a UTC offset or Z.")
            return None
        return moment.astimezone(UTC)

    def country(self, data: Mapping, key: str, path: str) -> str | None:
        value = self.text(data, key, path, max_length=2)
        if value is None:
            return None
        code = value.upper()
        if not known_country(code):
            self.error(join(path, key), f"{value!r} is not an ISO 3166-1 alpha-2 country code.")
            return None
        return code

    def currency(self, data: Mapping, key: str, path: str, *, required: bool = False, fiat_only: bool = False) -> str | None:
        value = self.text(data, key, path, max_length=20, required=required)
        if value is None:
            return None
        code = value.upper()
        if fiat_only and not known_currency(code):
            self.error(join(path, key), f"{value!r} is not an ISO 4217 currency code.")
            return None
        if not _ASSET_LABEL.match(code):
            self.error(join(path, key), f"{value!r} is not a currency code or asset label.")
            return None
        return code


def _bad_date() -> date:
    raise ValueError("not YYYY-MM-DD")
