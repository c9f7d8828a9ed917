"""cases_attach_alerts and cases_attach_opened: new alerts join their entity's open case or open one (case.created)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from filings.cases.attach import cases_attach_alerts, cases_attach_opened
from filings.models import Case, CaseEvent
from tests.filings.conftest import make_alert
from webhooks.models import Event

pytestmark = pytest.mark.django_db


def test_first_alert_opens_a_case_and_later_ones_join_it(org, onboard):
    entity = onboard()
    first = make_alert(entity, severity="medium")
    opened = cases_attach_alerts(organization=org, mode="test", alerts=[first])
    case = Case.objects.get()
    assert opened == {first.pk: case.pk} and case.status == "open" and case.priority == "medium" and case.number == 1
    second, third = make_alert(entity, severity="critical"), make_alert(entity)
    joined = cases_attach_alerts(organization=org, mode="test", alerts=[second, third.pk])
    assert set(joined) == {second.pk, third.pk} and set(joined.values()) == {case.pk} and Case.objects.count() == 1
    case.refresh_from_db()
    assert case.priority == "critical"
    created = Event.objects.get(type="case.created")
    assert created.data == {"case_id": str(case.pk), "entity_id": str(entity.pk), "status": "open", "priority": "medium",
                            "assigned_to": None, "alert_ids": [str(first.pk)], "created_at": created.data["created_at"]}
    assert list(CaseEvent.objects.filter(case=case).values_list("kind", flat=True)) == ["created", "alerts_attached"]


def test_alerts_just_opened_join_or_open_cases_as_with_any_alerts_without_being_read_back(org, onboard):
    """cases_attach_opened (monitoring, in the transaction that opened the alerts) does what
    cases_attach_alerts does, oldest alert first, without reading the alerts."""
    entity, other = onboard(), onboard()
    older = make_alert(entity, severity="low", created_at=timezone.now() - timedelta(minutes=5))
    newer, elsewhere = make_alert(entity, severity="high"), make_alert(other)
    with CaptureQueriesContext(connection) as captured:
        attached = cases_attach_opened(organization=org, mode="test", alerts=[newer, elsewhere, older])
    case, other_case = Case.objects.get(entity=entity), Case.objects.get(entity=other)
    assert attached == {older.pk: case.pk, newer.pk: case.pk, elsewhere.pk: other_case.pk}
    assert (case.priority, case.status, Case.objects.count()) == ("high", "open", 2)
    created = Event.objects.get(type="case.created", data__case_id=str(case.pk))
    assert created.data["alert_ids"] == [str(older.pk), str(newer.pk)]  # oldest first, as cases_attach_alerts orders them
    assert not [query["sql"] for query in captured if 'FROM "monitoring_alert"' in query["sql"]]

    later = make_alert(entity, severity="critical")
    assert cases_attach_opened(organization=org, mode="test", alerts=[later]) == {later.pk: case.pk}
    case.refresh_from_db()
    assert (case.priority, Case.objects.count()) == ("critical", 2)
    assert list(CaseEvent.objects.filter(case=case).values_list("kind", flat=True)) == ["created", "alerts_attached"]
    assert cases_attach_opened(organization=org, mode="test", alerts=[]) == {}
