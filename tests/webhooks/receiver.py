"""A real HTTPS receiver on loopback for the webhook tests and the benchmark.

Each request is recorded with its raw body and headers; `behaviour(n, request)` decides the answer
of the n-th request (0-based): a status code, HANG to keep the connection open without answering, or
TRICKLE to answer 200 one header line a second (each read of the sender gets something in time).
"""

import datetime as dt
import http.server
import json
import socket
import ssl
import threading
from dataclasses import dataclass
from pathlib import Path

HANG = "hang"
TRICKLE = "trickle"


@dataclass
class ReceivedRequest:
    path: str
    headers: dict[str, str]
    body: bytes
    answered: int | None = None

    @property
    def event_id(self) -> str:
        return json.loads(self.body)["id"]


@dataclass
class TlsFiles:
    ca: Path
    cert: Path
    key: Path


def make_tls_files(folder: Path) -> TlsFiles:
    """A private CA and a server certificate for localhost, 127.0.0.1 and ::1 signed by it."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = dt.datetime.now(dt.UTC)
    ca_key, server_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "webhook test CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    server = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name).public_key(server_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
            x509.IPAddress(ipaddress.ip_address("::1")),
        ]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    files = TlsFiles(folder / "ca.pem", folder / "server.pem", folder / "server.key")
    files.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files.cert.write_bytes(server.public_bytes(serialization.Encoding.PEM))
    files.key.write_bytes(server_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return files


class Receiver:
    def __init__(self, tls: TlsFiles, behaviour=None, host: str = "127.0.0.1", hang_seconds: float = 8.0):
        self.requests: list[ReceivedRequest] = []
        self.behaviour = behaviour or (lambda n, request: 200)
        self.hang_seconds = hang_seconds
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # as production servers do; else each answer waits for a delayed ACK

            def do_POST(self):  # noqa: N802 - the http.server naming
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = ReceivedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with receiver.arrived:
                    n = len(receiver.requests)
                    receiver.requests.append(request)
                    receiver.arrived.notify_all()
                answer = receiver.behaviour(n, request)
                if answer == HANG:
                    receiver.release.wait(receiver.hang_seconds)
                    self.close_connection = True
                    return
                if answer == TRICKLE:
                    self.trickle(request)
                    return
                status, extra = (answer, {}) if isinstance(answer, int) else answer
                payload = b'{"ok":true}' if 200 <= status < 300 else b'{"error":"receiver says no"}'
                request.answered = status  # before the answer leaves: the sender may look as soon as it has it
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def trickle(self, request: ReceivedRequest) -> None:
                """200, its headers one line a second for hang_seconds, then the end of the answer."""
                try:
                    self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                    for _ in range(int(receiver.hang_seconds)):
                        if receiver.release.wait(1):
                            break
                        self.wfile.write(b"X-Slowly: yes\r\n")
                    request.answered = 200
                    self.wfile.write(b"Content-Length: 2\r\nConnection: close\r\n\r\nok")
                except OSError:  # the sender gave up and closed the connection
                    pass
                self.close_connection = True

            def log_message(self, *args):
                pass

        family_server = type("Server", (http.server.ThreadingHTTPServer,), {
            "address_family": socket.AF_INET6 if ":" in host else socket.AF_INET,
            "daemon_threads": True,
        })
        self.server = family_server((host, 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls.cert, tls.key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.host = host
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/hooks", host: str | None = None) -> str:
        host = host or self.host
        shown = f"[{host}]" if ":" in host else host
        return f"https://{shown}:{self.port}{path}"

    def wait_for(self, count: int, timeout: float = 30.0) -> bool:
        with self.arrived:
            return self.arrived.wait_for(lambda: len(self.requests) >= count, timeout)

    def acknowledged(self) -> list[ReceivedRequest]:
        return [r for r in self.requests if r.answered is not None and 200 <= r.answered < 300]

    def stop(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
