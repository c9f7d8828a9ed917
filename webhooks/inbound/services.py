"""Inbound callbacks: verify and store (`callback_receive`), then ingest in a worker (`callback_ingest`).

A callback is refused, with nothing stored and one line on the "security" logger, when its
signature or timestamp header is missing, the timestamp is more than 300 s from our clock, the
HMAC does not match (constant-time compare) or the provider has no secret configured. A valid
signature is accepted once: the same signature again is a replay and refused.

The handler runs in a transaction that also records the callback as processed: a worker dying
after the handler's work committed cannot leave the callback to be handled a second time. A failed
callback is retried after RETRY_DELAYS (the handler may have failed on something passing: a lock,
a row not there yet); after MAX_ATTEMPTS it stays failed until it is reprocessed from the console.
"""

import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F

from common.audit import audit_record
from common.context import current_request
from common.errors import BadRequest, Conflict, NotFound, Unauthenticated, ValidationFailed, flatten_details
from common.outbox import enqueue_on_commit
from common.parsers import loads_object
from webhooks import clock, signing
from webhooks.inbound import handlers
from webhooks.inbound.providers import PROVIDERS, Provider
from webhooks.models import InboundCallback, InboundStatus

security_log = logging.getLogger("security")
logger = logging.getLogger("webhooks.inbound")

STUCK_AFTER = timedelta(minutes=10)
REQUEUE_AFTER = timedelta(minutes=2)
RETRY_DELAYS = (timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=30))  # after failed run 1, 2, 3
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
KEPT_HEADERS = ("content-type", "user-agent")


@dataclass(frozen=True)
class Received:
    callback: InboundCallback
    duplicate: bool


def _refuse(provider: str, reason: str, message: str = "The callback signature could not be verified."):
    request = current_request()
    security_log.warning("inbound callback refused: provider=%s reason=%s ip=%s request_id=%s",
                         provider, reason, request.ip, request.request_id)
    raise Unauthenticated(message)


def _verified(provider: Provider, headers, body: bytes) -> tuple[str, datetime]:
    """(signature, signed_at) of a callback whose signature checks out; refuses otherwise."""
    secret = getattr(settings, provider.secret_setting, "")
    if not secret:
        _refuse(provider.name, "no secret configured", "Callbacks of this provider are not enabled.")
    presented, timestamp = headers.get(provider.signature_header), headers.get(provider.timestamp_header)
    if not presented or not timestamp:
        _refuse(provider.name, "signature or timestamp header missing")
    if not timestamp.isascii() or not timestamp.isdigit() or len(timestamp) > 12:
        _refuse(provider.name, "malformed timestamp")
    signed_at = datetime.fromtimestamp(int(timestamp), tz=UTC)
    if abs((clock.now() - signed_at).total_seconds()) > signing.TOLERANCE_SECONDS:
        _refuse(provider.name, "timestamp outside the tolerance",
                f"The timestamp is more than {signing.TOLERANCE_SECONDS} seconds from our clock.")
    if not signing.signature_matches(secret, timestamp, body, presented):
        _refuse(provider.name, "signature mismatch")
    return presented.strip().lower(), signed_at


def _payload(provider: Provider, body: bytes) -> dict:
    try:
        payload = loads_object(body, "The callback body")
    except ValueError as error:
        raise BadRequest(str(error)) from None
    serializer = provider.payload(data=payload)
    if not serializer.is_valid():
        raise ValidationFailed(details=flatten_details(serializer.errors))
    return payload


def callback_receive(*, provider: str, headers, body: bytes) -> Received:
    """Verify, check the payload's format, store, and enqueue ingestion on commit."""
    config = PROVIDERS[provider]
    signature, signed_at = _verified(config, headers, body)
    payload = _payload(config, body)
    try:
        return _store(config, signature, signed_at, headers, body, str(payload["event_id"]))
    except IntegrityError:
        # A concurrent request stored the same signature or event first: decide again, now that it is visible.
        return _store(config, signature, signed_at, headers, body, str(payload["event_id"]))


@transaction.atomic
def _store(provider: Provider, signature: str, signed_at: datetime, headers, body: bytes, external_id: str) -> Received:
    from webhooks import tasks

    if InboundCallback.objects.filter(provider=provider.name, signature=signature).exists():
        request = current_request()
        security_log.warning("inbound callback replay refused: provider=%s ip=%s request_id=%s",
                             provider.name, request.ip, request.request_id)
        raise Conflict("This signature was already accepted: a callback is processed once.")
    existing = InboundCallback.objects.filter(provider=provider.name, external_id=external_id).first()
    if existing is not None:
        return Received(existing, duplicate=True)
    callback = InboundCallback.objects.create(
        provider=provider.name, external_id=external_id, signature=signature, signed_at=signed_at,
        headers={name: headers.get(name, "") for name in KEPT_HEADERS + (provider.signature_header, provider.timestamp_header)},
        body=body.decode("utf-8"),
    )
    enqueue_on_commit(tasks.ingest_callback, str(callback.pk))
    return Received(callback, duplicate=False)


