"""ISO 17442 Legal Entity Identifiers: 18 upper-case letters or digits, then two check digits
computed as ISO 7064 MOD 97-10 (the IBAN scheme): with each letter read as its number (A = 10 ...
Z = 35), the whole identifier is 1 modulo 97."""

import re

SHAPE = re.compile(r"^[A-Z0-9]{18}[0-9]{2}$")


def lei_problem(value: str) -> str | None:
    """Why `value` is not an LEI, or None."""
    if not SHAPE.match(value):
        return "An LEI is 20 characters: 18 upper-case letters or digits, then 2 check digits."
    if int("".join(str(int(char, 36)) for char in value)) % 97 != 1:
        return "The LEI's check digits do not match (ISO 17442, MOD 97-10): check it for a typo."
    return None
