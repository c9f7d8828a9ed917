"""The time the webhook services read. One function, so tests can move time (retry schedules of
hours) by replacing it, while rows' own `created_at`/`updated_at` keep the real time."""

from datetime import datetime

from django.utils import timezone


def now() -> datetime:
    return timezone.now()
