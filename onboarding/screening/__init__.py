"""Built-in sanctions screening: the interface the entity and wallet work calls.

    from onboarding.screening import screen_name, screen_address, on_lists_changed, outcome

    hits = screen_name("Vladimir Putin", kind="individual", date_of_birth=date(1952, 10, 7), country="RU")
    hits = screen_address("0x7F19720A857F834887FC9A7bC0a0fBe7Fc7f8102", chain_id=1)
    for hit in hits:
        hit.score            # 0-1, one hit per listed entry, best first
        hit.outcome          # "fail" (>= 0.95) | "review" (>= 0.85) | "pass"
        hit.source, hit.entry_uid, hit.entry_id, hit.entry_version_hash
        hit.matched_name, hit.name_kind, hit.method, hit.matched_fields
        hit.explanation      # JSON-serialisable dict: store it in the compliance check's details; its "rules"
                             # say which false-positive rules applied (scoring.py)
        hit.as_dict()        # the whole hit as a JSON-serialisable dict

- screen_name(name, *, kind=None, date_of_birth=None, country=None, jurisdiction=None, limit=10, min_score=None,
  sources=None) -> list[Hit]
  kind: "individual" | "business"; country: the person's nationality, ISO alpha-2 or a name; jurisdiction: where a
  business is registered (only ever raises a score); min_score defaults to
  REPORT_THRESHOLD (0.70), so hits below review are returned for the record too; sources: the lists
  to screen against (a frozenset of SanctionsList sources; None: every loaded list).
- screen_address(address, *, chain_id=None, sources=None) -> list[Hit]: exact match on a listed digital-currency
  address (case-insensitive for EVM 0x and bech32 addresses, or any address when chain_id > 0).
- outcome(score) -> "pass" | "review" | "fail"; REVIEW_THRESHOLD, FAIL_THRESHOLD (thresholds.py).
- Both raise ListsNotLoaded when no list (none of `sources`) is loaded: record the check as an
  error, never as a pass.
  Names in every script are read (anyascii: Han, kana, Hangul, Devanagari, Thai, Hebrew, Arabic, Cyrillic,
  Greek, ...). screen_name raises UnscreenableName only for letters with no transliteration at all: record
  it for an analyst (the entity screening makes it a `review` with the reason), never as a pass.
- on_lists_changed(callback): called with [ListChange] after `load_sanctions` changed a list
  (register in your AppConfig.ready(); enqueue the re-screening there). onboarding.screening.rescreen
  says which entities a ListChange can affect.
- Identity: a hit names its entry by (source, entry_uid); entry_version_hash changes when the
  listed entry does, which is when a hit marked false positive should be raised again.
- screening_lists(sources=None) -> list[dict]: the loaded lists' (or those of `sources`) source,
  category, version, content hash and load time, to store beside a check's result.

Speed and freshness: everything is answered from an in-memory index built from the database once
per process and re-checked against it at most every 30 s (SANCTIONS_INDEX_CHECK_SECONDS).
"""

from onboarding.screening.hooks import ListChange, on_lists_changed, remove_lists_changed
from onboarding.screening.index import get_index, invalidate_index
from onboarding.screening.matcher import Hit, ListsNotLoaded, UnscreenableName, screen_address, screen_name
from onboarding.screening.thresholds import FAIL_THRESHOLD, REPORT_THRESHOLD, REVIEW_THRESHOLD, outcome


def screening_lists(sources: frozenset[str] | None = None) -> list[dict]:
    """The lists a screening used, as the index holds them (for a check's details: which list versions
    said so): every loaded list, or those of `sources`."""
    return [
        {"source": info.source, "category": info.category, "version": info.version, "content_hash": info.content_hash,
         "loaded_at": info.loaded_at, "entry_count": info.entry_count}
        for info in get_index().lists.values() if sources is None or info.source in sources
    ]


__all__ = [
    "FAIL_THRESHOLD", "REPORT_THRESHOLD", "REVIEW_THRESHOLD", "Hit", "ListChange", "ListsNotLoaded", "get_index", "invalidate_index",
    "on_lists_changed", "outcome", "remove_lists_changed", "screen_address", "screen_name", "screening_lists", "UnscreenableName",
]
