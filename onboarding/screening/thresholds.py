"""Score thresholds: what a score means for a compliance check.

- score >= FAIL_THRESHOLD (0.95): a confident match -> result `fail`.
- score >= REVIEW_THRESHOLD (0.85): a possible match an analyst must look at -> `review`.
- below: `pass`. Hits down to REPORT_THRESHOLD (0.70) are still returned, for the check's details.

Why these numbers (docs/screening.md has the full table, measured on the real lists by
tests/onboarding/test_matcher.py): exact and reordered names score 1.0; one typo in a listed
name scores 0.93-0.97; a name with one listed token missing (a patronymic) ~0.88-0.92; a weak
alias is capped at 0.90. Ordinary names ("John Smith", "Maria Garcia", "Acme Trading LLC") peak
at 0.80-0.83 against four-word listed names that share two of their words, so 0.85 keeps them out
of the queue while every tested variant of a listed name stays in.

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
