"""Fitting free text into a regulator's field: one line, the allowed characters, the allowed length.

Every change that alters what a person would read (a transliterated name, a truncated street) is
recorded in `Changes` and reported as a warning with the form-data path, so that nothing in a
filed report differs from the form silently. Whitespace normalisation is not recorded: FinCEN's
schemas refuse leading, trailing and repeated spaces and line breaks in every value (XML user
guides, 3.2 "Batch validation"), and collapsing them changes nothing a reader sees.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from common.transliteration import ROMANISATION
from filings.documents.issues import ValidationIssue, warning

# ELOT 743 digraphs that a letter-by-letter table would get wrong.
_GREEK_DIGRAPHS = (("ΟΥ", "OU"), ("Ου", "Ou"), ("Ού", "Ou"), ("ου", "ou"), ("ού", "ou"), ("ΜΠ", "B"), ("Μπ", "B"))
_LOWER = ROMANISATION
# Dashes, quotes and spaces that look ASCII but are not.
_PUNCTUATION = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-",
    "\u2010": "-", "\u2011": "-", "\u00a0": " ", "\u2007": " ", "\u202f": " ", "\u00b7": ".",
})
_WHITESPACE = re.compile(r"\s+")
# Characters XML 1.0 cannot carry at all (C0 controls other than tab, LF, CR).
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


class Changes:
    """Warnings about deliberate changes, collected while one document is rendered.

    `note` records one change at one path. `tally` counts a change that repeats over many
    values (amounts rounded to a schema's precision in 1,000 transactions) and reports it once.
    """

    def __init__(self) -> None:
        self._issues: list[ValidationIssue] = []
        self._seen: set[ValidationIssue] = set()
        self._tallies: Counter[tuple[str, str]] = Counter()

    def note(self, path: str, message: str) -> None:
        """Record a change once, however often the same value is rendered (a CTR repeats its
        parties in every day's Activity)."""
        issue = warning(path, message)
        if issue not in self._seen:
            self._seen.add(issue)
            self._issues.append(issue)

    def tally(self, path: str, message: str) -> None:
        self._tallies[(path, message)] += 1

    def issues(self) -> list[ValidationIssue]:
        tallied = [warning(path, f"{message} ({count} value{'s' if count > 1 else ''})")
                   for (path, message), count in self._tallies.items()]
        return [*self._issues, *tallied]


def one_line(text: str) -> str:
    """Single spaces, no line breaks, no leading or trailing space (FinCEN "\\S+( +\\S+)*")."""
    return _WHITESPACE.sub(" ", _XML_ILLEGAL.sub("", text.translate(_PUNCTUATION))).strip()


def xml_safe(text: str) -> str:
    """Drop the characters XML 1.0 cannot carry; keep line breaks (narratives)."""
    return _XML_ILLEGAL.sub("", text)


def _romanise_char(char: str) -> str:
    upper = char != char.lower()
    lower = char.lower()
    if lower not in _LOWER:
        base = unicodedata.normalize("NFD", lower)[:1]  # accented Greek and Cyrillic letters: "ύ" -> "υ"
        if base not in _LOWER:
            return char
        lower = base
    latin = _LOWER[lower]
    return latin.capitalize() if upper else latin


def _romanise_word(word: str) -> str:
    if len(word) > 1 and word.isupper():
        return "".join(_romanise_char(char.lower()) for char in word).upper()
    latin = "".join(_romanise_char(char) for char in word)
    # Arabic has no letter case: capitalise the romanised word as names are written in Latin.
    if word and "\u0600" <= word[0] <= "\u06ff":
        latin = latin[:1].upper() + latin[1:]
    return latin


def romanise(text: str) -> str:
    """Latin letters for Cyrillic, Greek, Arabic and Latin-with-accents; other scripts stay as they are."""
    text = unicodedata.normalize("NFKC", text).translate(_PUNCTUATION)
    for greek, latin in _GREEK_DIGRAPHS:
        text = text.replace(greek, latin)
    latin = " ".join(_romanise_word(word) for word in text.split(" "))
    decomposed = unicodedata.normalize("NFKD", latin)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def is_ascii(text: str) -> bool:
    return text.isascii()


def truncate(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word boundary when one is near, without trailing space."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space >= limit * 0.7:
        cut = cut[:space]
    return cut.rstrip(" ,;-")


def fit(value: str | None, limit: int, *, path: str, changes: Changes, latin: bool = False, label: str = "") -> str | None:
    """`value` made one line, romanised when `latin`, cut to `limit`; every real change noted."""
    if value is None:
        return None
    text = one_line(value)
    if not text:
        return None
    what = label or "value"
    if latin and not is_ascii(text):
        romanised = one_line(romanise(text))
        if is_ascii(romanised):
            changes.note(path, f"{what} {text!r} was transliterated to Latin letters as {romanised!r}.")
            text = romanised
        else:
            changes.note(path, f"{what} {text!r} has characters with no Latin transliteration here; sent as written.")
    if len(text) > limit:
        shortened = truncate(text, limit)
        changes.note(path, f"{what} was truncated to {limit} characters: {shortened!r}.")
        text = shortened
    return text or None


def keep_only(value: str | None, pattern: re.Pattern, *, path: str, changes: Changes, label: str = "value") -> str | None:
    """Drop every character not matched by `pattern` (a single-character class); note it if any went."""
    if value is None:
        return None
    kept = "".join(pattern.findall(value))
    if kept != value:
        changes.note(path, f"{label} {value!r} was sent as {kept!r}: the schema allows only {pattern.pattern} characters.")
    return kept or None
