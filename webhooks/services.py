"""Webhook writes: endpoints (create, update, delete, rotate the secret, send a test event), the
`event_emit` other apps call inside their own transactions, and the manual retry of a delivery.

The delivery attempts themselves are in webhooks.delivery.
"""

from contextlib import contextmanager
from contextvars import ContextVar
from urllib.parse import urlsplit

from django.conf import settings
from django.db import connection, transaction

from common.audit import audit_record
from common.errors import Conflict, NotFound, ValidationFailed
from common.outbox import enqueue_on_commit
from common.permissions import require_role
from common.pg import insert_all
from common.principal import Principal
from organizations.choices import Role
from webhooks import catalogue, clock, signing
from webhooks.models import Delivery, DeliveryStatus, Event, WebhookEndpoint
from webhooks.transport import host_refusal

EDITABLE_FIELDS = ("url", "event_types", "enabled", "description")
MAX_ENDPOINTS_PER_MODE = 20


def _state(endpoint: WebhookEndpoint) -> dict:
    """What the audit log keeps of an endpoint: never the secret."""
    return {field: getattr(endpoint, field) for field in EDITABLE_FIELDS}


def _audit(principal: Principal, action: str, obj, **changes) -> None:
    audit_record(actor=principal, action=action, object_type=obj._meta.model_name, object_id=obj.pk,
                 organization=principal.organization, mode=principal.mode, **changes)


# --- Validation --------------------------------------------------------------------------------

def checked_url(url: str) -> str:
    """HTTPS only, with a host, no credentials; an address literal (in any form the resolver reads)
    must be public and the host may not be `localhost` or `*.localhost`, unless private networks are
    allowed. Other host names are not resolved here: their addresses are checked at every delivery."""
    url = url.strip()
    if any(ord(char) <= 0x20 or ord(char) == 0x7F for char in url):  # urlsplit would drop some of them silently
        raise ValidationFailed.for_field("url", "A URL has no spaces or control characters (encode them: %20).")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        raise ValidationFailed.for_field("url", "This is not a valid URL.") from None
    if parts.scheme != "https":
        raise ValidationFailed.for_field("url", "The URL must use https://.")
    if not parts.hostname:
        raise ValidationFailed.for_field("url", "The URL has no host.")
    if parts.username is not None or parts.password is not None:
        raise ValidationFailed.for_field("url", "Credentials in the URL are not supported: use the signature to authenticate us.")
    if parts.fragment:
        raise ValidationFailed.for_field("url", "The URL may not have a #fragment.")
    if not settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS:
        reason = host_refusal(parts.hostname)  # the check of every delivery, short of resolving a name
        if reason:
            raise ValidationFailed.for_field("url", f"The URL points to a {reason} address; only public destinations are allowed "
                                                    "(a server started with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows local receivers).")
    return url


def checked_event_types(event_types: list[str]) -> list[str]:
    known = set(catalogue.subscribable_types())
    unknown = [name for name in event_types if name not in known]
    if unknown:
        listed = ", ".join(sorted(known))
        raise ValidationFailed(details=[{"field": "event_types", "message": f"Unknown event type {name!r}; the types are: {listed}."}
                                        for name in unknown])
    if not event_types:
        raise ValidationFailed.for_field("event_types", "Subscribe to at least one event type.")
    return list(dict.fromkeys(event_types))


def _endpoint_locked(principal: Principal, endpoint_id) -> WebhookEndpoint:
    endpoint = WebhookEndpoint.objects.select_for_update().filter(
        pk=endpoint_id, organization=principal.organization, mode=principal.mode,
    ).first()
    if endpoint is None:
        raise NotFound("No webhook endpoint of yours has this id.")
    return endpoint


# --- Endpoints ---------------------------------------------------------------------------------

@transaction.atomic
def endpoint_create(*, principal: Principal, url: str, event_types: list[str], description: str = "",
                    enabled: bool = True) -> WebhookEndpoint:
    """The returned endpoint carries its signing secret: the only time it is shown."""
    require_role(principal, Role.ADMIN)
    url, event_types = checked_url(url), checked_event_types(event_types)
    count = WebhookEndpoint.objects.filter(organization=principal.organization, mode=principal.mode).count()
    if count >= MAX_ENDPOINTS_PER_MODE:
        raise Conflict(f"At most {MAX_ENDPOINTS_PER_MODE} webhook endpoints per mode: delete one first.")
    endpoint = WebhookEndpoint.objects.create(
        organization=principal.organization, mode=principal.mode, url=url, event_types=event_types,
        description=description, enabled=enabled, signing_secret=signing.new_signing_secret(),
    )
    _audit(principal, "webhook_endpoint.created", endpoint, after=_state(endpoint))
    return endpoint


