"""Employer Identification Numbers: nine digits, written NN-NNNNNNN."""

import re

from common.errors import ValidationFailed

EIN = re.compile(r"^(\d{2})-?(\d{7})$", re.ASCII)  # not other scripts' digits: another number to every comparison


def ein_normalized(value: str, *, field: str = "ein") -> str:
    """'123456789' or '12-3456789' → '12-3456789'; anything else a 422 naming `field`."""
    found = EIN.match((value or "").strip())
    if found is None:
        raise ValidationFailed.for_field(field, "An EIN is 9 digits, written 12-3456789 or 123456789.")
    return f"{found.group(1)}-{found.group(2)}"


def ein_variants(ein: str) -> list[str]:
    """The ways an organization's filer profile may spell a normalised EIN."""
    return [ein, ein.replace("-", "")]
