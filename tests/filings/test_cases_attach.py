"""cases_attach_alerts: new alerts join their entity's open case or open one (case.created)."""

import pytest

from filings.cases.attach import cases_attach_alerts
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
