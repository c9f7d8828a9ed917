"""Dates as the lists write them -> the forms the service stores.

A date of birth is stored as the list gives it, no more precise: "1966-09-08" (a full date),
"1966-09" (a month), "1966" (a year) or "1960/1962" (a range of years); SanctionsEntry.birth_dates
documents it and the screening evidence reads it. The publishers write them in many ways:

- ISO ("1966-09-08", "1966-09", "1966"), with or without a time ("1966-09-08T00:00:00");
- day first with slashes (the UK list: "08/09/1966", and "00/00/1966" or "00/09/1966" for a year
  or a month only);
- month first with slashes (US files such as the BIS Denied Persons List: "09/08/1966");
- in words ("08 Sep 1966", "Sep 1966", "8 September 1966"), maybe "circa"/"approximately";
- a range ("1960 to 1962", "1960-1962", "1960/1962").

Anything else gives "" (not used for scoring), never an error.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

_ISO = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:[t ].*)?$")  # the text is lower-cased
_SLASHED = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")
_RANGE = re.compile(r"^(\d{4})\s*(?:to|-|/|–)\s*(\d{4})$")
_VAGUE = re.compile(r"^(?:circa|approximately|approx\.?|about|c\.|ca\.?)\s+")
_WORDS = ("%d %b %Y", "%d %B %Y", "%b %Y", "%B %Y", "%d-%b-%Y", "%b %d, %Y", "%B %d, %Y")


def _parts(year: int, month: int = 0, day: int = 0) -> str:
    """'YYYY-MM-DD', 'YYYY-MM' or 'YYYY' from parts where 0 means unknown; '' if impossible."""
    if not 1000 <= year <= 2999 or not 0 <= month <= 12:
        return ""
    if not month:
        return f"{year:04d}"
    if not day:
        return f"{year:04d}-{month:02d}"
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return ""


def birth_date(text: str | None, *, day_first: bool = True) -> str:
    """One listed date of birth in the stored form, or '' if it cannot be read.

    `day_first` says how a slashed date reads: True for 08/09/1966 = 8 September (the UK's
    dd/mm/yyyy), False for the US files' mm/dd/yyyy."""
    value = " ".join((text or "").split()).strip(" .").lower()
    value = _VAGUE.sub("", value)
    if not value:
        return ""
    if match := _RANGE.match(value):
        start, end = sorted((int(match.group(1)), int(match.group(2))))
        return f"{start}/{end}" if start != end else str(start)
    if match := _ISO.match(value):
        year, month, day = (int(part) if part else 0 for part in match.groups())
        return _parts(year, month, day)
    if match := _SLASHED.match(value):
        first, second, year = (int(part) for part in match.groups())
        day, month = (first, second) if day_first else (second, first)
        return _parts(year, month, day) if month or not day else ""
    for pattern in _WORDS:
        try:
            parsed = datetime.strptime(value, pattern)
        except ValueError:
            continue
        return parsed.strftime("%Y-%m-%d" if "%d" in pattern else "%Y-%m")
    return ""


def birth_dates(values, *, day_first: bool = True) -> list[str]:
    """The readable dates of `values`, duplicates removed, in listed order."""
    found: list[str] = []
    for value in values:
        parsed = birth_date(value, day_first=day_first)
        if parsed and parsed not in found:
            found.append(parsed)
    return found


def listing_date(text: str | None, *, day_first: bool = True) -> date | None:
    """A full date (a designation or listing date), or None: ISO, or slashed (see `birth_date`)."""
    value = birth_date(text, day_first=day_first)
    return date.fromisoformat(value) if len(value) == 10 else None


def timestamp(text: str | None, *, day_first: bool = True) -> datetime | None:
    """A publication time: ISO 8601 (a trailing Z, an offset, or none: then UTC), or a date alone
    (ISO or slashed), taken as midnight UTC; None if it cannot be read."""
    value = (text or "").strip()
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        day = listing_date(value, day_first=day_first)
        return datetime(day.year, day.month, day.day, tzinfo=UTC) if day else None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
