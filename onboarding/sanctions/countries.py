"""Country names as the lists write them -> ISO 3166-1 alpha-2.

The lists use their own spellings ("Korea, North", "Iran (Islamic Republic of)", "Burma",
"Palestinian") that pycountry's exact lookup does not know; those are listed here, and a leading
"Region:" or "The" is read past ("Region: Northern Mali", "The Gambia"). Anything that still cannot
be resolved maps to "" and is simply not used for scoring. In the lists as published (2026-02) that
is left on purpose for "undetermined" and "None Identified", "Region: Kafia Kingi" (disputed between
Sudan and South Sudan) and "possibly Palestinian" (a guess is no evidence to score on).
"""

from __future__ import annotations

from functools import lru_cache

import pycountry

_LIST_SPELLINGS = {
    "korea, north": "KP", "north korea": "KP", "democratic people's republic of korea": "KP",
    "korea, south": "KR", "south korea": "KR", "republic of korea": "KR",
    "russia": "RU", "iran": "IR", "syria": "SY", "burma": "MM", "turkey": "TR", "turkiye": "TR",
    "palestinian": "PS", "palestine": "PS", "west bank": "PS", "gaza": "PS", "venezuela": "VE",
    "bolivia": "BO", "tanzania": "TZ", "vietnam": "VN", "viet nam": "VN", "laos": "LA", "moldova": "MD",
    "congo, democratic republic of the": "CD", "democratic republic of the congo": "CD",
    "congo, republic of the": "CG", "congo": "CG", "kosovo": "XK", "macau": "MO", "taiwan": "TW",
    "czech republic": "CZ", "ivory coast": "CI", "cote d'ivoire": "CI", "brunei": "BN",
    "united states": "US", "usa": "US", "united kingdom": "GB", "uk": "GB", "great britain": "GB",
    "the former yugoslav republic of macedonia": "MK", "macedonia": "MK", "cape verde": "CV",
    "swaziland": "SZ", "east timor": "TL", "micronesia": "FM", "st. kitts and nevis": "KN",
    "st. vincent and the grenadines": "VC", "st. lucia": "LC", "bahamas, the": "BS", "gambia, the": "GM",
    "netherlands antilles": "CW", "curacao": "CW", "region: crimea": "UA", "crimea": "UA",
    "soviet union": "RU", "former soviet union": "RU", "yugoslavia": "RS", "serbia and montenegro": "RS",
    "cote d ivoire": "CI", "macedonia, the former yugoslav republic of": "MK", "state of palestine": "PS",
    "st. kitts & nevis": "KN", "northern mali": "ML", "china, hong kong special administrative region": "HK",
    "prc": "CN", "people's republic of china": "CN",
}
_PREFIXES = ("region: ", "the ")


@lru_cache(maxsize=4096)
def country_code(name: str | None) -> str:
    """'Russia' -> 'RU', 'RU' -> 'RU', 'Iran (Islamic Republic of)' -> 'IR', unknown -> ''."""
    text = " ".join((name or "").split()).strip(" .")
    if not text:
        return ""
    key = text.lower()
    if key in _LIST_SPELLINGS:
        return _LIST_SPELLINGS[key]
    for prefix in _PREFIXES:
        if key.startswith(prefix) and len(key) > len(prefix):
            return country_code(text[len(prefix):])
    for candidate in (text, text.split(" (")[0]):
        try:
            return pycountry.countries.lookup(candidate).alpha_2
        except LookupError:
            continue
    stripped = key.split(" (")[0]
    return _LIST_SPELLINGS.get(stripped, "")
