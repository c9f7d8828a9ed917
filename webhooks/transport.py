"""The outbound POST: resolve, refuse non-public destinations, connect to the address that was checked.

The host is resolved once; every resolved address must be public (unless the setting
WEBHOOK_ALLOW_PRIVATE_NETWORKS allows private ones), and the connection goes to that address
while TLS still verifies the certificate for the URL's host name (SNI and hostname check). So a
DNS answer that changes between the check and the connect (rebinding) cannot reach an inside
address. Redirects are never followed.

An attempt has one deadline, DEADLINE_SECONDS after it starts (docs/webhooks.md: a receiver has
5 seconds to answer), for the connect, the TLS handshake, sending the request and reading the answer's
headers and whatever of its body is read: each of these steps may block only for what is left of
it (_DeadlineSocket). A timeout per socket read would start again at every byte, so a receiver
trickling its headers could hold a send (and its worker) for as long as it liked.
"""

import ipaddress
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import certifi
import urllib3
from django.conf import settings

DEADLINE_SECONDS = 5.0
MAX_ERROR_BODY = 300
MAX_DRAINED_BODY = 64 * 1024
USER_AGENT = "compliance-service-webhooks/0.1"
NUMERIC_IPV4 = re.compile(r"[0-9a-fx.]+")


class DestinationRefused(Exception):
    """The URL may not be called: not HTTPS, unresolvable, or a non-public address."""


@dataclass(frozen=True)
class Outcome:
    status_code: int | None
    error: str
    duration_ms: int
    answer: bytes = b""  # the first `answer_limit` bytes of the body (travel-rule inquiries read the VASP's reply)

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def address_refusal(ip: IPAddress) -> str | None:
    """Why an address may not be called (loopback, private, link-local, ...), or None if public."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for label, flag in (("loopback", ip.is_loopback), ("link-local", ip.is_link_local), ("multicast", ip.is_multicast),
                        ("unspecified", ip.is_unspecified), ("private", ip.is_private), ("reserved", ip.is_reserved)):
        if flag:
            return label
    if not ip.is_global:
        return "not globally routable"
    return None


def literal_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a host denotes without DNS: an IPv6 literal, or IPv4 in any form the resolver reads
    as one (inet_aton: `127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`, `0`)."""
    host = host.strip("[]").rstrip(".").lower()
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if not NUMERIC_IPV4.fullmatch(host):  # inet_aton would also take "1.2.3.4 junk"; getaddrinfo does not
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def host_refusal(host: str) -> str | None:
    """Why a URL's host may not be called, as far as it can be told without DNS: a loopback name
    (RFC 6761: `localhost` and every `*.localhost`, with or without the final dot) or a non-public
    address literal. None for any other name: its addresses are checked when it is resolved."""
    name = host.strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return "loopback"
    address = literal_address(name)
    return address_refusal(address) if address else None


def resolve_destination(host: str, port: int, *, allow_private: bool | None = None,
                        exempt: Callable[[IPAddress], bool] | None = None) -> str:
    """The address to connect to: the first one resolved, after every resolved one passed the guard.
    `allow_private` defaults to WEBHOOK_ALLOW_PRIVATE_NETWORKS; `exempt` lets some addresses through
    anyway (single sign-on lets a loopback identity provider through in development and tests)."""
    if allow_private is None:
        allow_private = settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS
    if not allow_private and exempt is None:  # a name or literal refused before any DNS (with `exempt`, after it)
        reason = host_refusal(host)
        if reason:
            raise DestinationRefused(f"{host} is a {reason} address; refused")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise DestinationRefused(f"cannot resolve {host}: {exc}") from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if not addresses:
        raise DestinationRefused(f"{host} resolves to no address")
    if not allow_private:
        for address in addresses:
            ip = ipaddress.ip_address(address.split("%")[0])
            reason = address_refusal(ip)
            if reason and not (exempt is not None and exempt(ip)):
                raise DestinationRefused(f"{host} resolves to {address}, a {reason} address; refused")
    return addresses[0]


_attempt = threading.local()  # .deadline: the time.monotonic() by which this thread's attempt must be done


class _DeadlineSocket(ssl.SSLSocket):
    """A TLS socket whose every blocking step waits at most until the deadline of the attempt the
    thread is making (no deadline: the socket's own timeout). Past it, the step raises TimeoutError,
    which urllib3 reports as a timeout and the attempt records as a failure."""

    def _within_deadline(self) -> None:
        deadline = getattr(_attempt, "deadline", None)
        if deadline is None:
            return
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no answer within {DEADLINE_SECONDS:g} s")
        self.settimeout(left)

    def do_handshake(self, *args, **kwargs):
        self._within_deadline()
        return super().do_handshake(*args, **kwargs)

    def send(self, *args, **kwargs):  # sendall sends through send
        self._within_deadline()
        return super().send(*args, **kwargs)

    def read(self, *args, **kwargs):  # recv and recv_into read through read
        self._within_deadline()
        return super().read(*args, **kwargs)


