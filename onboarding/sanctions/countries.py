"""Country names as the lists write them -> ISO 3166-1 alpha-2.

The lists use their own spellings ("Korea, North", "Iran (Islamic Republic of)", "Burma",
"Palestinian") that pycountry's exact lookup does not know; those are listed here. Anything that
still cannot be resolved maps to "" and is simply not used for scoring.
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
    "soviet union": "RU", "yugoslavia": "RS", "serbia and montenegro": "RS",
}


@lru_cache(maxsize=4096)
def country_code(name: str | None) -> str:
    """'Russia' -> 'RU', 'RU' -> 'RU', 'Iran (Islamic Republic of)' -> 'IR', unknown -> ''."""
    text = " ".join((name or "").split()).strip(" .")
    if not text:
        return ""
    key = text.lower()
    if key in _LIST_SPELLINGS:
        return _LIST_SPELLINGS[key]
    for candidate in (text, text.split(" (")[0]):
        try:
            return pycountry.countries.lookup(candidate).alpha_2
        except LookupError:
            continue
    stripped = key.split(" (")[0]
    return _LIST_SPELLINGS.get(stripped, "")
