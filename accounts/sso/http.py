"""Calls to an identity provider (OIDC discovery, keys, token, userinfo; SAML metadata), made to the
address that was checked.

The URL's host is resolved once, by the guard (accounts.sso.urls.idp_address: webhooks.transport's
resolve_destination), and the connection goes to that address, while TLS still sends the host name
(SNI) and checks the certificate against it, and the Host header names it. So a DNS answer that
changes between the check and the connection (rebinding) cannot reach an inside address, as with
webhooks. Proxies from the environment are not used (a proxy would resolve the name itself);
REQUESTS_CA_BUNDLE (or CURL_CA_BUNDLE) still names the CAs trusted, and redirects are never followed.

The whole answer must arrive within SSO_HTTP_TIMEOUT_SECONDS and within a size: requests' timeout
bounds each read, so a provider dripping a byte every few seconds, or sending without end, would
otherwise hold a sign-in (and a web thread) for as long as it liked.
"""

import os
import time
from urllib.parse import urlsplit

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter

from accounts.sso.urls import idp_address, idp_url_problem


class _PinnedAdapter(HTTPAdapter):
    """Connects to the address idp_address checked for the request's URL, never to a second look-up."""

    def __init__(self, what: str):
        self.what = what
        super().__init__(max_retries=0)

    def send(self, request, **kwargs):
        request.headers["Host"] = urlsplit(request.url).netloc  # the name, not the address connected to
        return super().send(request, **kwargs)

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None):
        host_params, pool_kwargs = self.build_connection_pool_key_attributes(request, verify, cert)
        host = host_params["host"]
        host_params["host"] = idp_address(request.url, self.what)
        if host_params["scheme"] == "https":
            pool_kwargs["server_hostname"] = host.strip("[]")
            pool_kwargs["assert_hostname"] = host.strip("[]")
        return self.poolmanager.connection_from_host(**host_params, pool_kwargs=pool_kwargs)


MAX_ANSWER_BYTES = 1024 * 1024  # a discovery document, key set, token or metadata is a few kilobytes


class AnswerTooLarge(requests.RequestException):
    """The identity provider's answer was longer than the caller takes."""


def idp_request(method: str, url: str, what: str, *, max_bytes: int = MAX_ANSWER_BYTES, **kwargs) -> requests.Response:
    """One request to the identity provider's `what` URL, its whole answer read (at most
    `max_bytes`) within SSO_HTTP_TIMEOUT_SECONDS, no redirect. SSOProviderUnavailable (502) when the
    URL may not be called; requests' own errors otherwise (Timeout, AnswerTooLarge), for the caller
    to word."""
    if idp_url_problem(url):  # refused before any look-up, with the reason (not requests' word for it)
        idp_address(url, what)
    deadline = time.monotonic() + settings.SSO_HTTP_TIMEOUT_SECONDS
    session = requests.Session()
    session.trust_env = False  # no proxy from the environment; its CA bundle is still honoured:
    session.verify = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True
    adapter = _PinnedAdapter(what)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    with session:
        response = session.request(method, url, timeout=settings.SSO_HTTP_TIMEOUT_SECONDS, allow_redirects=False, stream=True,
                                   **kwargs)
        _read_by(response, deadline, max_bytes)
    return response


def _read_by(response: requests.Response, deadline: float, max_bytes: int) -> None:
    """The answer's body, read into the response (as requests would) unless it is too long or late."""
    body = bytearray()
    try:
        # read1: what one read of the socket brought (iter_content would wait until a whole chunk came)
        while chunk := response.raw.read1(16 * 1024, decode_content=True):
            body += chunk
            if len(body) > max_bytes:
                raise AnswerTooLarge(f"more than {max_bytes} bytes")
            if time.monotonic() > deadline:
                raise requests.Timeout(f"no whole answer within {settings.SSO_HTTP_TIMEOUT_SECONDS} s")
    finally:
        response.close()
    response._content, response._content_consumed = bytes(body), True
