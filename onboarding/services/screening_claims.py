"""Claims on an entity's sanctions screening, so that no entity is screened twice for one reason.

Two leases on the entity row, taken with a conditional UPDATE as webhook deliveries take theirs
(webhooks/delivery.py): the claim is the UPDATE that matched the row, so two workers or two sweeps
can never both hold it.

- queued (`Entity.screening_queued_until`): a screening task for the entity is on the queue. Onboarding
  sets it as it enqueues the first screening; the beat sweep of unscreened entities
  (onboarding.tasks.sweep_unscreened) sends a task only for an entity whose queued lease is over,
  and takes the lease as it sends. Under a backlog the task is still queued, not lost: before, the
  sweep sent another every five minutes (10,596 screenings for 6,620 entities).
- running (`Entity.screening_running_until`): a screening of the entity is running. A second
  onboarding or sweep screening that starts meanwhile does nothing (`claim_run` is False). A
  re-screening for changed lists or for a new wallet always runs: it screens what the running one
  may not have seen (the new list version, the new wallet); the entity row lock serialises the writes.

A worker killed mid-run leaves its leases to run out: the sweep then hands the entity out again.
Both leases are cleared when a run ends.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from onboarding.models import Entity

# Screening triggers that only say "this entity has not been screened yet": a second one while one is in
# flight is the same work again.
DEDUPLICATED_TRIGGERS = frozenset({"onboarding", "sweep"})


def queued_lease() -> timedelta:
    """How long a queued screening task is trusted to reach a worker before the sweep sends another."""
    return timedelta(seconds=getattr(settings, "SCREENING_QUEUED_LEASE_SECONDS", 900))


def running_lease() -> timedelta:
    """How long a screening may run before another may start: the screen_entity task's time limit."""
    return timedelta(seconds=getattr(settings, "SCREENING_RUNNING_LEASE_SECONDS", 300))


def _free(field: str, now) -> Q:
    return Q(**{f"{field}__isnull": True}) | Q(**{f"{field}__lt": now})


def claim_queued(entity_id) -> bool:
    """Take the queued lease of an entity with no screening queued or running; True if taken (send the task)."""
    now = timezone.now()
    return bool(Entity.objects.filter(_free("screening_queued_until", now) & _free("screening_running_until", now), pk=entity_id)
                .update(screening_queued_until=now + queued_lease()))


def claim_run(entity_id, *, trigger: str) -> bool:
    """Take the running lease for a screening run; False (do nothing) when one of the triggers that are
    deduplicated finds another run in flight. Other triggers always run (and take the lease)."""
    now = timezone.now()
    entities = Entity.objects.filter(pk=entity_id)
    if trigger in DEDUPLICATED_TRIGGERS:
        entities = entities.filter(_free("screening_running_until", now))
    return bool(entities.update(screening_running_until=now + running_lease()))


def release(entity_id) -> None:
    """The run ended: nothing is queued or running for the entity any more."""
    Entity.objects.filter(pk=entity_id).update(screening_queued_until=None, screening_running_until=None)
