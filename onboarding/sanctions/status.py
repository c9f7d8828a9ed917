"""How current each loaded list is: for `make run`'s lines, `manage.py sanctions_status` and /health.

A list is as current as the newer of its publication date and its last refresh that reached the
publisher (a refresh that found the content unchanged still proves it current). The bundled
snapshot carries the date its manifest records, so on a fresh clone the lists are as old as the
snapshot; past SANCTIONS_STALE_DAYS (30) a list is stale: screening still runs against it, but
/health says `degraded` and `make run` warns, until `manage.py refresh_sanctions` brings it up to date.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from onboarding.models.sanctions import RefreshOutcome, SanctionsList
from onboarding.sanctions.registry import list_name
from onboarding.sanctions.selectors import refresh_failures

STALE_DAYS = 30
REFRESH_HINT = ".venv/bin/python manage.py refresh_sanctions"


def stale_days() -> int:
    return int(getattr(settings, "SANCTIONS_STALE_DAYS", STALE_DAYS))


@dataclass(frozen=True)
class ListStatus:
    source: str
    name: str
    category: str
    entry_count: int
    published_at: datetime | None
    current_as_of: datetime
    age_days: int
    stale: bool
    version: int | None
    last_refresh_at: datetime | None
    last_refresh_outcome: str
    last_refresh_error: str
    refresh_failures: int

    @property
    def stale_problem(self) -> str | None:
        return f"{self.source} is {self.age_days} days old (more than {stale_days()})" if self.stale else None

    def as_dict(self) -> dict:
        return {
            "source": self.source, "name": self.name, "category": self.category, "entries": self.entry_count,
            "published_at": self.published_at.isoformat() if self.published_at else None,
            "current_as_of": self.current_as_of.isoformat(), "age_days": self.age_days, "stale": self.stale,
            "version": self.version, "last_refresh_outcome": self.last_refresh_outcome or None,
            "refresh_failures": self.refresh_failures,
        }



def _current_as_of(row: SanctionsList) -> datetime:
    dates = [row.published_at] if row.published_at else []
    if row.last_refresh_at and row.last_refresh_outcome in (RefreshOutcome.LOADED, RefreshOutcome.UNCHANGED):
        dates.append(row.last_refresh_at)
    return max(dates) if dates else row.loaded_at


def lists_status(*, now: datetime | None = None) -> list[ListStatus]:
    """Every loaded list, in the registry's order of sources (bundled first)."""
    now = now or timezone.now()
    statuses = []
    for row in SanctionsList.objects.annotate(version_number=Max("versions__number")).order_by("source"):
        as_of = _current_as_of(row)
        age = max((now - as_of).days, 0)
        statuses.append(ListStatus(
            source=row.source, name=list_name(row.source), category=row.category, entry_count=row.entry_count,
            published_at=row.published_at, current_as_of=as_of, age_days=age, stale=age > stale_days(),
            version=row.version_number, last_refresh_at=row.last_refresh_at, last_refresh_outcome=row.last_refresh_outcome,
            last_refresh_error=row.last_refresh_error, refresh_failures=row.refresh_failures,
        ))
    return statuses


def refresh_problems(*, with_errors: bool = True) -> list[str]:
    """One line per list whose last refresh failed or was refused (a never-loaded list too); without
    the error's text for /health, which anyone may read (it can name an internal mirror)."""
    return [f"{failure.source}: the last refresh {failure.outcome} ({failure.failures} in a row since "
            f"{failure.since:%Y-%m-%d %H:%M} UTC)" + (f": {failure.error[:200]}" if with_errors else "")
            for failure in refresh_failures()]


def health_check() -> dict:
    """/health's `sanctions_lists`: ok unless no list is loaded, a list is stale or its last refresh failed."""
    statuses = lists_status()
    problems = [status.stale_problem for status in statuses if status.stale] + refresh_problems(with_errors=False)
    if not statuses:
        problems.insert(0, "no sanctions list is loaded: screening records 'lists not loaded' (python manage.py load_sanctions)")
    return {"ok": not problems, "problems": problems, "lists": [status.as_dict() for status in statuses]}
