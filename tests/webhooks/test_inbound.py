"""Inbound provider callbacks: a valid signature is accepted once and ingested by the task; a wrong
signature, a stale timestamp, a replay or a malformed body is refused with nothing stored."""

import datetime as dt
import hashlib
import hmac
import json
import logging
import time
import uuid

import pytest

from webhooks.inbound import handlers
from webhooks.inbound import services as inbound
from webhooks.models import InboundCallback

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("handler_registry")]

SECRETS = {"kyb-provider": "kyb-secret-123", "identity-provider": "idv-secret-456", "chain-confirmation": "chain-secret-789"}
HEADERS = {
    "kyb-provider": ("x-kyb-signature", "x-kyb-timestamp"),
    "identity-provider": ("x-payload-digest", "x-payload-digest-timestamp"),
    "chain-confirmation": ("x-webhook-signature", "x-webhook-timestamp"),
}
PAYLOADS = {
    "kyb-provider": {"event_id": "kyb_evt_1", "entity_id": str(uuid.uuid4()), "check_type": "kyb", "result": "pass",
                     "score": 0.1, "completed_at": "2026-01-02T03:04:05Z"},
    "identity-provider": {"event_id": "idv_evt_1", "entity_id": str(uuid.uuid4()), "verification_id": "ver_1",
                          "status": "approved", "completed_at": "2026-01-02T03:04:05Z"},
    "chain-confirmation": {"event_id": "chain_evt_1", "chain_id": 11155111, "tx_hash": "0x" + "ab" * 32,
                           "status": "confirmed", "block_number": 123, "confirmations": 12, "confirmed_at": "2026-01-02T03:04:05Z"},
}


@pytest.fixture(autouse=True)
def provider_secrets(settings):
    settings.KYB_WEBHOOK_SECRET = SECRETS["kyb-provider"]
    settings.IDENTITY_WEBHOOK_SECRET = SECRETS["identity-provider"]
    settings.CHAIN_WEBHOOK_SECRET = SECRETS["chain-confirmation"]


def signed(provider: str, body: bytes, *, timestamp: int | None = None, secret: str | None = None) -> dict:
    timestamp = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new((secret or SECRETS[provider]).encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    signature_header, timestamp_header = HEADERS[provider]
    return {f"HTTP_{signature_header.upper().replace('-', '_')}": digest,
            f"HTTP_{timestamp_header.upper().replace('-', '_')}": timestamp}


def post(client, provider: str, body: bytes, headers: dict):
    return client.generic("POST", f"/v1/webhooks/{provider}", body, content_type="application/json", **headers)


def refused(response, status: int, code: str):
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code
    assert not InboundCallback.objects.exists()


@pytest.mark.parametrize("provider", list(PAYLOADS))
def test_valid_callback_is_stored_and_ingested_once(client, provider, django_capture_on_commit_callbacks):
    body = json.dumps(PAYLOADS[provider]).encode()
    headers = signed(provider, body)

    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, provider, body, headers)

    assert response.status_code == 200, response.content
    stored = InboundCallback.objects.get()
    assert response.json() == {"id": str(stored.pk), "status": "received", "duplicate": False}
    assert (stored.provider, stored.external_id, stored.body) == (provider, PAYLOADS[provider]["event_id"], body.decode())
    assert stored.headers[HEADERS[provider][0]] == headers[next(iter(headers))]
    # Handled by its owner (onboarding, compliance): these payloads name no stored entity or update, so
    # the handler refuses and the row records why (tests/webhooks/test_inbound_handlers.py has the successes).
    assert stored.status == "failed" and "NotFound" in stored.result and stored.processed_at

    replay = post(client, provider, body, headers)
    assert replay.status_code == 409 and replay.json()["error"]["code"] == "CONFLICT"
    assert InboundCallback.objects.count() == 1


