"""Cases by hand (the services behind the console): open, split and merge."""

import pytest

from common.errors import Conflict, Forbidden, ValidationFailed
from common.principal import Principal
from filings.cases.regroup import case_open, case_split, cases_merge
from filings.models import Case, CaseAlert, CaseEvent
from tests.filings.conftest import make_alert, open_case
from webhooks.models import Event

pytestmark = pytest.mark.django_db


def investigator(org, role="l2_investigator"):
    return Principal(credential="session", organization=org, mode="test", role=role)


@pytest.fixture
def case(org, onboard):
    entity = onboard()
    case = open_case(entity, severity="low")
    from filings.cases.attach import cases_attach_alerts

    cases_attach_alerts(organization=org, mode="test", alerts=[make_alert(entity, severity="critical"), make_alert(entity)])
    case.refresh_from_db()
    return case


def test_split_moves_alerts_to_a_new_case(org, case):
    critical = case.alerts.get(severity="critical")
    new = case_split(principal=investigator(org), case_id=case.pk, alert_ids=[critical.pk], reason="A separate matter.")
    case.refresh_from_db()
    assert (new.origin, new.number, new.priority) == ("split", 2, "critical") and list(new.alerts.all()) == [critical]
    assert case.alerts.count() == 2 and case.priority == "medium"
    assert CaseEvent.objects.filter(case=case, kind="alerts_detached").exists()
    assert CaseEvent.objects.get(case=new, kind="created").data["split_from"] == str(case.pk)
    assert Event.objects.filter(type="case.created", data__case_id=str(new.pk)).exists()
    with pytest.raises(Conflict):  # not every alert
        case_split(principal=investigator(org), case_id=case.pk, alert_ids=list(case.alerts.values_list("pk", flat=True)))
    with pytest.raises(ValidationFailed):  # an alert of another case
        case_split(principal=investigator(org), case_id=case.pk, alert_ids=[critical.pk])


def test_merge_closes_the_sources_into_the_target(org, case):
    second = case_open(principal=investigator(org), entity_id=case.entity_id, alert_ids=[case.alerts.first().pk], reason="By hand")
    merged = cases_merge(principal=investigator(org), case_id=case.pk, source_case_ids=[second.pk], reason="Same activity.")
    second.refresh_from_db()
    assert merged.alerts.count() == 3 and second.status == "closed" and second.merged_into_id == case.pk
    assert second.filing_status == "not_filed" and not CaseAlert.objects.filter(case=second).exists()
    closing = Event.objects.get(type="case.status_changed", data__case_id=str(second.pk))
    assert closing.data["new_status"] == "closed"
    assert CaseEvent.objects.filter(case=case, kind="merged").exists()
    with pytest.raises(Conflict):  # closed cases are not merged
        cases_merge(principal=investigator(org), case_id=case.pk, source_case_ids=[second.pk])


def test_merge_is_one_entitys(org, onboard, case):
    other = open_case(onboard())
    with pytest.raises(Conflict):
        cases_merge(principal=investigator(org), case_id=case.pk, source_case_ids=[other.pk])


def test_open_by_hand_without_alerts_and_roles(org, other_org, case):
    empty = case_open(principal=investigator(org), entity_id=case.entity_id, title="Adverse media follow-up")
    assert empty.alerts.count() == 0 and empty.origin == "manual" and empty.report_due_at
    with pytest.raises(Forbidden):
        case_open(principal=investigator(org, "l1_analyst"), entity_id=case.entity_id)
    with pytest.raises(ValidationFailed):
        case_open(principal=investigator(org), entity_id=case.entity_id, alert_ids=["00000000-0000-0000-0000-000000000001"])
    from common.errors import NotFound

    with pytest.raises(NotFound):
        case_open(principal=Principal(credential="session", organization=other_org, mode="test", role="admin"),
                  entity_id=case.entity_id)
    assert Case.objects.filter(entity_id=case.entity_id).count() == 2


def test_merge_locks_every_case_at_once_in_number_order(org, case, django_db_blocker):
    """Two merges in opposite directions (A into B, B into A) at once: each used to lock its own
    target first and then wait for the other's, a deadlock. Every case is now locked by the first
    locking statement, in number order, so one merge waits for the other and then finds its case closed."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's (SQLite locks the whole database)")
    second = case_open(principal=investigator(org), entity_id=case.entity_id, alert_ids=[case.alerts.first().pk], reason="By hand")
    with CaptureQueriesContext(connection) as queries:
        cases_merge(principal=investigator(org), case_id=second.pk, source_case_ids=[case.pk])
    locking = [q["sql"] for q in queries.captured_queries if "FOR NO KEY UPDATE" in q["sql"] and '"filings_case"' in q["sql"]]
    first = locking[0]
    assert str(case.pk).replace("-", "") in first.replace("-", "") and str(second.pk).replace("-", "") in first.replace("-", "")
    assert 'ORDER BY "filings_case"."number" ASC' in first
