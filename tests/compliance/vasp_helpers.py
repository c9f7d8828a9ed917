"""The counterparty VASP of the travel-rule exchange tests: a real HTTPS server on loopback (the test CA
of tests/webhooks/receiver.py) answering each inquiry with `reply(n, request) -> (status, JSON) | HANG`,
a TLS front for Django's live server (so two organizations of this service reach each other over
https), and the signing of the messages a counterparty sends us."""

import contextlib
import json
import select
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from webhooks import signing

HANG = "hang"


@dataclass
class Received:
    path: str
    headers: dict
    raw: bytes

    @property
    def body(self) -> dict:
        return json.loads(self.raw)


def _tls_server(server, tls):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls.cert, tls.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    return server


class CounterpartyServer:
    def __init__(self, tls, reply, hang_seconds: float = 7.0):
        self.reply, self.requests, self.release = reply, [], threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = Received(self.path, {k.lower(): v for k, v in self.headers.items()}, raw)
                outer.requests.append(request)
                answer = outer.reply(len(outer.requests) - 1, request)
                if answer == HANG:
                    outer.release.wait(hang_seconds)
                    self.close_connection = True
                    return
                status, body = answer
                payload = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = _tls_server(type("S", (ThreadingHTTPServer,), {"daemon_threads": True})(("127.0.0.1", 0), Handler), tls)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}/travel-rule/inquiry"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


class TlsFront:
    """https://127.0.0.1:{port} → the plain-HTTP server at (host, port): bytes pumped both ways."""

    def __init__(self, tls, host: str, port: int):
        self.target = (host, port)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls.cert, tls.key)
        self.context = context
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"https://127.0.0.1:{self.listener.getsockname()[1]}"
        self.stopped, self.open = False, []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        try:
            secure = self.context.wrap_socket(client, server_side=True)
            upstream = socket.create_connection(self.target)
        except OSError:
            client.close()
            return
        sockets = [secure, upstream]
        self.open += sockets
        try:
            while True:
                readable = [secure] if secure.pending() else select.select(sockets, [], [], 30)[0]
                if not readable:
                    return
                for source in readable:
                    data = source.recv(65536)
                    if not data:
                        return
                    (upstream if source is secure else secure).sendall(data)
        except OSError:
            return
        finally:
            secure.close()
            upstream.close()

    def stop(self):
        """Kept-alive connections closed too, so the live server's threads end (and close their database connections)."""
        self.stopped = True
        self.listener.close()
        for sock in self.open:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def signed(secret: str, message: dict, *, timestamp: int | None = None, signature: str | None = None) -> dict:
    """(body, headers) of a message a counterparty sends us, as keyword arguments of APIClient.generic."""
    body = json.dumps(message).encode()
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    return {"data": body, "content_type": "application/json", "HTTP_X_TRAVEL_RULE_TIMESTAMP": stamp,
            "HTTP_X_TRAVEL_RULE_SIGNATURE": signature or signing.signature(secret, stamp, body)}
