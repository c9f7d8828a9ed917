"""Screening payment counterparty names against sanctions-list names (rule 34).

`SanctionsNameIndex` is the default `NameScreener`: built once per organization per batch from the loaded
sanctions lists' names and aliases. Storage may pass the onboarding screening engine instead, as long as
it offers `best_match(name) -> NameMatch | None` with a score from 0 to 1.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from decimal import Decimal

from rapidfuzz import fuzz, process

from monitoring.rules.context import NameMatch

MEMO_LIMIT = 10_000


def screening_form(name: str) -> str:
    """Accents, case, punctuation and word order do not hide a name."""
    decomposed = unicodedata.normalize("NFKD", name)
    letters = "".join(ch if ch.isalnum() else " " for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(sorted(letters.casefold().split()))


class SanctionsNameIndex:
    """Exact lookup first, then a fuzzy token-sort comparison (rapidfuzz) above a floor score."""

    __slots__ = ("_exact", "_floor", "_forms", "_memo", "_sources")

    def __init__(self, entries: Iterable[tuple[str, str]], *, floor: Decimal = Decimal("0.80")) -> None:
        """entries: (listed name, source list), e.g. ("Ivan Petrov", "OFAC SDN")."""
        self._exact: dict[str, tuple[str, str]] = {}
        for listed, source in entries:
            form = screening_form(listed)
            if form:
                self._exact.setdefault(form, (listed, source))
        self._forms = list(self._exact)
        self._sources = [self._exact[form] for form in self._forms]
        self._floor = float(floor * 100)
        self._memo: dict[str, NameMatch | None] = {}

    def best_match(self, name: str) -> NameMatch | None:
        """The closest listed name at or above the floor score; remembered, as payees repeat."""
        if name not in self._memo:
            if len(self._memo) >= MEMO_LIMIT:
                self._memo.clear()
            form = screening_form(name or "")
            self._memo[name] = self._match(form) if form else None
        return self._memo[name]

    def _match(self, form: str) -> NameMatch | None:
        if form in self._exact:
            listed, source = self._exact[form]
            return NameMatch(listed, source, Decimal(1))
        found = process.extractOne(form, self._forms, scorer=fuzz.ratio, score_cutoff=self._floor)
        if found is None:
            return None
        listed, source = self._sources[found[2]]
        return NameMatch(listed, source, (Decimal(str(found[1])) / 100).quantize(Decimal("0.0001")))