@transaction.atomic
def endpoint_update(*, principal: Principal, endpoint_id, changes: dict) -> WebhookEndpoint:
    require_role(principal, Role.ADMIN)
    endpoint = _endpoint_locked(principal, endpoint_id)
    before = _state(endpoint)
    if "url" in changes:
        changes["url"] = checked_url(changes["url"])
    if "event_types" in changes:
        changes["event_types"] = checked_event_types(changes["event_types"])
    for field in EDITABLE_FIELDS:
        if field in changes:
            setattr(endpoint, field, changes[field])
    endpoint.save()
    _audit(principal, "webhook_endpoint.updated", endpoint, before=before, after=_state(endpoint))
    return endpoint


@transaction.atomic
def endpoint_delete(*, principal: Principal, endpoint_id) -> None:
    """Deletes the endpoint and its deliveries; the events stay."""
    require_role(principal, Role.ADMIN)
    endpoint = _endpoint_locked(principal, endpoint_id)  # emitters that read it have committed; later ones will not see it
    # A delivery worker claims deliveries FOR UPDATE SKIP LOCKED and writes the attempt in that
    # transaction: holding them all waits for an attempt under way and keeps the next one off, so
    # the delete sees every attempt it must remove.
    list(Delivery.objects.select_for_update().filter(endpoint=endpoint).order_by("pk").values_list("pk", flat=True))
    _audit(principal, "webhook_endpoint.deleted", endpoint, before=_state(endpoint))
    endpoint.delete()


@transaction.atomic
def endpoint_rotate_secret(*, principal: Principal, endpoint_id) -> WebhookEndpoint:
    """A new secret signs every attempt from now on, retries of older events included."""
    require_role(principal, Role.ADMIN)
    endpoint = _endpoint_locked(principal, endpoint_id)
    endpoint.signing_secret = signing.new_signing_secret()
    endpoint.secret_rotated_at = clock.now()
    endpoint.save(update_fields=["signing_secret", "secret_rotated_at", "updated_at"])
    _audit(principal, "webhook_endpoint.secret_rotated", endpoint)
    return endpoint


@transaction.atomic
def endpoint_send_test(*, principal: Principal, endpoint_id) -> Delivery:
    """A `webhook.test` event for this endpoint alone, delivered (and retried) like any other."""
    require_role(principal, Role.ADMIN)
    endpoint = _endpoint_locked(principal, endpoint_id)
    if not endpoint.enabled:
        raise Conflict("The endpoint is disabled: enable it before sending a test event.")
    event = _event_row(principal.organization, principal.mode, catalogue.TEST_EVENT_TYPE, {
        "endpoint_id": str(endpoint.pk), "message": "A test event sent from the compliance service.",
    })
    event.save(force_insert=True)
    (delivery,) = _deliveries_create([(event, endpoint)])
    _audit(principal, "webhook_endpoint.test_sent", endpoint, after={"event_id": event.public_id})
    return delivery


# --- Events ------------------------------------------------------------------------------------

# The two emitters are called inside the transaction of the change they report (a monitoring batch,
# a case opened): they check what they are given before writing and take no savepoint of their own,
# which would cost two round trips each and protect nothing (docs/decisions.md, "No savepoints on the
# alert path"). Called outside a transaction, they make one.

def event_emit(*, organization, mode: str, type: str, data: dict) -> Event:
    """Write the event and one delivery per enabled endpoint of (organization, mode) subscribed to
    its type; the deliveries are enqueued when the caller's transaction commits.

    `data` must have exactly the catalogue's fields (webhooks.catalogue); PayloadError otherwise.
    """
    (event,) = events_emit(organization=organization, mode=mode, events=[(type, data)])
    return event


def events_emit(*, organization, mode: str, events: list[tuple[str, dict]]) -> list[Event]:
    """`event_emit` for many events of one organization and mode at once (a monitoring batch that
    opens hundreds of alerts): one query for the endpoints, one insert for the events, one for the
    deliveries."""
    if any(type == catalogue.TEST_EVENT_TYPE for type, _ in events):
        raise catalogue.PayloadError("webhook.test events are sent with endpoint_send_test")
    rows = [_event_row(organization, mode, type, data) for type, data in events]
    if not rows:
        return []
    with transaction.atomic(savepoint=False):
        endpoints = _enabled_endpoints(organization, mode)
        rows = insert_all(Event, rows)
        _deliveries_create([(event, endpoint) for event in rows for endpoint in endpoints if endpoint.subscribes_to(event.type)])
    return rows