_contexts: dict[str, ssl.SSLContext] = {}
_pools: dict[tuple, urllib3.HTTPSConnectionPool] = {}
_lock = threading.Lock()
MAX_POOLS = 256


def _ssl_context() -> ssl.SSLContext:
    """Public CAs plus the file WEBHOOK_CA_BUNDLE names (a private CA of a customer or of tests)."""
    extra = settings.WEBHOOK_CA_BUNDLE or ""
    context = _contexts.get(extra)
    if context is None:
        context = ssl.create_default_context(cafile=certifi.where())
        context.sslsocket_class = _DeadlineSocket
        if extra:
            context.load_verify_locations(cafile=extra)
        _contexts[extra] = context
    return context


def _pool(address: str, port: int, host: str) -> urllib3.HTTPSConnectionPool:
    """Kept per (address, port, host name) so a receiver's connection is reused between deliveries."""
    key = (address, port, host, settings.WEBHOOK_CA_BUNDLE or "")
    with _lock:
        pool = _pools.get(key)
        if pool is None:
            if len(_pools) >= MAX_POOLS:
                for old in _pools.values():
                    old.close()
                _pools.clear()
            pool = urllib3.HTTPSConnectionPool(
                address, port, maxsize=max(16, settings.WEBHOOK_SEND_CONCURRENCY), retries=False,
                server_hostname=host, assert_hostname=host, ssl_context=_ssl_context(),
            )
            _pools[key] = pool
    return pool


def _host_header(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return shown if port == 443 else f"{shown}:{port}"


def _target(url: str) -> tuple[str, int, str]:
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        raise DestinationRefused("only https:// URLs are called")
    path = parts.path or "/"
    return parts.hostname, parts.port or 443, f"{path}?{parts.query}" if parts.query else path


def post(url: str, body: bytes, headers: dict[str, str], *, answer_limit: int = MAX_ERROR_BODY) -> Outcome:
    """POST `body` to `url` within DEADLINE_SECONDS; any failure is an Outcome with an error, never
    an exception. An answer that completes after the deadline is a time-out. The Outcome keeps the
    first `answer_limit` bytes of the answer's body."""
    started = time.monotonic()
    deadline = started + DEADLINE_SECONDS

    def done(status_code: int | None, error: str, answer: bytes = b"") -> Outcome:
        return Outcome(status_code, error, int((time.monotonic() - started) * 1000), answer)

    try:
        host, port, path = _target(url)
        address = resolve_destination(host, port)
    except DestinationRefused as exc:
        return done(None, str(exc))
    _attempt.deadline = deadline
    try:
        status, excerpt, location = _exchange(address, host, port, path, body, headers, deadline, answer_limit)
    except urllib3.exceptions.HTTPError as exc:
        return done(None, _describe(exc, past_deadline=time.monotonic() >= deadline))
    finally:
        _attempt.deadline = None
    if time.monotonic() >= deadline:
        return done(None, f"timed out: the answer (HTTP {status}) was not complete within {DEADLINE_SECONDS:g} s")
    if 200 <= status < 300:
        return done(status, "", excerpt)
    if 300 <= status < 400:
        return done(status, f"HTTP {status}: redirect to {location} not followed")
    return done(status, f"HTTP {status}: {excerpt[:MAX_ERROR_BODY].decode('utf-8', 'replace')}".strip(), excerpt)


def _exchange(address: str, host: str, port: int, path: str, body: bytes, headers: dict[str, str],
              deadline: float, answer_limit: int = MAX_ERROR_BODY) -> tuple[int, bytes, str]:
    """(status, the first bytes of the body, Location) of one POST; urllib3's errors are raised."""
    left = max(deadline - time.monotonic(), 0.001)  # what resolving left of the deadline
    all_headers = {"Host": _host_header(host, port), "Content-Type": "application/json", "User-Agent": USER_AGENT, **headers}
    response = _pool(address, port, host).urlopen(
        "POST", path, body=body, headers=all_headers, redirect=False, retries=False,
        assert_same_host=False, preload_content=False, timeout=urllib3.Timeout(connect=left, read=left),
    )
    try:
        excerpt = response.read(answer_limit, decode_content=False)
        if response.length_remaining is not None and response.length_remaining <= MAX_DRAINED_BODY:
            response.drain_conn()  # a small rest is read so the connection can be reused
        else:
            response.close()
    finally:
        response.release_conn()
    return response.status, excerpt, response.headers.get("Location", "?")


def _describe(exc: Exception, past_deadline: bool = False) -> str:
    if past_deadline or isinstance(exc, urllib3.exceptions.TimeoutError):
        return f"timed out: {exc}"[:500]
    if isinstance(exc, urllib3.exceptions.SSLError):
        return f"TLS error: {exc}"[:500]
    return f"{type(exc).__name__}: {exc}"[:500]
