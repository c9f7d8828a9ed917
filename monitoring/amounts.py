"""Amounts of transactions (docs/architecture.md §5): decimal strings up to uint256, kept exactly as canonical
strings; USD values through the organization's price table."""

import re
from decimal import Decimal, localcontext

UINT256_MAX = 2**256 - 1
UINT256_DIGITS = len(str(UINT256_MAX))  # 78
# The usd_value column holds 28 digits before the point; anything larger is clamped to 10**27 (still
# far above every threshold, so value rules judge it as the huge amount it is). Not 28 nines: SQLite
# keeps the column as a float, which Django reads back to 15 digits, and 28 nines came back as 10**28,
# a digit more than the column holds (an InvalidOperation, so a 500). No value up to 10**27 rounds past it.
USD_VALUE_MAX = Decimal("1" + "0" * 27 + ".00")
# ASCII digits (re.ASCII): \d also takes other scripts' digits, which Decimal reads but which would be
# stored and compared as other strings than the same number ("١٢٣" is not "123").
# One way to match each string: "0*(\d+)" backtracked quadratically over a long run of zeros before a
# bad character (50,000 characters held a worker for 47 s); leading zeros are stripped in Python.
AMOUNT_PATTERN = re.compile(r"^(\d+)(?:\.(\d+))?$", re.ASCII)
MAX_DECIMALS = 36


class AmountError(ValueError):
    pass


def canonical_amount(text: str) -> str:
    """'000123.4500' → '123.45'; refuses signs, exponents, more than uint256 or 36 decimals."""
    match = AMOUNT_PATTERN.match(text.strip() if isinstance(text, str) else "")
    if not match:
        raise AmountError("An amount is a non-negative decimal string such as \"1500.25\" (no sign, exponent or separators).")
    decimals = match.group(2) or ""
    whole, fraction = match.group(1).lstrip("0") or "0", decimals.rstrip("0")
    if len(whole) > UINT256_DIGITS or int(whole) > UINT256_MAX:  # the length first: int() of a long string is slow
        raise AmountError("The amount exceeds the largest uint256 value.")
    if len(decimals) > MAX_DECIMALS:
        raise AmountError(f"An amount has at most {MAX_DECIMALS} decimal places.")
    return f"{whole}.{fraction}" if fraction else whole


def usd_value(amount: str, rate: Decimal | None, decimals: int = 0) -> Decimal | None:
    """USD value of `amount` (raw units with `decimals` places) at `rate` USD per whole unit, to the
    cent; None without a rate. Computed with enough precision for any uint256 amount."""
    if rate is None:
        return None
    with localcontext() as context:
        context.prec = 200
        value = Decimal(amount).scaleb(-decimals) * Decimal(rate)
        return min(value, USD_VALUE_MAX).quantize(Decimal("0.01"))