def has_subscribers(*, organization, mode: str, type: str) -> bool:
    """Whether an enabled endpoint of (organization, mode) subscribes to the type: a caller that would
    emit one event per transfer asks first rather than write rows nothing delivers."""
    return any(endpoint.subscribes_to(type) for endpoint in _enabled_endpoints(organization, mode))


_endpoints_kept: ContextVar[dict | None] = ContextVar("webhook_endpoints_kept", default=None)


@contextmanager
def endpoints_read_once():
    """Inside the block, the enabled endpoints of an organization and mode are read at their first
    use and kept until it ends: for one transaction that emits several times (a monitored ingest
    announces its transfer, then opens alerts and a case), one read instead of one per emission.
    Open it inside that transaction: the endpoints read are held until it ends (_enabled_endpoints),
    so none of them can be deleted before its events' deliveries are written."""
    token = _endpoints_kept.set({})
    try:
        yield
    finally:
        _endpoints_kept.reset(token)


def _enabled_endpoints(organization, mode: str) -> list[WebhookEndpoint]:
    """The enabled endpoints of (organization, mode), each held until the transaction ends (FOR KEY
    SHARE on PostgreSQL): deleting an endpoint locks it FOR UPDATE first (`_endpoint_locked`), so it
    waits for the emitters that read it and then deletes their deliveries too, rather than leave
    them pointing at nothing (the emitting transaction would fail at commit). Emitters do not wait
    for each other, nor for a delivery worker."""
    kept, key = _endpoints_kept.get(), (organization.pk, mode)
    if kept is not None and key in kept:
        return kept[key]
    endpoints = WebhookEndpoint.objects.filter(organization=organization, mode=mode, enabled=True)
    if connection.vendor == "postgresql":
        sql, params = endpoints.query.sql_with_params()
        endpoints = WebhookEndpoint.objects.raw(f"{sql} FOR KEY SHARE", params)
    endpoints = list(endpoints)
    if kept is not None:
        kept[key] = endpoints
    return endpoints


def _event_row(organization, mode: str, type: str, data: dict) -> Event:
    """An unsaved event with the catalogue's payload (PayloadError when `data` does not fit it)."""
    return Event(organization=organization, mode=mode, public_id=signing.new_event_id(), type=type,
                 data=catalogue.event_payload(type, data))


def _deliveries_create(pairs: list[tuple[Event, WebhookEndpoint]]) -> list[Delivery]:
    """One delivery per (event, endpoint), in one insert, each enqueued on commit."""
    from webhooks import tasks

    now = clock.now()
    deliveries = insert_all(Delivery, [
        Delivery(organization_id=event.organization_id, mode=event.mode, event=event, endpoint=endpoint,
                 next_attempt_at=now, enqueued_at=now)
        for event, endpoint in pairs
    ])
    for delivery in deliveries:
        enqueue_on_commit(tasks.deliver, str(delivery.pk))
    return deliveries


# --- Manual retry ------------------------------------------------------------------------------

@transaction.atomic
def delivery_retry(*, principal: Principal, endpoint_id, delivery_id) -> Delivery:
    """One more attempt of a permanently failed delivery, now. If it fails too, the delivery is
    failed again (the automatic schedule is not restarted); it can be retried again."""
    require_role(principal, Role.ADMIN)
    endpoint = _endpoint_locked(principal, endpoint_id)
    delivery = Delivery.objects.select_for_update().filter(pk=delivery_id, endpoint=endpoint).first()
    if delivery is None:
        raise NotFound("No delivery of this endpoint has this id.")
    if not DeliveryStatus.can_retry_manually(delivery.status):
        raise Conflict(f"Only a failed delivery can be retried; this one is {delivery.status}.")
    if not endpoint.enabled:
        raise Conflict("The endpoint is disabled: enable it before retrying.")
    now = clock.now()
    Delivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.FAILED).update(
        status=DeliveryStatus.PENDING, next_attempt_at=now, enqueued_at=now,
    )
    _audit(principal, "webhook_delivery.retried", delivery, before={"status": delivery.status, "attempts": delivery.attempts})
    from webhooks import tasks

    enqueue_on_commit(tasks.deliver, str(delivery.pk))
    delivery.refresh_from_db()
    return delivery
