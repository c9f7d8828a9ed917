"""Requests gunicorn refuses before Django sees them get the error envelope too, not an HTML page:
a real gunicorn with gunicorn.conf.py (as make run starts it) on a loopback port."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    env = {**os.environ, "DATA_DIR": str(tmp_path_factory.mktemp("gunicorn")), "WEB_CONCURRENCY": "1", "WEB_THREADS": "1"}
    env.pop("DJANGO_SETTINGS_MODULE", None)  # config.wsgi's own settings, as in production
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Ready when a worker answers, not when the master accepts: on a busy machine the worker can take
    # longer than a test's read timeout to import the application after the port is bound.
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as probe:
                probe.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if probe.recv(16).startswith(b"HTTP/1."):
                    break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("gunicorn did not answer")
    yield port
    proc.terminate()
    proc.wait(timeout=20)


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
