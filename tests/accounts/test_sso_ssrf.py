"""An org admin chooses the identity provider's URLs, which the server then calls (discovery, keys,
token, userinfo, SAML metadata): none may reach a private, loopback or link-local address
(webhooks.transport's guard), loopback only with SSO_ALLOW_HTTP_LOOPBACK (tests, development)."""

import pytest
import requests

from accounts.sso import oidc, saml_flow
from accounts.sso.errors import SSOProviderUnavailable
from accounts.sso.urls import idp_address_problem

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_calls(monkeypatch):
    """Any request that gets past the guard fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"the server called {args} {kwargs}")

    monkeypatch.setattr(requests, "get", refuse)
    monkeypatch.setattr(requests, "post", refuse)


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
