"""The case state machine: every allowed and refused transition, roles, reasons, the
`case.status_changed` payload, reopening, and concurrent transitions (one wins, one 409)."""

import threading
from itertools import product

import pytest
import requests
from django.db import connection

from common.errors import Conflict
from common.principal import Principal
from filings.cases.services import status_move
from filings.choices import CASE_TRANSITIONS, CaseStatus
from filings.models import Case, CaseEvent
from monitoring.models import Alert
from tests.filings.conftest import BASE, open_case
from webhooks.models import Event

pytestmark = pytest.mark.django_db

STATUSES = [status.value for status in CaseStatus]
ALLOWED = {
    "open": {"investigating", "closed"},
    "investigating": {"under_review", "escalated", "determination", "closed"},
    "under_review": {"investigating", "determination"},
    "escalated": {"investigating", "determination"},
    "determination": {"investigating", "closed"},
    "closed": {"investigating"},
}
SPEC_FIELDS = {"case_id", "entity_id", "previous_status", "new_status", "assigned_to", "alert_ids", "updated_at"}


def test_the_enum_carries_exactly_the_issues_machine():
    assert {status: set(targets) for status, targets in CASE_TRANSITIONS.items()} == ALLOWED
    assert CaseStatus.targets("investigating") == ("under_review", "escalated", "determination", "closed")


@pytest.fixture
def case(onboard):
    return open_case(onboard(), transactions=1)


def post_status(client, case, status, reason="documented"):
    return client.post(f"{BASE}/cases/{case.pk}/status", {"status": status, "reason": reason}, format="json")


@pytest.mark.parametrize("source", STATUSES)
def test_every_transition_from(source, api, key, org, case):
    client = api(key(org, role="l3_officer"))
    for target in STATUSES:
        Case.objects.filter(pk=case.pk).update(status=source)
        response = post_status(client, case, target)
        if target in ALLOWED[source]:
            assert response.status_code == 200, (source, target, response.json())
            assert response.json()["status"] == target and Case.objects.get(pk=case.pk).status == target
        else:
            assert response.status_code == 409, (source, target)
            error = response.json()["error"]
            assert error["code"] == "CONFLICT" and Case.objects.get(pk=case.pk).status == source
            assert error["details"][0]["allowed"] == [s for s in STATUSES if s in ALLOWED[source]]
            assert all(allowed in error["message"] for allowed in ALLOWED[source])


def test_refused_transitions_change_nothing_and_emit_nothing(api, key, org, case):
    for source, target in product(STATUSES, STATUSES):
        if target in ALLOWED[source]:
            continue
        Case.objects.filter(pk=case.pk).update(status=source)
        assert post_status(api(key(org)), case, target).status_code == 409
    assert not Event.objects.filter(type="case.status_changed").exists()
    assert not CaseEvent.objects.filter(case=case, kind="status_changed").exists()


def test_payload_is_exactly_the_spec(api, key, org, member, case):
    investigator, _ = member(org, "l2_investigator")
    client = api(key(org, role="l2_investigator"))
    client.post(f"{BASE}/cases/{case.pk}/assign", {"assignee_id": str(investigator.pk)}, format="json")
    assert post_status(client, case, "investigating", "").status_code == 200
    event = Event.objects.get(type="case.status_changed")
    assert set(event.data) == SPEC_FIELDS
    assert event.data["previous_status"] == "open" and event.data["new_status"] == "investigating"
    assert event.data["assigned_to"] == str(investigator.pk) and event.data["case_id"] == str(case.pk)
    assert event.data["alert_ids"] == [str(alert.pk) for alert in case.alerts.all()]
    assert event.data["updated_at"].endswith("Z")
    assert set(Alert.objects.filter(case_link__case=case).values_list("status", flat=True)) == {"in_review"}


