"""What a list leaves unsaid about a party: its id, where the publisher gives none, and its kind,
where the format does not say whether it is a person or an organization.

- `derived_uid`: the BIS Denied Persons List has no id at all, and the Consolidated Screening List
  gives one (OFAC's ent_num) only for the Treasury lists. An entry's uid must stay the same across
  reloads (the loader reconciles by it and re-screening reports what was added or removed), so it is
  a hash of what identifies the party as listed, after folding case, accents and punctuation, so
  that a re-typed space or comma does not make a listed party look removed and re-added. A
  publisher's real correction (a new address) does give a new uid: the party shows as removed and
  added, which is what happened to the listing.
- `guess_kind`: the Denied Persons List and part of the Consolidated Screening List (Entity List,
  Unverified List, ITAR debarred, nonproliferation) say nothing about the kind of party. A name with
  a legal form or a word organizations are named by ("LTD", "TRADING", "AIRLINES", "INSTITUTE") is
  taken as an entity, any other as an individual. A wrong guess costs only the screening evidence's
  kind adjustment (evidence.KIND_MISMATCH); the name still matches.
"""

from __future__ import annotations

import hashlib
import re

from onboarding.models.sanctions import EntryKind
from onboarding.screening.normalize import LEGAL_FORM_PHRASES, LEGAL_FORMS, fold

_NON_ALNUM = re.compile(r"[^a-z0-9]+")

# Words organizations are named by, beyond the legal forms screening.normalize drops.
_ORGANIZATION_WORDS_TEXT = """
    academy aerospace agency air airline airlines airways analog arms associates association aviation bank bureau
    cargo center centre chemical chemicals college commerce commercial committee communications components
    construction consultancy consulting contracting corp corporation council defence defense department development
    devices digital distribution division electronic electronics energy engineering enterprise enterprises equipment
    establishment exchange export exports express factory finance financial firm fleet foundation freight fund general
    global group holding holdings import imports industrial industries industry institute instruments insurance
    international investment investments laboratories laboratory logistics machinery manufacturing marine maritime
    market metal metals mining ministry missile motors navigation network office oil organisation organization
    partners petroleum pharmaceutical pharmaceuticals plant products regiment research resources school science
    sciences security semiconductor services shipping software solutions steel supplies supply systems tech technical
    technik techniques technologies technology telecom trade trading transport travel university works worldwide
"""
_ORGANIZATION_WORDS = frozenset(_ORGANIZATION_WORDS_TEXT.split())


def _tokens(text: str) -> list[str]:
    return [token for token in _NON_ALNUM.split(fold(text.replace(".", ""))) if token]


def derived_uid(*parts: str, prefix: str = "") -> str:
    """A stable id from the parts that identify a party (e.g. name and address): 24 hex digits of
    the SHA-256 of their folded tokens, after `prefix` (which says the uid is derived, not published)."""
    key = "|".join(" ".join(_tokens(part)) for part in parts)
    return f"{prefix}{hashlib.sha256(key.encode()).hexdigest()[:24]}"


def guess_kind(name: str) -> str:
    """EntryKind.ENTITY for a name that reads like an organization's, else EntryKind.INDIVIDUAL."""
    tokens = _tokens(name)
    if any(token in LEGAL_FORMS or token in _ORGANIZATION_WORDS for token in tokens):
        return EntryKind.ENTITY
    for phrase in LEGAL_FORM_PHRASES:
        if any(tuple(tokens[start : start + len(phrase)]) == phrase for start in range(len(tokens) - len(phrase) + 1)):
            return EntryKind.ENTITY
    # A number is part of an organization's name ("183rd Guard ...", "2904977 CANADA"), not a person's;
    # and a one-word name is an organization's acronym or brand: people are listed with two names or more.
    if len(tokens) == 1 or any(token[0].isdigit() for token in tokens):
        return EntryKind.ENTITY
    return EntryKind.INDIVIDUAL
