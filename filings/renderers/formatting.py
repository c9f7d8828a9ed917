"""Dates, amounts, country and state codes as the regulators' formats want them."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from decimal import ROUND_CEILING, ROUND_HALF_UP, Context, Decimal
from functools import lru_cache

import pycountry

_NON_DIGITS = re.compile(r"\D")
_NON_ALNUM = re.compile(r"[^0-9A-Za-z]")
# Amounts arrive at uint256 scale (78 digits, on-chain units): rounding and adding them must not
# overflow or round away digits under the default 28-digit context. An amount too long for a
# regulator's field is rendered exactly and refused by that field's own pattern or length.
WIDE = Context(prec=200)


def yyyymmdd(value: date | None) -> str | None:
    """FinCEN DateYYYYMMDDType."""
    return value.strftime("%Y%m%d") if value else None


def iso_day(value: date | datetime | None) -> str | None:
    return value.strftime("%Y-%m-%d") if value else None


def iso_time_utc(value: datetime) -> str:
    """HH:MM:SS+00:00 (FINTRAC zonedTime): every timestamp in the model is UTC."""
    return value.astimezone(UTC).strftime("%H:%M:%S+00:00")


def iso_moment_utc(value: datetime) -> str:
    """YYYY-MM-DDTHH:MM:SS+00:00 (FINTRAC zonedDateTime)."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def whole_dollars(amount: Decimal) -> str:
    """FinCEN SAR and CTR amounts: whole U.S. dollars, cents rounded up to the next dollar
    (FinCEN SAR and CTR electronic filing instructions, "amount" items)."""
    return format(amount.to_integral_value(rounding=ROUND_CEILING, context=WIDE), "f")


def fixed(amount: Decimal, places: int = 2) -> str:
    """A plain decimal string with exactly `places` decimals, half-up (AUSTRAC Amount, FINTRAC
    currencyAmount)."""
    return format(amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP, context=WIDE), "f")


def plain(amount: Decimal, *, min_places: int = 0, max_places: int = 18) -> str:
    """The amount without exponent and without trailing zeros beyond `min_places`."""
    quantum = Decimal(1).scaleb(-max_places)
    rounded = amount.quantize(quantum, rounding=ROUND_HALF_UP, context=WIDE) if -amount.as_tuple().exponent > max_places else amount
    text = format(rounded, "f")
    whole, _, decimals = text.partition(".")
    decimals = decimals.rstrip("0").ljust(min_places, "0")
    return f"{whole}.{decimals}" if decimals else whole


def loses_precision(amount: Decimal, places: int) -> bool:
    return -amount.normalize().as_tuple().exponent > places if amount else False


def digits(value: str | None) -> str | None:
    """Only the digits (FinCEN TINs, phone numbers and ZIP codes are sent unformatted)."""
    if not value:
        return None
    return _NON_DIGITS.sub("", value) or None


def alphanumeric(value: str | None) -> str | None:
    if not value:
        return None
    return _NON_ALNUM.sub("", value) or None


@lru_cache(maxsize=512)
def country_name(code: str | None) -> str | None:
    """The English short name of an ISO 3166-1 alpha-2 code ("AU" -> "Australia")."""
    if not code:
        return None
    country = pycountry.countries.get(alpha_2=code)
    if country is None:
        return code
    return getattr(country, "common_name", None) or country.name


@lru_cache(maxsize=2048)
def subdivision_code(country: str | None, state: str | None) -> str | None:
    """The ISO 3166-2 subdivision part ("IL") of a state given as a code or a name, or None."""
    if not country or not state:
        return None
    state = state.strip()
    candidate = pycountry.subdivisions.get(code=f"{country}-{state.upper()}")
    if candidate is not None:
        return state.upper()
    for subdivision in pycountry.subdivisions.get(country_code=country) or ():
        if subdivision.name.casefold() == state.casefold():
            return subdivision.code.split("-", 1)[1]
    return None


@lru_cache(maxsize=512)
def currency_country(currency: str) -> str | None:
    """The country whose currency this is, by ISO 4217's convention that the first two letters
    are the country code ("CAD" -> "CA"); None for currencies of no single country (EUR, XAF)."""
    code = currency[:2]
    return code if pycountry.countries.get(alpha_2=code) is not None else None


@lru_cache(maxsize=512)
def is_fiat(currency: str) -> bool:
    return pycountry.currencies.get(alpha_3=currency) is not None
