"""/v1/developer/webhook-endpoints: one class per operation (anonymous, wrong role, other tenant,
bad input, success), asserting bodies and stored state. No delivery is made here: on-commit work
does not run inside these tests' transactions (deliveries are tested in test_delivery)."""

import pytest

from common.models import AuditLogEntry
from tests.webhooks.conftest import alert_data, principal_of
from webhooks import services
from webhooks.models import Delivery, Event, WebhookEndpoint

pytestmark = pytest.mark.django_db
BASE = "/v1/developer/webhook-endpoints"
URL = "https://hooks.example.com/compliance"


@pytest.fixture
def admin_client(api, key, org):
    return api(key(org, role="admin"))


@pytest.fixture
def viewer_client(api, key, org):
    return api(key(org, role="viewer"))


@pytest.fixture
def endpoint(org):
    return services.endpoint_create(principal=principal_of(org), url=URL, event_types=["alert.created", "sar.filed"])


@pytest.fixture
def foreign_endpoint(other_org):
    return services.endpoint_create(principal=principal_of(other_org), url=URL, event_types=["alert.created"])


@pytest.fixture
def failed_delivery(org, endpoint):
    event = services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data())
    delivery = Delivery.objects.get(event=event)
    Delivery.objects.filter(pk=delivery.pk).update(status="failed", attempts=7, next_attempt_at=None, last_error="HTTP 500")
    return delivery


def assert_error(response, status: int, code: str):
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code


class TestCreate:
    def test_anonymous(self, api):
        assert_error(api().post(BASE, {"url": URL, "event_types": ["alert.created"]}), 401, "UNAUTHENTICATED")

    def test_wrong_role(self, viewer_client):
        assert_error(viewer_client.post(BASE, {"url": URL, "event_types": ["alert.created"]}), 403, "FORBIDDEN")
        assert not WebhookEndpoint.objects.exists()

    @pytest.mark.parametrize(("body", "field"), [
        ({"url": "http://hooks.example.com/x", "event_types": ["alert.created"]}, "url"),
        ({"url": "https://hooks.example.com/x", "event_types": ["alert.exploded"]}, "event_types"),
        ({"url": "https://hooks.example.com/x", "event_types": []}, "event_types"),
        ({"url": "https://hooks.example.com/x", "event_types": ["webhook.test"]}, "event_types"),
        ({"url": "https://user:pw@hooks.example.com/x", "event_types": ["alert.created"]}, "url"),
        ({"url": "https://10.1.2.3/x", "event_types": ["alert.created"]}, "url"),
        ({"url": "https://localhost/x", "event_types": ["alert.created"]}, "url"),
        ({"url": "https://hooks.example.com:99999/x", "event_types": ["alert.created"]}, "url"),
        ({"url": "not a url", "event_types": ["alert.created"]}, "url"),
        ({"event_types": ["alert.created"]}, "url"),
        ({"url": URL, "event_types": "alert.created"}, "event_types"),
        ({"url": URL, "event_types": ["alert.created"], "secret": "mine"}, "secret"),
    ])
    def test_bad_input(self, admin_client, body, field):
        response = admin_client.post(BASE, body)
        assert_error(response, 422, "VALIDATION_ERROR")
        assert field in {detail["field"] for detail in response.json()["error"]["details"]}
        assert not WebhookEndpoint.objects.exists()

    def test_not_json(self, admin_client):
        response = admin_client.generic("POST", BASE, "[1,", content_type="application/json")
        assert_error(response, 400, "BAD_REQUEST")

    def test_success_shows_the_secret_once(self, admin_client, org):
        response = admin_client.post(BASE, {"url": URL, "event_types": ["alert.created", "sar.filed", "alert.created"]})
        assert response.status_code == 201, response.json()
        body = response.json()
        stored = WebhookEndpoint.objects.get()
        assert body["signing_secret"] == stored.signing_secret and body["signing_secret"].startswith("whsec_")
        assert (body["url"], body["event_types"], body["enabled"], body["mode"]) == (URL, ["alert.created", "sar.filed"], True, "test")
        assert (stored.organization, stored.mode) == (org, "test")
        entry = AuditLogEntry.objects.get(action="webhook_endpoint.created")
        assert entry.object_id == str(stored.pk) and stored.signing_secret not in str(entry.after)
        assert "signing_secret" not in admin_client.get(f"{BASE}/{stored.pk}").json()

    def test_a_session_of_an_admin_works_too(self, api, member, org):
        _, token = member(org, "admin")
        response = api(token, HTTP_X_MODE="live").post(BASE, {"url": URL, "event_types": ["case.assigned"]})
        assert response.status_code == 201
        assert WebhookEndpoint.objects.get().mode == "live"