def test_a_registered_handler_processes_the_payload(client, django_capture_on_commit_callbacks, handler_registry):
    seen = []

    def handle(*, callback, payload):
        seen.append((callback.pk, payload["result"], payload["entity_id"]))
        return "compliance check recorded"

    handlers.inbound_handler("kyb-provider")(handle)
    body = json.dumps(PAYLOADS["kyb-provider"]).encode()
    with django_capture_on_commit_callbacks(execute=True):
        post(client, "kyb-provider", body, signed("kyb-provider", body))
    stored = InboundCallback.objects.get()
    assert (stored.status, stored.result) == ("processed", "compliance check recorded")
    assert seen == [(stored.pk, "pass", uuid.UUID(PAYLOADS["kyb-provider"]["entity_id"]))]


def test_a_failing_handler_marks_the_callback_failed_and_it_can_be_reprocessed(client, django_capture_on_commit_callbacks, org,
                                                                               handler_registry):
    def broken(*, callback, payload):
        raise LookupError("entity not found")

    handlers.inbound_handler("chain-confirmation")(broken)
    body = json.dumps(PAYLOADS["chain-confirmation"]).encode()
    with django_capture_on_commit_callbacks(execute=True):
        post(client, "chain-confirmation", body, signed("chain-confirmation", body))
    stored = InboundCallback.objects.get()
    assert (stored.status, stored.result) == ("failed", "LookupError: entity not found")

    handlers.inbound_handler("chain-confirmation")(lambda *, callback, payload: "status update confirmed")
    with django_capture_on_commit_callbacks(execute=True):
        inbound.callback_reprocess(actor=None, callback_id=stored.pk)
    stored.refresh_from_db()
    assert (stored.status, stored.result) == ("processed", "status update confirmed")


def test_a_resent_event_with_a_fresh_signature_is_not_stored_twice(client):
    body = json.dumps(PAYLOADS["kyb-provider"]).encode()
    first = post(client, "kyb-provider", body, signed("kyb-provider", body, timestamp=int(time.time()) - 10))
    again = post(client, "kyb-provider", body, signed("kyb-provider", body))
    assert first.status_code == again.status_code == 200
    assert again.json() == {"id": first.json()["id"], "status": "received", "duplicate": True}
    assert InboundCallback.objects.count() == 1


@pytest.mark.parametrize("provider", list(PAYLOADS))
def test_wrong_signature_is_refused_with_a_security_log_line(client, provider, caplog):
    body = json.dumps(PAYLOADS[provider]).encode()
    with caplog.at_level(logging.WARNING, logger="security"):
        refused(post(client, provider, body, signed(provider, body, secret="not-the-secret")), 401, "UNAUTHENTICATED")
    assert any(r.name == "security" and "signature mismatch" in r.getMessage() for r in caplog.records)


def test_a_signature_over_other_bytes_is_refused(client):
    body = json.dumps(PAYLOADS["kyb-provider"]).encode()
    headers = signed("kyb-provider", body)
    tampered = body.replace(b'"pass"', b'"fail"')
    refused(post(client, "kyb-provider", tampered, headers), 401, "UNAUTHENTICATED")


@pytest.mark.parametrize("skew", [-310, 310, -100000])  # 10 s past the 300 s tolerance: a slow second must not bring it back inside
def test_a_stale_or_future_timestamp_is_refused(client, skew):
    body = json.dumps(PAYLOADS["identity-provider"]).encode()
    headers = signed("identity-provider", body, timestamp=int(time.time()) + skew)
    response = post(client, "identity-provider", body, headers)
    refused(response, 401, "UNAUTHENTICATED")
    assert "300 seconds" in response.json()["error"]["message"]


def test_a_timestamp_within_the_tolerance_is_accepted(client):
    body = json.dumps(PAYLOADS["identity-provider"]).encode()
    assert post(client, "identity-provider", body, signed("identity-provider", body, timestamp=int(time.time()) - 290)).status_code == 200


