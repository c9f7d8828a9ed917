"""An org admin chooses the identity provider's URLs, which the server then calls (discovery, keys,
token, userinfo, SAML metadata): none may reach a private, loopback or link-local address
(webhooks.transport's guard), loopback only with SSO_ALLOW_HTTP_LOOPBACK (tests, development)."""

import socket
import threading
import time

import dns.resolver
import pytest
import urllib3

from accounts.sso import oidc, saml_flow
from accounts.sso.errors import SSOProviderUnavailable
from accounts.sso.http import idp_request
from accounts.sso.urls import idp_address_problem
from tests.webhooks.receiver import Receiver, make_tls_files

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_calls(monkeypatch):
    """Any request that gets past the guard fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"the server called {args} {kwargs}")

    monkeypatch.setattr(urllib3.connectionpool.HTTPConnectionPool, "urlopen", refuse)


@pytest.fixture
def test_names(txt_server, monkeypatch):
    """Names under .test are looked up (A records) at the loopback DNS server, by every caller of
    socket.getaddrinfo (the guard, and urllib3 when it connects), as the system resolver would if it
    were pointed at that server; other names as usual."""
    resolver = dns.resolver.Resolver(configure=False)
    resolver.nameservers, resolver.port = ["127.0.0.1"], txt_server.port
    system_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):  # noqa: A002 -- socket's names
        if isinstance(host, str) and host.endswith(".test"):
            try:
                answer = resolver.resolve(host, "A", lifetime=2)
            except dns.resolver.NXDOMAIN:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (record.address, port)) for record in answer]
        return system_getaddrinfo(host, port, family, type, proto, flags)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return txt_server


class Listener:
    """A TCP port on loopback that records each connection made to it (and closes it)."""

    def __init__(self):
        self.connections = 0
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.socket.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while not self._stop.is_set():
            try:
                connection, _ = self.socket.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            connection.close()

    def close(self):
        self._stop.set()
        self._thread.join(timeout=2)
        self.socket.close()


@pytest.mark.parametrize(("url", "reason"), [
    ("https://10.1.2.3/", "private"),
    ("https://192.168.0.10:8443/realms/x", "private"),
    ("https://169.254.169.254/latest/meta-data", "link-local"),
    ("https://[fd00::1]/", "private"),
    ("https://[::ffff:10.0.0.1]/", "private"),
    ("https://100.64.0.1/", "not globally routable"),
    ("https://0.0.0.0/", "unspecified"),
])
def test_non_public_addresses_are_refused(settings, url, reason):
    settings.SSO_ALLOW_HTTP_LOOPBACK = True  # loopback allowed; the rest still refused
    assert reason in idp_address_problem(url)


@pytest.mark.parametrize("url", ["https://127.0.0.1:9443/", "https://[::1]/", "https://localhost/", "http://127.0.0.1:8080/"])
def test_loopback_only_when_the_setting_allows_it(settings, url):
    settings.SSO_ALLOW_HTTP_LOOPBACK = False
    assert idp_address_problem(url)
    settings.SSO_ALLOW_HTTP_LOOPBACK = True
    assert idp_address_problem(url) is None


def test_a_public_address_passes(settings):
    settings.SSO_ALLOW_HTTP_LOOPBACK = False
    assert idp_address_problem("https://93.184.215.14/") is None


def test_discovery_keys_and_token_endpoint_are_guarded(no_calls):
    with pytest.raises(SSOProviderUnavailable, match="link-local"):
        oidc.provider_configuration("https://169.254.169.254")
    config = {"token_endpoint": "https://10.0.0.5/token", "jwks_uri": "https://10.0.0.5/jwks"}
    with pytest.raises(SSOProviderUnavailable, match="private"):
        oidc.code_exchange(config, client_id="c", client_secret="s", code="x", verifier="v", redirect_uri="https://x/cb")
    with pytest.raises(SSOProviderUnavailable, match="private"):
        oidc.userinfo({"userinfo_endpoint": "https://10.0.0.5/userinfo"}, "token", "sub")


def test_saml_metadata_url_is_guarded(no_calls):
    with pytest.raises(SSOProviderUnavailable, match="private"):
        saml_flow._fetch_metadata("https://172.16.0.9/metadata")


def test_an_oidc_sign_in_towards_an_internal_address_is_a_502(api, org, member, no_calls):
    _, token = member(org, "admin")
    created = api(token).post("/v1/sso/connections", {
        "protocol": "oidc", "domains": ["acme.example"],
        "oidc": {"issuer": "https://10.20.30.40/realms/acme", "client_id": "c", "client_secret": "s"}}, format="json")
    assert created.status_code == 201, created.json()
    response = api().get("/v1/sso/oidc/login", {"connection_id": created.json()["id"]})
    assert response.status_code == 502 and response.json()["error"]["code"] == "SSO_PROVIDER_UNAVAILABLE"
    assert "private" in response.json()["error"]["message"]


def test_a_name_rebound_to_loopback_after_the_check_cannot_reach_it(settings, test_names):
    """DNS rebinding: the name resolves to a public address when it is checked and to loopback
    afterwards. The connection goes to the address that was checked, so the loopback port is never
    reached (before, requests resolved the name again and connected to 127.0.0.1)."""
    settings.SSO_ALLOW_HTTP_LOOPBACK = False
    settings.SSO_HTTP_TIMEOUT_SECONDS = 1
    inside = Listener()
    try:
        test_names.addresses["idp.rebind.test"] = ["93.184.215.14", "127.0.0.1"]
        with pytest.raises(SSOProviderUnavailable, match="discovery document could not be read"):
            oidc.provider_configuration(f"https://idp.rebind.test:{inside.port}")
        assert inside.connections == 0
        assert test_names.queries.count("idp.rebind.test") == 1  # resolved once: by the check
    finally:
        inside.close()


def test_the_certificate_is_checked_for_the_name_not_the_address(settings, test_names, tmp_path, monkeypatch):
    """The pinned connection still sends the name (SNI, Host) and checks the certificate against it:
    the loopback server's certificate is valid for 127.0.0.1 and localhost, not for idp.pinned.test."""
    tls = make_tls_files(tmp_path)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(tls.ca))
    server = Receiver(tls)
    try:
        test_names.addresses["idp.pinned.test"] = ["127.0.0.1"]
        with pytest.raises(SSOProviderUnavailable, match="token endpoint could not be reached"):
            oidc.code_exchange({"token_endpoint": f"https://idp.pinned.test:{server.port}/token"}, client_id="c",
                               client_secret="s", code="x", verifier="v", redirect_uri="https://x/cb")
        assert server.requests == []

        response = idp_request("POST", f"https://localhost:{server.port}/token", "token endpoint", data={"code": "x"})
        assert response.status_code == 200
        assert server.requests[0].headers["host"] == f"localhost:{server.port}"
        assert server.requests[0].body == b"code=x"
    finally:
        server.stop()