class TestList:
    def test_anonymous(self, api):
        assert_error(api().get(BASE), 401, "UNAUTHENTICATED")

    def test_viewer_sees_own_mode_only(self, viewer_client, api, key, org, endpoint, foreign_endpoint):
        services.endpoint_create(principal=principal_of(org, mode="live"), url=URL, event_types=["sar.filed"])
        body = viewer_client.get(BASE).json()
        assert body["total"] == 1 and [e["id"] for e in body["data"]] == [str(endpoint.pk)]
        assert "signing_secret" not in body["data"][0]
        live = api(key(org, role="viewer", mode="live")).get(BASE).json()
        assert live["total"] == 1 and live["data"][0]["event_types"] == []  # a SAR's event is not named below l2_investigator
        investigator = api(key(org, role="l2_investigator", mode="live")).get(BASE).json()
        assert investigator["data"][0]["event_types"] == ["sar.filed"]

    def test_bad_limit(self, viewer_client):
        assert_error(viewer_client.get(f"{BASE}?limit=101"), 422, "VALIDATION_ERROR")


class TestRetrieve:
    def test_anonymous(self, api, endpoint):
        assert_error(api().get(f"{BASE}/{endpoint.pk}"), 401, "UNAUTHENTICATED")

    def test_other_tenant_and_other_mode(self, viewer_client, api, key, org, foreign_endpoint, endpoint):
        assert_error(viewer_client.get(f"{BASE}/{foreign_endpoint.pk}"), 404, "NOT_FOUND")
        assert_error(api(key(org, role="viewer", mode="live")).get(f"{BASE}/{endpoint.pk}"), 404, "NOT_FOUND")

    def test_not_a_uuid(self, viewer_client):
        assert_error(viewer_client.get(f"{BASE}/nope"), 404, "NOT_FOUND")

    def test_success(self, viewer_client, api, key, org, endpoint):
        body = viewer_client.get(f"{BASE}/{endpoint.pk}").json()
        assert body["id"] == str(endpoint.pk) and body["event_types"] == ["alert.created"]  # sar.filed from l2_investigator
        investigator = api(key(org, role="l2_investigator")).get(f"{BASE}/{endpoint.pk}").json()
        assert investigator["event_types"] == ["alert.created", "sar.filed"]
        assert WebhookEndpoint.objects.get(pk=endpoint.pk).event_types == ["alert.created", "sar.filed"]


class TestUpdate:
    def test_anonymous(self, api, endpoint):
        assert_error(api().patch(f"{BASE}/{endpoint.pk}", {"enabled": False}), 401, "UNAUTHENTICATED")

    def test_wrong_role(self, api, key, org, endpoint):
        client = api(key(org, role="l3_officer"))
        assert_error(client.patch(f"{BASE}/{endpoint.pk}", {"enabled": False}), 403, "FORBIDDEN")
        endpoint.refresh_from_db()
        assert endpoint.enabled

    def test_other_tenant(self, admin_client, foreign_endpoint):
        assert_error(admin_client.patch(f"{BASE}/{foreign_endpoint.pk}", {"enabled": False}), 404, "NOT_FOUND")
        foreign_endpoint.refresh_from_db()
        assert foreign_endpoint.enabled

    @pytest.mark.parametrize("body", [{"url": "http://x.example.com"}, {"event_types": ["nope"]}, {"enabled": "maybe"},
                                      {"signing_secret": "x"}])
    def test_bad_input(self, admin_client, endpoint, body):
        assert_error(admin_client.patch(f"{BASE}/{endpoint.pk}", body), 422, "VALIDATION_ERROR")
        endpoint.refresh_from_db()
        assert (endpoint.url, endpoint.enabled) == (URL, True)

    def test_success(self, admin_client, endpoint):
        body = {"url": "https://other.example.com/h", "event_types": ["case.created"], "enabled": False, "description": "ops"}
        response = admin_client.patch(f"{BASE}/{endpoint.pk}", body)
        assert response.status_code == 200, response.json()
        assert {k: response.json()[k] for k in body} == body
        endpoint.refresh_from_db()
        assert (endpoint.url, endpoint.event_types, endpoint.enabled) == ("https://other.example.com/h", ["case.created"], False)
        entry = AuditLogEntry.objects.get(action="webhook_endpoint.updated")
        assert entry.before["enabled"] is True and entry.after["enabled"] is False