@pytest.mark.parametrize("drop", ["signature", "timestamp", "both"])
def test_missing_headers_are_refused(client, drop):
    body = json.dumps(PAYLOADS["kyb-provider"]).encode()
    headers = signed("kyb-provider", body)
    signature, timestamp = list(headers)
    if drop in ("signature", "both"):
        headers.pop(signature)
    if drop in ("timestamp", "both"):
        headers.pop(timestamp)
    refused(post(client, "kyb-provider", body, headers), 401, "UNAUTHENTICATED")


@pytest.mark.parametrize("timestamp", ["abc", "-5", "1e9", "١٢٣", "99999999999999999999"])
def test_malformed_timestamps_are_refused(client, timestamp):
    body = json.dumps(PAYLOADS["kyb-provider"]).encode()
    headers = signed("kyb-provider", body)
    headers["HTTP_X_KYB_TIMESTAMP"] = timestamp
    refused(post(client, "kyb-provider", body, headers), 401, "UNAUTHENTICATED")


def test_a_non_ascii_signature_is_refused(client):
    body = json.dumps(PAYLOADS["kyb-provider"]).encode()
    headers = signed("kyb-provider", body)
    headers["HTTP_X_KYB_SIGNATURE"] = "é" * 64
    refused(post(client, "kyb-provider", body, headers), 401, "UNAUTHENTICATED")


def test_no_configured_secret_refuses_everything(client, settings):
    settings.KYB_WEBHOOK_SECRET = ""
    body = json.dumps(PAYLOADS["kyb-provider"]).encode()
    refused(post(client, "kyb-provider", body, signed("kyb-provider", body, secret="")), 401, "UNAUTHENTICATED")


@pytest.mark.parametrize(("body", "status", "code"), [
    (b"{not json", 400, "BAD_REQUEST"),
    (b"[1, 2]", 400, "BAD_REQUEST"),
    (b"\xff\xfe{}", 400, "BAD_REQUEST"),
    ('{"a":1}'.encode("utf-16"), 400, "BAD_REQUEST"),
    (b"", 400, "BAD_REQUEST"),
    (json.dumps({"event_id": "x"}).encode(), 422, "VALIDATION_ERROR"),
    (json.dumps({**PAYLOADS["kyb-provider"], "result": "maybe"}).encode(), 422, "VALIDATION_ERROR"),
    (json.dumps({**PAYLOADS["kyb-provider"], "entity_id": "not-a-uuid"}).encode(), 422, "VALIDATION_ERROR"),
])
def test_a_malformed_body_with_a_valid_signature_is_refused(client, body, status, code):
    refused(post(client, "kyb-provider", body, signed("kyb-provider", body)), status, code)


def test_a_body_over_the_limit_is_refused(client):
    body = json.dumps({**PAYLOADS["kyb-provider"], "details": {"blob": "x" * 300_000}}).encode()
    refused(post(client, "kyb-provider", body, signed("kyb-provider", body)), 413, "PAYLOAD_TOO_LARGE")


def test_the_sweeper_requeues_a_callback_whose_message_was_lost(client, clock, django_capture_on_commit_callbacks):
    body = json.dumps(PAYLOADS["kyb-provider"]).encode()
    post(client, "kyb-provider", body, signed("kyb-provider", body))  # its on-commit ingestion never runs: lost
    stored = InboundCallback.objects.get()
    assert stored.status == "received"

    assert inbound.callback_sweep() == []
    clock.advance(minutes=3)
    with django_capture_on_commit_callbacks(execute=True):
        assert inbound.callback_sweep() == [str(stored.pk)]
    stored.refresh_from_db()
    assert stored.status == "failed" and stored.processed_at  # ingested: its handler found no such entity


def test_without_a_handler_the_callback_is_kept_as_unhandled_with_the_reason(client, handler_registry,
                                                                             django_capture_on_commit_callbacks):
    handler_registry.pop("chain-confirmation", None)
    body = json.dumps(PAYLOADS["chain-confirmation"]).encode()
    with django_capture_on_commit_callbacks(execute=True):
        post(client, "chain-confirmation", body, signed("chain-confirmation", body))
    stored = InboundCallback.objects.get()
    assert stored.status == "unhandled" and stored.processed_at
    assert "No handler is registered for chain-confirmation" in stored.result and "reprocess" in stored.result


