"""The OFAC SDN 'Remarks' column: semi-structured '; '-separated facts about an entry.

Only what screening uses is extracted: dates of birth, nationality and citizenship, weak a.k.a.s
(written in single quotes: "a.k.a. 'BNC'") and digital-currency addresses
("Digital Currency Address - XBT 1abc...", "alt. Digital Currency Address - ETH 0x..."). The
remarks are kept whole on the entry for the analyst.
"""

from __future__ import annotations

import re
from datetime import datetime

from onboarding.sanctions.addresses import canonical_address
from onboarding.sanctions.countries import country_code

_DIGITAL_ADDRESS = re.compile(r"Digital Currency Address - ([A-Za-z0-9]+)\s+([A-Za-z0-9:]+)")
_WEAK_AKA = re.compile(r"a\.k\.a\.\s+'([^']+)'")
_DOB = re.compile(r"\bDOB\s+([^;]+)")
_NATIONALITY = re.compile(r"\b(?:nationality|citizen)\s+([^;]+)")


def digital_addresses(remarks: str) -> list[tuple[str, str, str]]:
    """[(currency, canonical address, address as listed)], duplicates removed, in listed order."""
    found: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for match in _DIGITAL_ADDRESS.finditer(remarks):
        currency, listed = match.group(1).upper(), match.group(2).rstrip(".")
        canonical = canonical_address(listed)
        if (currency, canonical) not in seen:
            seen.add((currency, canonical))
            found.append((currency, canonical, listed))
    return found


def weak_aliases(remarks: str) -> list[str]:
    return [alias.strip() for alias in _WEAK_AKA.findall(remarks) if alias.strip()]


def _one_date(text: str) -> str:
    """'08 Sep 1966' -> '1966-09-08', 'Sep 1966' -> '1966-09', '1966' / 'circa 1966' -> '1966'."""
    text = text.strip().rstrip(".").lower().replace("circa ", "")
    for pattern, shape in (("%d %b %Y", "%Y-%m-%d"), ("%b %Y", "%Y-%m"), ("%Y", "%Y")):
        try:
            return datetime.strptime(text, pattern).strftime(shape)
        except ValueError:
            continue
    return ""


def birth_dates(remarks: str) -> list[str]:
    """Listed dates of birth; 'X to Y' becomes a year range 'YYYY/YYYY'. Unreadable ones are skipped."""
    dates: list[str] = []
    for match in _DOB.finditer(remarks):
        value = match.group(1).strip()
        if " to " in value:
            start, end = (_one_date(part) for part in value.split(" to ", 1))
            value = f"{start[:4]}/{end[:4]}" if start and end else ""
        else:
            value = _one_date(value)
        if value and value not in dates:
            dates.append(value)
    return dates


def nationalities(remarks: str) -> list[str]:
    codes: list[str] = []
    for match in _NATIONALITY.finditer(remarks):
        code = country_code(match.group(1))
        if code and code not in codes:
            codes.append(code)
    return codes