class TestRolesAndReasons:
    def test_roles(self, api, key, org, case):
        assert post_status(api(key(org, role="l1_analyst")), case, "investigating").status_code == 403
        assert post_status(api(key(org, role="viewer")), case, "investigating").status_code == 403
        assert post_status(api(), case, "investigating").status_code == 401
        Case.objects.filter(pk=case.pk).update(status="closed")
        refused = post_status(api(key(org, role="l2_investigator")), case, "investigating")
        assert refused.status_code == 403 and "l3_officer" in refused.json()["error"]["message"]
        assert post_status(api(key(org, role="l3_officer")), case, "investigating").status_code == 200

    def test_closing_and_reopening_need_a_reason(self, api, key, org, case):
        client = api(key(org, role="admin"))
        response = post_status(client, case, "closed", " ")
        assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "reason"
        closed = post_status(client, case, "closed", "No suspicious activity: payroll of a known employer.")
        assert closed.status_code == 200 and closed.json()["filing_status"] == "not_filed" and closed.json()["closed_at"]
        assert post_status(client, case, "investigating", "").status_code == 422
        reopened = post_status(client, case, "investigating", "New information from law enforcement.").json()
        assert reopened["status"] == "investigating" and reopened["closed_at"] is None and reopened["filing_status"] == "none"
        timeline = CaseEvent.objects.filter(case=case, kind="status_changed").order_by("created_at")
        assert [e.body for e in timeline] == ["No suspicious activity: payroll of a known employer.",
                                              "New information from law enforcement."]

    def test_bad_bodies(self, api, key, org, case):
        client = api(key(org))
        assert client.post(f"{BASE}/cases/{case.pk}/status", {"status": "filed"}, format="json").status_code == 422
        assert client.post(f"{BASE}/cases/{case.pk}/status", {}, format="json").status_code == 422
        assert client.post(f"{BASE}/cases/{case.pk}/status", {"status": "closed", "note": "x"}, format="json").status_code == 422
        assert client.post(f"{BASE}/cases/{case.pk}/status", "nope", content_type="application/json").status_code == 400


def test_a_stale_read_loses_to_the_conditional_update(org, case):
    """Two reviewers read `open`; the first moves it; the second's update finds no `open` row."""
    stale = Case.objects.get(pk=case.pk)
    Case.objects.filter(pk=case.pk).update(status="investigating")
    with pytest.raises(Conflict):
        status_move(Principal.system(org, "test"), stale, "closed", "race")
    assert Case.objects.get(pk=case.pk).status == "investigating"


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_one_wins_one_409(live_server, org, key, onboard):
    case = open_case(onboard(), transactions=1)
    secrets = [key(org, role="l3_officer"), key(org, role="l3_officer")]
    barrier, results = threading.Barrier(2), []

    def change(secret, target):
        barrier.wait()
        response = requests.post(f"{live_server.url}{BASE}/cases/{case.pk}/status", json={"status": target, "reason": "race"},
                                 headers={"Authorization": f"Bearer {secret}"}, timeout=60)
        results.append((target, response.status_code))
        connection.close()

    # Both move the open case to investigating: whichever runs second finds it investigating already.
    threads = [threading.Thread(target=change, args=(secret, "investigating")) for secret in secrets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    codes = sorted(code for _, code in results)
    assert codes == [200, 409], results
    assert Case.objects.get(pk=case.pk).status == "investigating"
    assert Event.objects.filter(type="case.status_changed").count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks between two open transactions")
@pytest.mark.django_db(transaction=True)
def test_an_alert_disposed_while_the_sar_is_filed_keeps_its_disposition(officer, org, onboard, priced):
    """An investigator disposes one of the case's alerts while an officer files the SAR: the filing
    waits for that disposition, keeps it, and closes the case's other alerts as true positives."""
    from django.db import transaction

    from filings.cases.attach import cases_attach_alerts
    from filings.models import FilingRecord
    from monitoring.alerts.services import alert_dispose
    from tests.concurrency import second_waits_for_first
    from tests.filings.conftest import make_alert, review, with_filer

    with_filer(org, "US")
    case = open_case(onboard("US", legal_name="Race Holdings Ltd"), transactions=2)
    other = make_alert(case.entity, transactions=1)
    cases_attach_alerts(organization=org, mode=case.mode, alerts=[other])
    disposed = Alert.objects.filter(case_link__case=case).exclude(pk=other.pk).get()
    review(officer, case)  # both alerts selected while open
    investigator = Principal(credential="system", organization=org, mode=case.mode, role="l2_investigator")
    held, release, outcome = threading.Event(), threading.Event(), {}

    def dispose():
        with transaction.atomic():
            alert_dispose(principal=investigator, alert_id=disposed.pk, disposition="false_positive", notes="Reviewed: payroll.")
            held.set()
            release.wait(60)

    def file():
        outcome["response"] = officer.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json")

    # the disposition is released once the filing waits for its lock
    second_waits_for_first(dispose, file, held=held, release=release, lock_timeout=60)
    assert outcome["response"].status_code == 200, outcome["response"].json()
    assert FilingRecord.objects.filter(case=case).count() == 1
    assert Alert.objects.get(pk=disposed.pk).disposition == "false_positive"
    assert Alert.objects.get(pk=other.pk).disposition == "true_positive"
    assert Case.objects.get(pk=case.pk).status == "closed"
