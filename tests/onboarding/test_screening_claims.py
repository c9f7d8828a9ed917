"""No duplicate screening work (issue 29): the sweep of unscreened entities sends a task only for an entity with no
screening queued or running, and a second onboarding or sweep screening of an entity being screened does nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from onboarding.models import ComplianceCheck, Entity
from onboarding.services import screening_claims
from onboarding.services.screening import entity_screen
from onboarding.tasks import sweep_unscreened
from tests.onboarding.helpers import PERSON

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(api, org, key, django_capture_on_commit_callbacks):
    """An entity whose onboarding screening task is queued and not yet run (its on-commit enqueue captured, not executed),
    created long enough ago for the sweep to look at it."""
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = api(key(org, role="l1_analyst")).post("/v1/onboarding/entities", PERSON, format="json")
    assert response.status_code == 201 and len(callbacks) >= 1
    Entity.objects.filter(pk=response.json()["id"]).update(created_at=timezone.now() - timedelta(minutes=5))
    return Entity.objects.get(pk=response.json()["id"])


def sanctions_checks(entity) -> int:
    return ComplianceCheck.objects.filter(entity=entity, check_type="sanctions").count()


def test_the_sweep_does_not_duplicate_a_queued_screening(queued):
    assert queued.screening_queued_until > timezone.now()  # taken as onboarding enqueued the task
    sweep_unscreened.delay()
    sweep_unscreened.delay()
    assert sanctions_checks(queued) == 0  # still queued, not lost: nothing sent again

    Entity.objects.filter(pk=queued.pk).update(screening_queued_until=timezone.now() - timedelta(seconds=1))  # the lease ran out
    sweep_unscreened.delay()
    check = ComplianceCheck.objects.get(entity=queued, check_type="sanctions")
    assert check.details["trigger"] == "sweep"
    sweep_unscreened.delay()
    assert sanctions_checks(queued) == 1
    queued.refresh_from_db()
    assert (queued.screening_queued_until, queued.screening_running_until) == (None, None)  # released when the run ended


def test_the_queued_lease_is_taken_once(queued):
    Entity.objects.filter(pk=queued.pk).update(screening_queued_until=None)
    assert screening_claims.claim_queued(queued.pk) is True
    assert screening_claims.claim_queued(queued.pk) is False
    queued.refresh_from_db()
    assert queued.screening_queued_until > timezone.now()


@pytest.mark.parametrize("trigger", ["onboarding", "sweep"])
def test_screening_an_entity_being_screened_is_a_no_op(queued, trigger):
    assert screening_claims.claim_run(queued.pk, trigger="onboarding") is True  # a screening of it is running
    assert entity_screen(entity_id=queued.pk, trigger=trigger) is None
    assert sanctions_checks(queued) == 0
    queued.refresh_from_db()
    assert queued.screening_running_until > timezone.now()  # the running one still holds its lease


def test_a_rescreening_for_changed_lists_always_runs(queued):
    """It screens against a list version the running screening may not have seen: never dropped."""
    assert screening_claims.claim_run(queued.pk, trigger="onboarding") is True
    check = entity_screen(entity_id=queued.pk, trigger="lists_changed")
    assert check is not None and sanctions_checks(queued) == 1 and check.details["trigger"] == "lists_changed"


def test_a_lease_left_by_a_killed_worker_runs_out(queued):
    Entity.objects.filter(pk=queued.pk).update(screening_running_until=timezone.now() - timedelta(seconds=1))
    assert entity_screen(entity_id=queued.pk, trigger="sweep") is not None
    assert sanctions_checks(queued) == 1
