"""A sanctions-list publisher on loopback for the refresh tests and bench/sanctions_refresh.py: a real
HTTP server (http.server in a thread, a free port on 127.0.0.1) serving `files` ({path: bytes}),
which a test changes between refreshes. A path not in `files` answers 404; `delays[path]` seconds
are slept before answering it (a publisher too slow for SANCTIONS_DOWNLOAD_TIMEOUT). Each request's
path and User-Agent are recorded.

    with Publisher() as publisher:
        publisher.serve_snapshot(list_spec("ofac_sdn"))
        with override_settings(SANCTIONS_URLS=publisher.urls(spec)): ...
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from onboarding.sanctions.registry import ListSpec, snapshot_blobs


class Publisher:
    def __init__(self):
        self.files: dict[str, bytes] = {}
        self.delays: dict[str, float] = {}
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                outer.requests.append({"path": self.path, "user_agent": self.headers.get("User-Agent", "")})
                time.sleep(outer.delays.get(self.path, 0))
                body = outer.files.get(self.path)
                try:
                    self.send_response(200 if body is not None else 404)
                    self.send_header("Content-Type", "application/octet-stream" if body is not None else "text/plain")
                    self.send_header("Content-Length", str(len(body if body is not None else b"not found")))
                    self.end_headers()
                    self.wfile.write(body if body is not None else b"not found")
                except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting (a time-out test)
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @staticmethod
    def path(source: str, file: str) -> str:
        return f"/{source}/{file}"

    def url(self, source: str, file: str) -> str:
        return self.base_url + self.path(source, file)

    def urls(self, *specs: ListSpec) -> dict[str, dict[str, str]]:
        """SANCTIONS_URLS pointing every file of `specs` here."""
        return {spec.source: {name: self.url(spec.source, name) for name in spec.files} for spec in specs}

    def serve(self, source: str, blobs: dict[str, bytes]) -> None:
        """Serve exactly `blobs` for the list: its other files answer 404."""
        for path in [path for path in self.files if path.startswith(f"/{source}/")]:
            del self.files[path]
        self.files.update({self.path(source, name): blob for name, blob in blobs.items()})

    def serve_snapshot(self, spec: ListSpec) -> dict[str, bytes]:
        """Serve the list's bundled snapshot (decompressed, as its publisher serves it); the files served."""
        blobs, _paths = snapshot_blobs(spec)
        self.serve(spec.source, blobs)
        return blobs

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
