"""SAR confidentiality on every surface (31 USC 5318(g)(2), docs/cases.md "SAR confidentiality").

A SAR is filed through the API, then every GET operation of the OpenAPI document is called with a
`viewer` and an `l1_analyst` key, its path parameters filled with the ids of real objects of the
right kind: no answer may hold the filing's tracking id or BSA id, or the word SAR. A new GET
operation is covered as soon as it is in the document; one whose parameter this test cannot fill
fails it, until it is filled here or listed in UNFILLABLE with a reason. The console's pages are
read the same way by staff members below l2_investigator."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.utils import timezone

from accounts.models import SSOConnection
from common.models import AuditLogEntry
from compliance.models import CounterpartyVasp, TravelRuleTransfer
from filings.models import FilingRecord
from monitoring.models import FiatEvent, Fincen314aFile, Notification
from onboarding.models import ComplianceCheck
from organizations.models import Invitation, Membership
from tests.compliance.travel_rule_helpers import INITIATE, customers, transfer_body
from tests.filings.conftest import BASE, ingest_fiat, open_case, review, with_filer
from webhooks.models import Delivery, Event, WebhookEndpoint

pytestmark = pytest.mark.django_db

BELOW_L2 = ("viewer", "l1_analyst")
SAR_WORD = re.compile(r"\bsar\b|suspicious[- ]activity report", re.IGNORECASE)
UNFILLABLE: dict[tuple[str, str], str] = {}
"""(path, parameter) → why no object of this test can fill it; the operation is then not called."""
QUERY_VALUES = {"code": "x", "state": "x", "token": "x", "q": "Nova"}


@pytest.fixture
def world(org, officer, onboard, priced, api, key, django_capture_on_commit_callbacks):
    """A SAR filed through the API, and one object of every kind a GET path names."""
    with_filer(org, "US")
    admin = api(key(org, role="admin"))
    with django_capture_on_commit_callbacks(execute=True):
        endpoint = admin.post("/v1/developer/webhook-endpoints", {"url": "https://hooks.example.com/in", "event_types": [
            "sar.filed", "case.status_changed", "alert.created"]}, format="json")
        assert endpoint.status_code == 201, endpoint.json()
        entity = onboard("US")
        case = open_case(entity, transactions=3)
        ingest_fiat(officer, entity, amounts=["2500"])
        review(officer, case)
        filed = officer.post(f"{BASE}/cases/{case.pk}/file-sar", {}, format="json")
        assert filed.status_code == 200, filed.json()
    record = FilingRecord.objects.get()
    record.bsa_id = "31000123456789"
    record.save(update_fields=["bsa_id"])
    alert = case.alerts.first()
    transaction = alert.transactions.order_by("timestamp").first()
    wallet = entity.wallets.first()
    check = ComplianceCheck.objects.filter(entity=entity).first() or ComplianceCheck.objects.create(
        organization=org, mode="test", entity=entity, check_type="kyc", result="pass", provider="manual", summary="Manual KYC.")
    vasp = CounterpartyVasp.objects.create(organization=org, mode="test", name="Partner VASP", inquiry_url="https://vasp.example.com/tr",
                                           shared_secret="s" * 32)
    connection = SSOConnection.objects.create(organization=org, name="Acme", protocol="oidc", oidc_issuer="https://127.0.0.1:9",
                                              oidc_client_id="client")
    now = timezone.now()
    file_314a = Fincen314aFile.objects.create(organization=org, mode="test", filename="314a_2026-11-03.csv", period="2026-11-03",
                                              subjects_count=0, status="completed", content_sha256="0" * 64, estimated_completion=now,
                                              response_deadline=now, enqueued_at=now)
    Invitation.objects.create(organization=org, email="new@acme.example", role="viewer", expires_at=now)
    with django_capture_on_commit_callbacks(execute=True):
        initiated = admin.post(INITIATE, transfer_body(*customers(admin)), format="json")
    assert initiated.status_code == 200, initiated.json()
    assert Notification.objects.filter(type="sar_filed").exists() and Event.objects.filter(type="sar.filed").exists()
    assert Delivery.objects.filter(event__type="sar.filed").exists()
    assert AuditLogEntry.objects.filter(action="report.filed").exists()
    job = admin.post(f"/v1/monitoring/rules/{alert.rule_code}/backtest",
                     {"asynchronous": True, "from_date": "2026-01-01", "to_date": "2026-12-31"}, format="json")
    assert job.status_code == 202, job.json()
    path_values = {
        "entity_id": entity.pk, "case_id": case.pk, "alert_id": alert.pk, "filing_id": record.pk, "check_id": check.pk,
        "event_id": FiatEvent.objects.get(entity=entity).pk, "transfer_id": transaction.pk,
        "transfer/{transfer_id}": TravelRuleTransfer.objects.get().pk, "tx_hash": transaction.tx_hash,
        "chain_id": wallet.chain_id, "address": wallet.address, "rule_id": alert.rule_code, "file_id": file_314a.pk,
        "connection_id": connection.pk, "vasps/{id}": vasp.pk, "webhook-endpoints/{id}": WebhookEndpoint.objects.get().pk,
        "job_id": job.json()["id"],
    }
    return {"record": record, "entity": entity, "case": case, "path_values": path_values,
            "query_values": {**QUERY_VALUES, "connection_id": connection.pk}}


def secrets_of(record: FilingRecord) -> list[str]:
    return [record.tracking_id, record.bsa_id, record.document_sha256]


def leaks(body: str, record: FilingRecord) -> list[str]:
    found = [secret for secret in secrets_of(record) if secret in body]
    return found + [f"the word {match.group(0)!r}" for match in SAR_WORD.finditer(body)][:1]


def get_operations(client) -> list[tuple[str, dict]]:
    document = client.get("/v1/openapi.json").json()
    return [(path, item["get"]) for path, item in sorted(document["paths"].items()) if "get" in item]


def filled(path: str, operation: dict, world: dict) -> tuple[str, dict] | None:
    """The operation's URL and required query, or None when it is listed in UNFILLABLE; a parameter
    neither filled nor listed fails the test."""
    url, query = path, {}
    for parameter in operation.get("parameters", []):
        name, place = parameter["name"], parameter["in"]
        if (path, name) in UNFILLABLE:
            return None
        if place == "path":
            segment = f"{path.split('/{' + name + '}')[0].rsplit('/', 1)[-1]}/{{{name}}}"
            value = world["path_values"].get(segment, world["path_values"].get(name)) if name != "id" else world["path_values"].get(segment)
            assert value is not None, f"{path}: no object fills the path parameter {name}: fill it in `world` or list it in UNFILLABLE"
            url = url.replace(f"{{{name}}}", str(value))
        elif place == "query" and parameter.get("required"):
            assert name in world["query_values"], f"{path}: the required query parameter {name} is not filled"
            query[name] = world["query_values"][name]
    return url, query


def body_text(response, echoed: str | None = None) -> str:
    if echoed is not None:  # the search answers with the query it was sent: the caller's own words are not a leak
        return json.dumps({**response.json(), "query": None})
    content = b"".join(response.streaming_content) if response.streaming else response.content
    if response.get("Content-Type", "").startswith("application/pdf"):
        return content.decode("latin-1")  # the PDF's text streams are compressed: the words are checked in its content below
    return content.decode("utf-8", "replace") + " " + " ".join(f"{name}: {value}" for name, value in response.items())


def test_no_get_operation_reveals_a_sar_below_l2_investigator(api, org, key, world):
    record = world["record"]
    operations = get_operations(api())
    assert len(operations) >= 60
    searches = [record.tracking_id, record.bsa_id, "SAR", world["case"].reference, world["entity"].legal_name]
    called, found = 0, []
    for role in BELOW_L2:
        client = api(key(org, role=role))
        for path, operation in operations:
            target = filled(path, operation, world)
            if target is None:
                continue
            url, query = target
            for value in (searches if path == "/v1/onboarding/search" else [None]):
                response = client.get(url, {**query, "q": value} if value else query)
                called += 1
                assert response.status_code != 500, (role, url, response.status_code)  # 502: an identity provider not reached
                leaked = leaks(body_text(response, echoed=value), record)
                if leaked:
                    found.append(f"{role} GET {url} {query or ''}{value or ''} → {response.status_code}: {', '.join(leaked)}")
    assert not found, "\n".join(found)
    assert called >= 2 * len(operations)


def test_the_certificate_names_no_report(api, org, key, world):
    from onboarding.reports.certificate import certificate_content

    content = str(certificate_content(world["entity"], issuer=org))
    assert not leaks(content, world["record"])


def test_l2_investigator_sees_the_sar(api, org, key, world):
    """The other side: the same reads show it from l2_investigator, so the test above can fail."""
    record, entity = world["record"], world["entity"]
    investigator = api(key(org, role="l2_investigator"))
    history = investigator.get(f"{BASE}/entities/{entity.pk}/sar-history").json()
    assert [row["tracking_id"] for row in history["data"]] == [record.tracking_id]
    report = investigator.get(f"{BASE}/entities/{entity.pk}/compliance-report").content.decode()
    assert record.tracking_id in report and record.document_sha256 in report and "filing filed" in report
    case = investigator.get(f"{BASE}/entities/{entity.pk}/cases/{world['case'].pk}").json()
    assert case["filing_status"] == "filed" and case["filings"][0]["tracking_id"] == record.tracking_id
    notifications = investigator.get("/v1/monitoring/notifications").json()["notifications"]
    assert "sar_filed" in [row["type"] for row in notifications]
    endpoint_id = world["path_values"]["webhook-endpoints/{id}"]
    deliveries = investigator.get(f"/v1/developer/webhook-endpoints/{endpoint_id}/deliveries").json()["data"]
    assert "sar.filed" in [row["event_type"] for row in deliveries]
    assert "sar.filed" in investigator.get(f"/v1/developer/webhook-endpoints/{endpoint_id}").json()["event_types"]
    # below l2 the same stored rows are there, unchanged: what is hidden is hidden on reading
    viewer = api(key(org, role="viewer"))
    assert viewer.get(f"{BASE}/entities/{entity.pk}/sar-history").status_code == 403
    assert viewer.get(f"{BASE}/entities/{entity.pk}/cases/{world['case'].pk}").json()["filing_status"] is None
    assert FilingRecord.objects.filter(tracking_id=record.tracking_id).count() == 1


def console(org, role: str) -> Client:
    from accounts.models import User

    user = User.objects.create_user(email=f"{role}.console@acme.example", password="Correct-Horse-9-Battery")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    user.user_permissions.set(Permission.objects.filter(codename__regex=r"^view_"))
    Membership.objects.create(organization=org, user=user, role=role)
    client = Client()
    client.force_login(user)
    return client


def console_pages(world) -> list[str]:
    record, case, entity = world["record"], world["case"], world["entity"]
    alert = case.alerts.first()
    sar_entries = AuditLogEntry.objects.filter(action__in=("report.filed", "report.draft_saved", "case.status_changed"))
    event, delivery = Event.objects.get(type="sar.filed"), Delivery.objects.get(event__type="sar.filed")
    endpoint = world["path_values"]["webhook-endpoints/{id}"]
    return ["/admin/", "/admin/filings/case/?queue=all", f"/admin/filings/case/{case.pk}/change/", "/admin/filings/filingrecord/",
            f"/admin/filings/filingrecord/{record.pk}/change/", "/admin/common/auditlogentry/",
            "/admin/common/auditlogentry/?q=report", *[f"/admin/common/auditlogentry/{e.pk}/change/" for e in sar_entries],
            "/admin/webhooks/event/", f"/admin/webhooks/event/{event.pk}/change/", "/admin/webhooks/delivery/",
            f"/admin/webhooks/delivery/{delivery.pk}/change/", f"/admin/webhooks/webhookendpoint/{endpoint}/change/",
            f"/admin/monitoring/alert/{alert.pk}/change/", f"/admin/onboarding/entity/{entity.pk}/change/"]


@pytest.mark.parametrize("role", BELOW_L2)
def test_the_console_reveals_no_sar_below_l2_investigator(org, world, role):
    reader, record = console(org, role), world["record"]
    found = []
    for url in console_pages(world):
        response = reader.get(url, follow=True)
        assert response.status_code in (200, 403, 404), (url, response.status_code)
        leaked = leaks(response.content.decode(), record)
        if leaked:
            found.append(f"{role} {url}: {', '.join(leaked)}")
    assert not found, "\n".join(found)


def test_the_console_shows_the_sar_to_an_investigator(org, world):
    investigator, record = console(org, "l2_investigator"), world["record"]
    assert record.tracking_id in investigator.get("/admin/filings/filingrecord/").content.decode()
    entry = AuditLogEntry.objects.get(action="report.filed")
    assert record.tracking_id in investigator.get(f"/admin/common/auditlogentry/{entry.pk}/change/").content.decode()
    assert "sar.filed" in investigator.get("/admin/webhooks/event/").content.decode()


def test_unfillable_operations_are_still_in_the_document(api):
    """An UNFILLABLE entry names an operation of the document: a stale one is removed."""
    paths = {path for path, _ in get_operations(api())}
    assert {path for path, _ in UNFILLABLE} <= paths


def test_the_policy_names_what_the_filings_and_webhooks_apps_use():
    """common.confidentiality names the suspicious-activity kinds and the event and notification types
    as strings (common sits below the apps): they are the apps' own."""
    from common.confidentiality import SAR_CASE_FILING_STATUSES, SAR_EVENT_TYPES, SAR_KINDS, SAR_NOTIFICATION_TYPES
    from filings.choices import FilingStatus
    from filings.renderers.generic import GenericStrRenderer
    from filings.renderers.registry import SUSPICIOUS_ACTIVITY
    from monitoring.models import NotificationType
    from webhooks.catalogue import CATALOGUE

    assert set(SAR_KINDS) == {renderer.kind for renderer in SUSPICIOUS_ACTIVITY.values()} | {GenericStrRenderer.kind}
    assert set(CATALOGUE) >= SAR_EVENT_TYPES and set(NotificationType.values) >= SAR_NOTIFICATION_TYPES
    assert set(SAR_CASE_FILING_STATUSES) == set(FilingStatus.values) - {FilingStatus.NONE, FilingStatus.NOT_FILED}


def test_large_transaction_reports_stay_in_the_compliance_report(api, org, key, world):
    """A CTR is not confidential in this sense: a viewer's compliance report lists it, not the SAR."""
    sar, entity = world["record"], world["entity"]
    ctr = FilingRecord.objects.get(pk=sar.pk)
    ctr.pk, ctr.kind, ctr.family, ctr.case = None, "CTR", "large_transaction", None
    ctr.tracking_id, ctr.bsa_id, ctr.document_sha256 = "CTR-US-20261128-0000BEEF", "", "c" * 64
    ctr.save()
    report = api(key(org, role="viewer")).get(f"{BASE}/entities/{entity.pk}/compliance-report").content.decode()
    assert '"filing","CTR","CTR CTR-US-20261128-0000BEEF' in report and sar.tracking_id not in report
    assert f'"{world["case"].reference} (' in report and "filing filed" not in report
    assert FilingRecord.objects.filter(entity=entity).count() == 2