def callback_ingest(callback_id) -> InboundCallback | None:
    """Hand a received callback to its provider's handler; no handler → `unhandled`, with the reason."""
    claimed = InboundCallback.objects.filter(pk=callback_id, status=InboundStatus.RECEIVED).update(
        status=InboundStatus.PROCESSING, claimed_at=clock.now(), attempts=F("attempts") + 1, next_attempt_at=None,
    )
    if not claimed:
        return None
    callback = InboundCallback.objects.get(pk=callback_id)
    handler = handlers.handler_for(callback.provider)
    if handler is None:
        _finish(callback, InboundStatus.UNHANDLED,
                f"No handler is registered for {callback.provider}: its callbacks are meant to update "
                f"{PROVIDERS[callback.provider].handled_by}, which this installation does not have yet. "
                f"Stored; reprocess it once a handler is registered.")
    else:
        _run(handler, callback)
    callback.refresh_from_db()
    return callback


def _run(handler, callback: InboundCallback) -> None:
    payload = PROVIDERS[callback.provider].payload(data=json.loads(callback.body))
    try:
        payload.is_valid(raise_exception=True)
        with transaction.atomic():  # the handler's work and `processed` commit together, or neither does
            summary = handler(callback=callback, payload=payload.validated_data) or "processed"
            _finish(callback, InboundStatus.PROCESSED, summary)
    except Exception as exc:  # noqa: BLE001 - any handler failure is recorded on the row, retried, reprocessed
        logger.exception("inbound callback %s (%s) failed", callback.pk, callback.provider)
        _finish(callback, InboundStatus.FAILED, f"{type(exc).__name__}: {exc}", retry_at=_retry_at(callback))


def _retry_at(callback: InboundCallback) -> datetime | None:
    """When a failed run is retried automatically: never after the last of MAX_ATTEMPTS (nor after a
    reprocess past them)."""
    if callback.attempts >= MAX_ATTEMPTS:
        return None
    return clock.now() + RETRY_DELAYS[callback.attempts - 1]


def _finish(callback: InboundCallback, status: str, result: str, retry_at: datetime | None = None) -> None:
    InboundCallback.objects.filter(pk=callback.pk, status=InboundStatus.PROCESSING).update(
        status=status, result=result[:2000], processed_at=clock.now(), next_attempt_at=retry_at,
    )


@transaction.atomic
def callback_sweep() -> list[str]:
    """Re-enqueue failed callbacks whose retry is due and callbacks whose message was lost, and
    release those whose worker died (or give up on them, if that was their last attempt)."""
    from webhooks import tasks

    now = clock.now()
    stuck = InboundCallback.objects.filter(status=InboundStatus.PROCESSING, claimed_at__lte=now - STUCK_AFTER)
    stuck.filter(attempts__gte=MAX_ATTEMPTS).update(
        status=InboundStatus.FAILED, processed_at=now, next_attempt_at=None,
        result="attempt outcome lost: its worker stopped while handling it, and it was the last attempt; reprocess it.",
    )
    stuck.update(status=InboundStatus.RECEIVED)
    due = InboundCallback.objects.filter(status=InboundStatus.FAILED, next_attempt_at__lte=now)
    retried = [str(pk) for pk in due.order_by("next_attempt_at").values_list("pk", flat=True)[:500]]
    InboundCallback.objects.filter(pk__in=retried).update(status=InboundStatus.RECEIVED, next_attempt_at=None)
    lost = [str(pk) for pk in InboundCallback.objects.filter(
        status=InboundStatus.RECEIVED, created_at__lte=now - REQUEUE_AFTER,
    ).order_by("created_at").values_list("pk", flat=True)[:500]]
    ids = list(dict.fromkeys(retried + lost))
    for callback_id in ids:
        enqueue_on_commit(tasks.ingest_callback, callback_id)
    return ids


@transaction.atomic
def callback_reprocess(*, actor, callback_id) -> InboundCallback:
    """Back to `received` (from unhandled or failed) and ingested again: for after a handler is added or fixed."""
    from webhooks import tasks

    callback = InboundCallback.objects.select_for_update().filter(pk=callback_id).first()
    if callback is None:
        raise NotFound("No inbound callback has this id.")
    if callback.status not in (InboundStatus.UNHANDLED, InboundStatus.FAILED):
        raise Conflict(f"Only an unhandled or failed callback can be reprocessed; this one is {callback.status}.")
    before = {"status": callback.status, "result": callback.result}
    callback.status, callback.result, callback.processed_at = InboundStatus.RECEIVED, "", None
    callback.next_attempt_at = None  # now instead
    callback.save(update_fields=["status", "result", "processed_at", "next_attempt_at", "updated_at"])
    audit_record(actor=actor, action="inbound_callback.reprocessed", object_type="inboundcallback",
                 object_id=callback.pk, before=before, after={"status": callback.status})
    enqueue_on_commit(tasks.ingest_callback, str(callback.pk))
    return callback
