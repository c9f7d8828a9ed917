"""Requests gunicorn refuses before Django sees them get the error envelope too, not an HTML page:
a real gunicorn with gunicorn.conf.py (as make run starts it) on a loopback port."""

import json
import socket

import pytest

from tests.live_gunicorn import Gunicorn


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = Gunicorn(tmp_path_factory.mktemp("gunicorn"))
    try:
        port = running.start()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    yield port
    running.stop()


def exchange(port: int, raw: bytes) -> tuple[int, dict[str, str], dict]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(raw)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    return int(status_line.split()[1]), headers, json.loads(body)


def test_a_request_line_over_the_limit_is_a_json_414(server):
    status, headers, body = exchange(server, f"GET /v1/onboarding/entities?q={'a' * 5000} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert status == 414 and headers["content-type"] == "application/json"
    assert body["error"]["code"] == "URI_TOO_LONG" and "4,094 bytes" in body["error"]["message"]


def test_a_malformed_request_line_is_a_json_400(server):
    status, headers, body = exchange(server, b"NOT A REQUEST\r\n\r\n")
    assert status == 400 and headers["content-type"] == "application/json"
    assert body["error"]["code"] == "BAD_REQUEST" and body["error"]["message"]


def test_a_public_operation_answers_the_same_414(server):
    """The contract fuzz's case: the OIDC callback (no credentials) with a query over the limit; the
    document lists 414 on every operation (tests/test_openapi.py)."""
    query = "&".join(f"p{n}={'x' * 100}" for n in range(45))
    status, headers, body = exchange(server, f"GET /v1/sso/oidc/callback?{query}&code=x HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert status == 414 and headers["content-type"] == "application/json"
    assert body == {"error": {"code": "URI_TOO_LONG", "message": "The request line (method, path and query) is over 4,094 bytes; "
                                                                 "send long input in a JSON body."}}
