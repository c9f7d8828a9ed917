"""Reads of the sanctions lists' refresh state (the console, /health)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max, Min, Q

from onboarding.models.sanctions import RefreshOutcome, SanctionsRefresh
from onboarding.sanctions.registry import list_name

BAD_OUTCOMES = (RefreshOutcome.FAILED, RefreshOutcome.REFUSED)
GOOD_OUTCOMES = (RefreshOutcome.LOADED, RefreshOutcome.UNCHANGED)


@dataclass(frozen=True)
class RefreshFailure:
    """A list whose last refresh failed or was refused: the version in force (if any) is older than
    the publisher's, or at least not known to be current."""

    source: str
    name: str  # the registry's name of the list (the source itself for a list it does not know)
    outcome: str  # failed | refused: the last attempt's
    error: str  # the last attempt's message
    since: datetime  # when the first failed or refused attempt after the last good one started
    last_attempt_at: datetime  # when the last attempt finished
    failures: int  # failed or refused attempts since the last good one

    def as_dict(self) -> dict:
        return {"source": self.source, "name": self.name, "outcome": self.outcome, "error": self.error,
                "since": self.since.isoformat(), "last_attempt_at": self.last_attempt_at.isoformat(), "failures": self.failures}



def refresh_failures() -> list[RefreshFailure]:
    """The lists whose last finished refresh failed or was refused, with its error and since when they
    have failed, by source. A list never loaded (its first download failed) is among them: the refresh
    log, not the list's row, is read. Three queries, whatever the length of the log."""
    finished = SanctionsRefresh.objects.filter(finished_at__isnull=False)
    last_good = dict(finished.filter(outcome__in=GOOD_OUTCOMES).values("source").annotate(at=Max("started_at"))
                     .values_list("source", "at"))
    after_good = Q(outcome__in=BAD_OUTCOMES) & ~Q(source__in=list(last_good))
    for source, at in last_good.items():
        after_good |= Q(outcome__in=BAD_OUTCOMES, source=source, started_at__gt=at)
    streaks = {row["source"]: row for row in finished.filter(after_good).values("source")
               .annotate(since=Min("started_at"), last=Max("started_at"), failures=Count("id"))}
    if not streaks:
        return []
    last_attempts = Q()
    for source, row in streaks.items():
        last_attempts |= Q(source=source, started_at=row["last"])
    latest = {}
    for refresh in finished.filter(last_attempts, outcome__in=BAD_OUTCOMES).order_by("source", "-finished_at"):
        latest.setdefault(refresh.source, refresh)
    return [
        RefreshFailure(source=source, name=list_name(source), outcome=latest[source].outcome, error=latest[source].message,
                       since=row["since"], last_attempt_at=latest[source].finished_at, failures=row["failures"])
        for source, row in sorted(streaks.items())
    ]


def snapshot_superseded(source: str) -> str | None:
    """Why the bundled snapshot of `source` must not be loaded over the version in force, or None.

    `make run` loads the snapshot on every start; once a list was refreshed from its publisher or
    loaded from a file, the snapshot is older, and loading it would delist every party designated
    since (and re-screening would then clear their hits). A version in force that is itself a
    bundled one, of an older snapshot, is replaced."""
    from onboarding.models.sanctions import SanctionsListVersion, VersionOrigin
    from onboarding.sanctions.registry import snapshot_published_at

    current = (SanctionsListVersion.objects.filter(sanctions_list__source=source).order_by("-number")
               .values("number", "origin", "published_at", "loaded_at").first())
    if current is None:
        return None
    if current["origin"] != VersionOrigin.BUNDLED:
        return f"version {current['number']} in force came from a {current['origin']} on {current['loaded_at']:%Y-%m-%d}"
    snapshot = snapshot_published_at(source)
    if current["published_at"] and snapshot and current["published_at"].date() > snapshot.date():  # the manifest gives a day
        return f"version {current['number']} in force was published on {current['published_at']:%Y-%m-%d}, after the snapshot"
    return None
