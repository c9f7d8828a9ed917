"""SSO fixtures: the loopback DNS server and OpenID Provider (tests/accounts/sso_servers.py), and
connections in the state a test needs."""

import shutil

import pytest
from django.conf import settings as django_settings

from tests.accounts.sso_servers import SERVERS_DIR, OpenIDProvider, TxtServer

OP_CLIENT_ID = "compliance-app"
OP_CLIENT_SECRET = "op-client-secret-0123456789"


@pytest.fixture
def txt_server(settings):
    server = TxtServer()
    settings.SSO_DNS_NAMESERVERS = [f"127.0.0.1:{server.port}"]
    settings.SSO_DNS_TIMEOUT_SECONDS = 2
    yield server
    server.close()


@pytest.fixture(scope="session")
def oidc_provider(tmp_path_factory):
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the OIDC tests run the npm package oidc-provider on loopback (install nodejs)")
    if not (SERVERS_DIR / "node_modules" / "oidc-provider").is_dir():
        pytest.fail("The npm package oidc-provider is not installed: run `make test`, or `npm ci --prefix tests/servers`.")
    callback = f"{django_settings.PUBLIC_URL}/v1/sso/oidc/callback"
    provider = OpenIDProvider(
        tmp_path_factory.mktemp("op"),
        clients=[{"client_id": OP_CLIENT_ID, "client_secret": OP_CLIENT_SECRET, "redirect_uris": [callback],
                  "grant_types": ["authorization_code"], "response_types": ["code"],
                  "token_endpoint_auth_method": "client_secret_basic"}],
        accounts={"unverified@acme.example": {"email_verified": False}},
    )
    yield provider
    provider.close()


@pytest.fixture(scope="session")
def saml_idp_server(tmp_path_factory):
    from tests.accounts.saml_idp import SAMLIdentityProvider

    idp = SAMLIdentityProvider(tmp_path_factory.mktemp("saml-idp"))
    yield idp
    idp.close()


@pytest.fixture
def saml_idp(saml_idp_server):
    """The loopback SAML IdP (tests/accounts/saml_idp.py), its user and tampering reset for each test."""
    saml_idp_server.user, saml_idp_server.attributes, saml_idp_server.tamper = "person@acme.example", {}, {}
    return saml_idp_server


@pytest.fixture(scope="session")
def fake_google_server():
    from tests.accounts.fake_google import FakeGoogle

    google = FakeGoogle()
    yield google
    google.close()


@pytest.fixture
def google(fake_google_server, settings):
    """The stand-in for Google's endpoints (tests/accounts/fake_google.py), configured and reset."""
    from tests.accounts.fake_google import CLIENT_ID, CLIENT_SECRET

    settings.GOOGLE_CLIENT_ID, settings.GOOGLE_CLIENT_SECRET = CLIENT_ID, CLIENT_SECRET
    settings.GOOGLE_AUTHORIZATION_URL = f"{fake_google_server.base}/o/oauth2/v2/auth"
    settings.GOOGLE_TOKEN_URL = f"{fake_google_server.base}/token"
    settings.GOOGLE_JWKS_URL = f"{fake_google_server.base}/oauth2/v3/certs"
    fake_google_server.reset()
    return fake_google_server