class TestDelete:
    def test_anonymous(self, api, endpoint):
        assert_error(api().delete(f"{BASE}/{endpoint.pk}"), 401, "UNAUTHENTICATED")

    def test_wrong_role(self, viewer_client, endpoint):
        assert_error(viewer_client.delete(f"{BASE}/{endpoint.pk}"), 403, "FORBIDDEN")
        assert WebhookEndpoint.objects.filter(pk=endpoint.pk).exists()

    def test_other_tenant(self, admin_client, foreign_endpoint):
        assert_error(admin_client.delete(f"{BASE}/{foreign_endpoint.pk}"), 404, "NOT_FOUND")
        assert WebhookEndpoint.objects.filter(pk=foreign_endpoint.pk).exists()

    def test_success_keeps_the_events(self, admin_client, endpoint, failed_delivery):
        response = admin_client.delete(f"{BASE}/{endpoint.pk}")
        assert response.status_code == 204
        assert not WebhookEndpoint.objects.filter(pk=endpoint.pk).exists()
        assert not Delivery.objects.exists() and Event.objects.count() == 1
        assert_error(admin_client.get(f"{BASE}/{endpoint.pk}"), 404, "NOT_FOUND")


class TestRotateSecret:
    def test_anonymous(self, api, endpoint):
        assert_error(api().post(f"{BASE}/{endpoint.pk}/rotate-secret"), 401, "UNAUTHENTICATED")

    def test_wrong_role(self, viewer_client, endpoint):
        assert_error(viewer_client.post(f"{BASE}/{endpoint.pk}/rotate-secret"), 403, "FORBIDDEN")

    def test_other_tenant(self, admin_client, foreign_endpoint):
        old = foreign_endpoint.signing_secret
        assert_error(admin_client.post(f"{BASE}/{foreign_endpoint.pk}/rotate-secret"), 404, "NOT_FOUND")
        foreign_endpoint.refresh_from_db()
        assert foreign_endpoint.signing_secret == old

    def test_success(self, admin_client, endpoint):
        response = admin_client.post(f"{BASE}/{endpoint.pk}/rotate-secret")
        assert response.status_code == 200
        endpoint_after = WebhookEndpoint.objects.get(pk=endpoint.pk)
        assert response.json()["signing_secret"] == endpoint_after.signing_secret != endpoint.signing_secret
        assert response.json()["secret_rotated_at"] is not None
        assert AuditLogEntry.objects.filter(action="webhook_endpoint.secret_rotated", object_id=str(endpoint.pk)).exists()


class TestSendTest:
    def test_anonymous(self, api, endpoint):
        assert_error(api().post(f"{BASE}/{endpoint.pk}/test"), 401, "UNAUTHENTICATED")

    def test_wrong_role(self, viewer_client, endpoint):
        assert_error(viewer_client.post(f"{BASE}/{endpoint.pk}/test"), 403, "FORBIDDEN")
        assert not Event.objects.exists()

    def test_other_tenant(self, admin_client, foreign_endpoint):
        assert_error(admin_client.post(f"{BASE}/{foreign_endpoint.pk}/test"), 404, "NOT_FOUND")
        assert not Event.objects.exists()

    def test_disabled_endpoint_is_a_conflict(self, admin_client, endpoint, org):
        services.endpoint_update(principal=principal_of(org), endpoint_id=endpoint.pk, changes={"enabled": False})
        assert_error(admin_client.post(f"{BASE}/{endpoint.pk}/test"), 409, "CONFLICT")

    def test_success_queues_a_test_event_for_this_endpoint_only(self, admin_client, endpoint, org):
        other = services.endpoint_create(principal=principal_of(org), url=URL, event_types=["alert.created"])
        response = admin_client.post(f"{BASE}/{endpoint.pk}/test")
        assert response.status_code == 202, response.json()
        body = response.json()
        assert (body["event_type"], body["status"], body["endpoint_id"]) == ("webhook.test", "pending", str(endpoint.pk))
        event = Event.objects.get()
        assert event.public_id == body["event_id"] and event.data["endpoint_id"] == str(endpoint.pk)
        assert not Delivery.objects.filter(endpoint=other).exists()


class TestDeliveries:
    def test_anonymous(self, api, endpoint):
        assert_error(api().get(f"{BASE}/{endpoint.pk}/deliveries"), 401, "UNAUTHENTICATED")

    def test_other_tenant(self, viewer_client, foreign_endpoint):
        assert_error(viewer_client.get(f"{BASE}/{foreign_endpoint.pk}/deliveries"), 404, "NOT_FOUND")

    def test_bad_status(self, viewer_client, endpoint):
        assert_error(viewer_client.get(f"{BASE}/{endpoint.pk}/deliveries?status=lost"), 422, "VALIDATION_ERROR")

    def test_success_with_attempts(self, viewer_client, endpoint, failed_delivery):
        failed_delivery.attempt_log.create(number=1, at=failed_delivery.created_at, status_code=500, error="HTTP 500",
                                           duration_ms=12, finished_at=failed_delivery.created_at)
        body = viewer_client.get(f"{BASE}/{endpoint.pk}/deliveries?status=failed").json()
        assert body["total"] == 1
        (item,) = body["data"]
        assert (item["id"], item["status"], item["attempts"], item["event_type"]) == (str(failed_delivery.pk), "failed", 7, "alert.created")
        (attempt,) = item["attempt_history"]
        assert {k: attempt[k] for k in ("number", "status_code", "error", "duration_ms")} == {
            "number": 1, "status_code": 500, "error": "HTTP 500", "duration_ms": 12}
        assert attempt["at"] and attempt["finished_at"]
        assert viewer_client.get(f"{BASE}/{endpoint.pk}/deliveries?status=succeeded").json()["total"] == 0


