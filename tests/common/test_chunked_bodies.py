"""Chunked request bodies (`Transfer-Encoding: chunked`, no Content-Length) through a real gunicorn:
read under the same limit as any body, never taken as an empty one. Django's test client cannot send
them, so http.client does, to gunicorn on loopback serving the test database."""

import http.client
import json

import pytest

from common.models import AuditLogEntry
from onboarding.models import Entity
from tests.databases import database_url
from tests.live_gunicorn import Gunicorn
from tests.webhooks.conftest import principal_of
from webhooks import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]
LIMIT = 10 * 1024 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory, django_db_setup):
    running = Gunicorn(tmp_path_factory.mktemp("gunicorn"), DATABASE_URL=database_url(), MAX_JSON_BODY_BYTES=str(LIMIT))
    try:
        port = running.start()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    yield port
    running.stop()


def chunked(port: int, method: str, path: str, chunks, secret: str) -> tuple[int, dict]:
    """Sends the body as the given chunks (http.client encodes an iterable body without a length as
    chunked) and returns the status and the JSON answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request(method, path, body=iter(chunks), headers={"Content-Type": "application/json", "Authorization": f"Bearer {secret}"})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def pieces(document: dict, size: int = 7) -> list[bytes]:
    text = json.dumps(document).encode()
    return [text[i:i + size] for i in range(0, len(text), size)]


def test_a_chunked_patch_is_applied(server, org, key):
    endpoint = services.endpoint_create(principal=principal_of(org), url="https://hooks.example.com/in", event_types=["alert.created"])
    status, body = chunked(server, "PATCH", f"/v1/developer/webhook-endpoints/{endpoint.pk}",
                           pieces({"description": "Sent in chunks", "enabled": False}), key(org, role="admin"))
    assert status == 200, body
    assert (body["description"], body["enabled"]) == ("Sent in chunks", False)
    endpoint.refresh_from_db()
    assert (endpoint.description, endpoint.enabled) == ("Sent in chunks", False)


def test_a_chunked_post_is_read_and_its_refusal_names_the_real_problem(server, org, key):
    secret = key(org)
    created, body = chunked(server, "POST", "/v1/onboarding/entities",
                            pieces({"legal_name": "Chunked Traders LLC", "entity_type": "business", "jurisdiction": "US"}), secret)
    assert created == 201, body
    assert list(Entity.objects.values_list("legal_name", flat=True)) == ["Chunked Traders LLC"]
    refused, body = chunked(server, "POST", "/v1/onboarding/entities",
                            pieces({"legal_name": "Other Co", "entity_type": "business", "jurisdiction": "XX"}), secret)
    assert refused == 422 and [d["field"] for d in body["error"]["details"]] == ["jurisdiction"], body
    assert Entity.objects.count() == 1


def test_a_chunked_body_over_the_limit_is_a_413_and_nothing_is_stored(server, org, key):
    """11 MB in 64 KiB chunks: refused as a body with an 11 MB Content-Length is, not read as no body."""
    padding = {"legal_name": "Too Big LLC", "entity_type": "business", "jurisdiction": "US", "notes": "x" * (11 * 1024 * 1024)}
    status, body = chunked(server, "POST", "/v1/onboarding/entities", pieces(padding, 64 * 1024), key(org))
    assert status == 413
    assert body == {"error": {"code": "PAYLOAD_TOO_LARGE", "message": f"The request body is larger than {LIMIT} bytes."}}
    assert not Entity.objects.exists() and not AuditLogEntry.objects.filter(action__startswith="entity.").exists()
