"""The back office: endpoints through the services (secret shown once), deliveries failed first with
a retry action, events and the inbound callback log read-only."""

import pytest
from django.urls import reverse

from common.models import AuditLogEntry
from tests.webhooks.conftest import alert_data, principal_of
from webhooks import services
from webhooks.models import Delivery, InboundCallback, WebhookEndpoint

pytestmark = pytest.mark.django_db


@pytest.fixture
def console(client, make_user):
    user = make_user("operator@example.com")
    user.is_staff = user.is_superuser = True
    user.save()
    client.force_login(user)
    return client


@pytest.fixture
def deliveries(org):
    services.endpoint_create(principal=principal_of(org), url="https://hooks.example.com/a", event_types=["alert.created"])
    made = [services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data()) for _ in range(3)]
    rows = [Delivery.objects.get(event=event) for event in made]
    Delivery.objects.filter(pk=rows[0].pk).update(status="succeeded")
    Delivery.objects.filter(pk=rows[1].pk).update(status="failed", attempts=7, next_attempt_at=None)
    return rows


def test_every_page_renders(console, deliveries):
    delivery = deliveries[1]
    callback = InboundCallback.objects.create(provider="kyb-provider", external_id="e1", signature="ab" * 32,
                                              signed_at=delivery.created_at, body="{}", status="unhandled")
    for name, args in [("webhooks_webhookendpoint_changelist", []), ("webhooks_webhookendpoint_change", [delivery.endpoint_id]),
                       ("webhooks_webhookendpoint_add", []), ("webhooks_delivery_changelist", []),
                       ("webhooks_delivery_change", [delivery.pk]), ("webhooks_event_changelist", []),
                       ("webhooks_event_change", [delivery.event_id]), ("webhooks_inboundcallback_changelist", []),
                       ("webhooks_inboundcallback_change", [callback.pk])]:
        response = console.get(reverse(f"admin:{name}", args=args))
        assert response.status_code == 200, name
    page = console.get(reverse("admin:webhooks_webhookendpoint_change", args=[delivery.endpoint_id])).content.decode()
    assert delivery.endpoint.signing_secret not in page


def test_deliveries_are_listed_failed_first(console, deliveries):
    response = console.get(reverse("admin:webhooks_delivery_changelist"))
    listed = [row.status for row in response.context["cl"].result_list]
    assert listed == ["failed", "pending", "succeeded"]


def test_the_retry_action_calls_the_service(console, deliveries):
    failed = deliveries[1]
    response = console.post(reverse("admin:webhooks_delivery_changelist"),
                            {"action": "retry", "_selected_action": [str(failed.pk), str(deliveries[0].pk)]}, follow=True)
    assert response.status_code == 200
    failed.refresh_from_db()
    assert failed.status == "pending"
    assert AuditLogEntry.objects.filter(action="webhook_delivery.retried", object_id=str(failed.pk)).exists()
    messages = [str(m) for m in response.context["messages"]]
    assert any("Only a failed delivery can be retried" in m for m in messages)  # the succeeded one, refused


def test_adding_an_endpoint_shows_its_secret_once(console, org):
    response = console.post(reverse("admin:webhooks_webhookendpoint_add"), {
        "organization": org.pk, "mode": "live", "url": "https://hooks.example.com/new", "description": "",
        "event_types": ["sar.filed", "case.assigned"], "enabled": "on",
    })
    assert response.status_code == 200
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.signing_secret in response.content.decode()
    assert (endpoint.mode, endpoint.event_types) == ("live", ["sar.filed", "case.assigned"])
    assert AuditLogEntry.objects.filter(action="webhook_endpoint.created").exists()


def test_an_http_url_is_refused_by_the_service(console, org):
    response = console.post(reverse("admin:webhooks_webhookendpoint_add"), {
        "organization": org.pk, "mode": "live", "url": "http://hooks.example.com/new", "event_types": ["sar.filed"],
    }, follow=True)
    assert not WebhookEndpoint.objects.exists()
    assert any("https" in str(m) for m in response.context["messages"])


def test_rotating_the_secret_shows_the_new_one(console, deliveries):
    endpoint = deliveries[0].endpoint
    response = console.post(reverse("admin:webhooks_webhookendpoint_changelist"),
                            {"action": "rotate_secret", "_selected_action": [str(endpoint.pk)]})
    endpoint.refresh_from_db()
    assert response.status_code == 200 and endpoint.signing_secret in response.content.decode()
    assert endpoint.secret_rotated_at is not None


def test_callbacks_can_be_reprocessed(console, django_capture_on_commit_callbacks, deliveries, handler_registry):
    callback = InboundCallback.objects.create(provider="kyb-provider", external_id="e1", signature="cd" * 32,
                                              signed_at=deliveries[0].created_at, body='{"event_id": "e1"}', status="unhandled")
    with django_capture_on_commit_callbacks(execute=True):
        console.post(reverse("admin:webhooks_inboundcallback_changelist"),
                     {"action": "reprocess", "_selected_action": [str(callback.pk)]})
    callback.refresh_from_db()
    assert callback.status == "failed" and callback.processed_at is not None  # reprocessed: its payload is incomplete
    assert AuditLogEntry.objects.filter(action="inbound_callback.reprocessed").exists()
