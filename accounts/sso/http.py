"""Calls to an identity provider (OIDC discovery, keys, token, userinfo; SAML metadata), made to the
address that was checked.

The URL's host is resolved once, by the guard (accounts.sso.urls.idp_address: webhooks.transport's
resolve_destination), and the connection goes to that address, while TLS still sends the host name
(SNI) and checks the certificate against it, and the Host header names it. So a DNS answer that
changes between the check and the connection (rebinding) cannot reach an inside address, as with
webhooks. Proxies from the environment are not used (a proxy would resolve the name itself);
REQUESTS_CA_BUNDLE (or CURL_CA_BUNDLE) still names the CAs trusted, and redirects are never followed.
"""

import os
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


def idp_request(method: str, url: str, what: str, **kwargs) -> requests.Response:
    """One request to the identity provider's `what` URL (within SSO_HTTP_TIMEOUT_SECONDS, no
    redirect). SSOProviderUnavailable (502) when the URL may not be called; requests' own errors
    otherwise, for the caller to word."""
    if idp_url_problem(url):  # refused before any look-up, with the reason (not requests' word for it)
        idp_address(url, what)
    session = requests.Session()  # not closed here: a streamed answer is read after the return
    session.trust_env = False  # no proxy from the environment; its CA bundle is still honoured:
    session.verify = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True
    adapter = _PinnedAdapter(what)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session.request(method, url, timeout=settings.SSO_HTTP_TIMEOUT_SECONDS, allow_redirects=False, **kwargs)