class _Dripping(threading.Thread):
    """An identity provider on loopback that answers 200 and then a byte every 0.2 s for ever, or
    (huge) megabytes at once: requests' per-read timeout alone would wait for it."""

    def __init__(self, huge: bool = False):
        super().__init__(daemon=True)
        self.huge, self.stop = huge, threading.Event()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]

    def run(self):
        self.server.settimeout(5)
        try:
            client, _ = self.server.accept()
        except OSError:
            return
        with client:
            client.recv(65536)
            client.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{")
            while not self.stop.is_set():
                try:
                    client.sendall(b" " * (256 * 1024) if self.huge else b" ")
                except OSError:
                    return
                self.stop.wait(0.01 if self.huge else 0.2)


@pytest.mark.parametrize("huge, error", [(False, "Timeout"), (True, "AnswerTooLarge")])
def test_an_answer_that_never_ends_is_cut_off(settings, huge, error):
    settings.SSO_ALLOW_HTTP_LOOPBACK, settings.SSO_HTTP_TIMEOUT_SECONDS = True, 1
    server = _Dripping(huge)
    server.start()
    started = time.monotonic()
    try:
        with pytest.raises(SSOProviderUnavailable, match=rf"discovery document could not be read \({error}\)"):
            oidc.provider_configuration(f"http://127.0.0.1:{server.port}")
    finally:
        server.stop.set()
        server.server.close()
    assert time.monotonic() - started < 3  # the whole answer's deadline (1 s), not a read's