class TestRetry:
    def path(self, endpoint, delivery):
        return f"{BASE}/{endpoint.pk}/deliveries/{delivery.pk}/retry"

    def test_anonymous(self, api, endpoint, failed_delivery):
        assert_error(api().post(self.path(endpoint, failed_delivery)), 401, "UNAUTHENTICATED")

    def test_wrong_role(self, viewer_client, endpoint, failed_delivery):
        assert_error(viewer_client.post(self.path(endpoint, failed_delivery)), 403, "FORBIDDEN")
        failed_delivery.refresh_from_db()
        assert failed_delivery.status == "failed"

    def test_other_tenant(self, api, key, other_org, endpoint, failed_delivery):
        assert_error(api(key(other_org)).post(self.path(endpoint, failed_delivery)), 404, "NOT_FOUND")
        failed_delivery.refresh_from_db()
        assert failed_delivery.status == "failed"

    def test_delivery_of_another_endpoint(self, admin_client, org, failed_delivery):
        other = services.endpoint_create(principal=principal_of(org), url=URL, event_types=["sar.filed"])
        assert_error(admin_client.post(self.path(other, failed_delivery)), 404, "NOT_FOUND")

    def test_not_failed_is_a_conflict(self, admin_client, endpoint, failed_delivery):
        Delivery.objects.filter(pk=failed_delivery.pk).update(status="pending")
        assert_error(admin_client.post(self.path(endpoint, failed_delivery)), 409, "CONFLICT")

    def test_success(self, admin_client, endpoint, failed_delivery):
        response = admin_client.post(self.path(endpoint, failed_delivery))
        assert response.status_code == 202
        assert response.json()["status"] == "pending"
        failed_delivery.refresh_from_db()
        assert failed_delivery.status == "pending" and failed_delivery.next_attempt_at is not None
        assert AuditLogEntry.objects.filter(action="webhook_delivery.retried", object_id=str(failed_delivery.pk)).exists()


def test_the_openapi_document_describes_the_webhook_operations(client):
    paths = client.get("/v1/openapi.json").json()["paths"]
    for path in ["/v1/developer/webhook-endpoints", "/v1/developer/webhook-endpoints/{id}/rotate-secret",
                 "/v1/developer/webhook-endpoints/{id}/deliveries/{delivery_id}/retry", "/v1/webhooks/kyb-provider",
                 "/v1/monitoring/notifications", "/v1/monitoring/notifications/{notification_id}/read"]:
        assert path in paths, sorted(paths)
    document = client.get("/v1/openapi.json").json()
    created = document["paths"]["/v1/developer/webhook-endpoints"]["post"]["responses"]["201"]
    assert created["content"]["application/json"]["schema"]["$ref"].endswith("/EndpointWithSecretResponse")
    assert "signing_secret" in document["components"]["schemas"]["EndpointWithSecretResponse"]["properties"]


SINGLE_LINE = "Contains a control character ({}) at position {}; single-line text takes visible characters only."


@pytest.mark.parametrize(("url", "message"), [
    ("https://hooks.example/a b", "A URL has no spaces or control characters (encode them: %20)."),
    # Control characters are refused as in every single-line text field (common.text).
    ("https://hooks.example/in\nbox", SINGLE_LINE.format("U+000A", 25)),
    ("https://hooks.\texample/in", SINGLE_LINE.format("U+0009", 15)),
    ("https://hooks.example/\x7f", SINGLE_LINE.format("U+007F", 23)),
])
def test_a_url_with_spaces_or_control_characters_is_refused(api, org, key, url, message):
    """urlsplit drops tabs and line breaks silently: the URL delivered would not be the one stored."""
    response = api(key(org, role="admin")).post("/v1/developer/webhook-endpoints",
                                                {"url": url, "event_types": ["alert.created"]}, format="json")
    assert response.status_code == 422, response.json()
    assert response.json()["error"]["details"] == [{"field": "url", "message": message}]
    assert not WebhookEndpoint.objects.exists()