def test_a_deeply_nested_callback_is_a_400(client):
    body = b'{"event_id": "deep", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    response = post(client, "kyb-provider", body, signed("kyb-provider", body))
    refused(response, 400, "BAD_REQUEST")
    assert "more than 64 levels deep" in response.json()["error"]["message"]


def test_a_failed_callback_is_retried_after_a_minute_and_processed(client, clock, django_capture_on_commit_callbacks,
                                                                    handler_registry):
    runs = []

    def flaky(*, callback, payload):
        runs.append(callback.pk)
        if len(runs) == 1:
            raise LookupError("entity not committed yet")
        return "compliance check recorded"

    handlers.inbound_handler("kyb-provider")(flaky)
    body = json.dumps(PAYLOADS["kyb-provider"]).encode()
    with django_capture_on_commit_callbacks(execute=True):
        post(client, "kyb-provider", body, signed("kyb-provider", body))
    stored = InboundCallback.objects.get()
    assert (stored.status, stored.result) == ("failed", "LookupError: entity not committed yet")
    failed_at = clock.now()

    clock.advance(seconds=59)
    with django_capture_on_commit_callbacks(execute=True):
        assert inbound.callback_sweep() == []  # not due yet
    clock.advance(seconds=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert inbound.callback_sweep() == [str(stored.pk)]

    stored.refresh_from_db()
    assert (stored.status, stored.result) == ("processed", "compliance check recorded")
    assert runs == [stored.pk, stored.pk]
    assert (stored.attempts, stored.next_attempt_at, stored.claimed_at) == (2, None, failed_at + dt.timedelta(minutes=1))


def test_a_callback_failing_every_time_is_tried_four_times_then_left_for_reprocess(
        client, clock, django_capture_on_commit_callbacks, handler_registry):
    runs = []

    def broken(*, callback, payload):
        runs.append(clock.now())
        raise LookupError("entity not found")

    handlers.inbound_handler("kyb-provider")(broken)
    body = json.dumps(PAYLOADS["kyb-provider"]).encode()
    start = clock.now()
    with django_capture_on_commit_callbacks(execute=True):
        post(client, "kyb-provider", body, signed("kyb-provider", body))
    stored = InboundCallback.objects.get()
    for minutes in (1, 5, 30, 60 * 24):  # the retry delays, then a day
        clock.advance(minutes=minutes)
        with django_capture_on_commit_callbacks(execute=True):
            inbound.callback_sweep()

    assert [run - start for run in runs] == [dt.timedelta(minutes=m) for m in (0, 1, 6, 36)]
    stored.refresh_from_db()
    assert (stored.status, stored.attempts, stored.next_attempt_at) == ("failed", 4, None)
    assert stored.result == "LookupError: entity not found"

    handlers.inbound_handler("kyb-provider")(lambda *, callback, payload: "fixed")
    with django_capture_on_commit_callbacks(execute=True):
        inbound.callback_reprocess(actor=None, callback_id=stored.pk)
    stored.refresh_from_db()
    assert (stored.status, stored.attempts, stored.result) == ("processed", 5, "fixed")


def test_a_callback_whose_worker_died_on_its_last_run_is_left_failed(client, clock, django_capture_on_commit_callbacks):
    body = json.dumps(PAYLOADS["kyb-provider"]).encode()
    post(client, "kyb-provider", body, signed("kyb-provider", body))  # its ingestion below, by hand
    InboundCallback.objects.update(status="processing", claimed_at=clock.now(), attempts=4)  # a worker died in run 4
    stored = InboundCallback.objects.get()

    clock.advance(minutes=11)
    with django_capture_on_commit_callbacks(execute=True):
        assert inbound.callback_sweep() == []

    stored.refresh_from_db()
    assert (stored.status, stored.attempts, stored.next_attempt_at) == ("failed", 4, None)
    assert stored.result.startswith("attempt outcome lost")
