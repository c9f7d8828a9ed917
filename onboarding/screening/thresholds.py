"""Score thresholds: what a score means for a compliance check.

- score >= FAIL_THRESHOLD (0.95): a confident match -> result `fail`.
- score >= REVIEW_THRESHOLD (0.85): a possible match an analyst must look at -> `review`.
- below: `pass`. Hits down to REPORT_THRESHOLD (0.70) are still returned, for the check's details.

Why these numbers (docs/screening.md has the full table, measured on the real lists by
tests/onboarding/test_screening_matcher.py and bench/screening.py): exact and reordered names score
1.0; one or two typos in a listed name 0.93-0.97; a listed patronymic or middle name missing, or an
extra one given, 0.86-0.87; a weak alias is capped at 0.90. Ordinary names ("Maria Garcia",
"Juan Martinez", "Pacific Shipping Company") peak at 0.77-0.83 against longer listed names sharing
two of their words, and "John Smith", "Acme Trading LLC" or "Global Logistics Ltd" score nothing
above 0.70; so 0.85 keeps everyday names out of the queue while every tested variant of a listed
name stays in, and 0.95 is reached only by exact, reordered and single-typo matches.

Each can be overridden in Django settings (SANCTIONS_REVIEW_THRESHOLD, SANCTIONS_FAIL_THRESHOLD,
SANCTIONS_REPORT_THRESHOLD); `outcome()` reads them at call time.
"""

from __future__ import annotations

REVIEW_THRESHOLD = 0.85
FAIL_THRESHOLD = 0.95
REPORT_THRESHOLD = 0.70

PASS, REVIEW, FAIL = "pass", "review", "fail"


def _setting(name: str, default: float) -> float:
    from django.conf import settings

    return float(getattr(settings, name, default))


def review_threshold() -> float:
    return _setting("SANCTIONS_REVIEW_THRESHOLD", REVIEW_THRESHOLD)


def fail_threshold() -> float:
    return _setting("SANCTIONS_FAIL_THRESHOLD", FAIL_THRESHOLD)


def report_threshold() -> float:
    return _setting("SANCTIONS_REPORT_THRESHOLD", REPORT_THRESHOLD)


def outcome(score: float) -> str:
    """'fail' | 'review' | 'pass' for a hit's score."""
    if score >= fail_threshold():
        return FAIL
    return REVIEW if score >= review_threshold() else PASS
