"""SAML sign-in against a real identity provider on loopback (pysaml2's IdP, tests/accounts/saml_idp.py):
/v1/sso/saml/login sends the browser there with an AuthnRequest, the IdP answers its auto-POST form
with a signed Response, and the browser posts it to /v1/sso/saml/acs. Each refusal is a clear 4xx
and leaves no session behind."""

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from django.conf import settings as django_settings
from lxml import etree

from accounts.models import SessionToken, SSOConnection, SSOLoginAttempt, User
from common.models import AuditLogEntry
from organizations.models import Membership
from tests.accounts.saml_idp import posted_form

pytestmark = pytest.mark.django_db
ACS = "/v1/sso/saml/acs"
MD = "{urn:oasis:names:tc:SAML:2.0:metadata}"


@pytest.fixture
def connection(api, org, member, saml_idp, txt_server):
    """Acme's SAML connection: acme.example verified, acme.dev listed but not verified."""
    _, token = member(org, "admin")
    admin = api(token)
    created = admin.post("/v1/sso/connections", {
        "protocol": "saml", "domains": ["acme.example", "acme.dev"], "default_role": "l1_analyst",
        "saml": {"idp_metadata_xml": saml_idp.metadata_xml}}, format="json")
    assert created.status_code == 201, created.json()
    record = next(d for d in created.json()["domains"] if d["domain"] == "acme.example")["verification"]
    txt_server.records[record["name"]] = [record["value"]]
    verified = admin.post(f"/v1/sso/connections/{created.json()['id']}/verify-domain", {"domain": "acme.example"}, format="json")
    assert verified.status_code == 200, verified.json()
    SessionToken.objects.all().delete()  # the admin's: the tests count the sessions a sign-in opens
    sp_metadata = api().get("/v1/sso/saml/metadata", {"connection_id": created.json()["id"]})
    saml_idp.sp_metadata = [sp_metadata.content.decode()]  # the IdP's admin registers this service
    return created.json()


def start(browser, connection, redirect_url="/"):
    response = browser.get("/v1/sso/saml/login", {"connection_id": connection["id"], "redirect_url": redirect_url})
    assert response.status_code == 302, response.content
    return response["Location"]


def at_idp(location) -> dict:
    """The browser at the IdP: the form fields it is sent back with (SAMLResponse, RelayState)."""
    page = requests.get(location, timeout=10, allow_redirects=False)
    assert page.status_code == 200, page.text
    _, fields = posted_form(page.text)
    return fields


def post_acs(browser, fields):
    return browser.post(ACS, urlencode(fields), content_type="application/x-www-form-urlencoded")


def sign_in(browser, connection, redirect_url="/"):
    return post_acs(browser, at_idp(start(browser, connection, redirect_url)))


def assert_refused(response, status, code, why=None):
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code
    if why:
        assert why in response.json()["error"]["message"], response.json()
    assert not SessionToken.objects.exists()
    assert "_auth_user_id" not in response.wsgi_request.session


class TestMetadata:
    def test_the_service_provider_metadata(self, api, connection):
        response = api().get("/v1/sso/saml/metadata", {"connection_id": connection["id"]})
        assert response.status_code == 200 and response["Content-Type"] == "application/samlmetadata+xml"
        root = etree.fromstring(response.content)
        assert root.get("entityID") == connection["saml"]["sp_metadata_url"]
        sp = root.find(f"{MD}SPSSODescriptor")
        assert sp.get("AuthnRequestsSigned") == "false" and sp.get("WantAssertionsSigned") == "true"
        acs = sp.find(f"{MD}AssertionConsumerService")
        assert acs.get("Location") == django_settings.PUBLIC_URL + ACS == connection["saml"]["acs_url"]
        assert acs.get("Binding") == "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"

    def test_unknown_missing_or_oidc_connection(self, api, connection):
        assert api().get("/v1/sso/saml/metadata", {"connection_id": "8c5f7d3e-0000-4000-8000-000000000000"}).status_code == 404
        assert api().get("/v1/sso/saml/metadata").status_code == 422
        SSOConnection.objects.filter(pk=connection["id"]).update(protocol="oidc")
        assert api().get("/v1/sso/saml/metadata", {"connection_id": connection["id"]}).status_code == 404


class TestLogin:
    def test_redirects_to_the_idp_with_an_authn_request(self, api, connection, saml_idp):
        browser = api()
        location = start(browser, connection)
        parts = urlsplit(location)
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{saml_idp.base}/sso/redirect"
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        assert set(query) == {"SAMLRequest", "RelayState"}
        attempt = SSOLoginAttempt.objects.get()
        assert attempt.state_hash != query["RelayState"] and attempt.connection_id.hex == connection["id"].replace("-", "")
        assert browser.cookies["svc_sso_binding"]["httponly"]
        at_idp(location)
        request = saml_idp.requests[-1]
        assert request.id == attempt.nonce and request.issuer.text == connection["saml"]["sp_metadata_url"]
        assert request.assertion_consumer_service_url == django_settings.PUBLIC_URL + ACS

    def test_over_https_the_binding_cookie_follows_the_idps_cross_site_post(self, api, connection, settings):
        settings.PUBLIC_URL = "https://compliance.example"
        browser = api()
        start(browser, connection)
        cookie = browser.cookies["svc_sso_binding"]
        assert cookie["samesite"] == "None" and cookie["secure"] and cookie["httponly"] and cookie["path"] == "/v1/sso/"

    @pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example", "/\\evil.example", "javascript:alert(1)"])
    def test_an_open_redirect_is_refused(self, api, connection, target):
        response = api().get("/v1/sso/saml/login", {"connection_id": connection["id"], "redirect_url": target})
        assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "redirect_url"
        assert not SSOLoginAttempt.objects.exists()

    def test_unknown_or_inactive_connection(self, api, connection):
        assert api().get("/v1/sso/saml/login", {"connection_id": "8c5f7d3e-0000-4000-8000-000000000000"}).status_code == 404
        SSOConnection.objects.filter(pk=connection["id"]).update(status="inactive")
        assert api().get("/v1/sso/saml/login", {"connection_id": connection["id"]}).status_code == 404

    def test_metadata_read_from_its_url(self, api, connection, saml_idp):
        SSOConnection.objects.filter(pk=connection["id"]).update(saml_idp_metadata_xml="",
                                                                 saml_idp_metadata_url=f"{saml_idp.base}/idp/metadata")
        assert sign_in(api(), connection).status_code == 302


class TestACS:
    def test_first_sign_in_provisions_the_member_and_opens_a_session(self, api, connection, org, saml_idp):
        saml_idp.user = "New.Person@acme.example"
        saml_idp.attributes = {"givenName": ["New"], "sn": ["Person"]}
        browser = api()
        response = sign_in(browser, connection, redirect_url="/cases?queue=mine")
        assert response.status_code == 302, response.content
        location = urlsplit(response["Location"])
        assert (location.scheme, location.netloc, location.path, location.query) == ("", "", "/cases", "queue=mine")
        token = parse_qs(location.fragment)["session_token"][0]
        user = User.objects.get(email="new.person@acme.example")
        assert user.email_verified and not user.has_usable_password() and user.first_name == "New"
        assert Membership.objects.get(organization=org, user=user).role == "l1_analyst"
        assert api(token).get("/v1/auth/me").json()["user"]["email"] == "new.person@acme.example"
        assert browser.get("/v1/auth/me").json()["user"]["email"] == "new.person@acme.example"  # the session cookie
        login = AuditLogEntry.objects.get(action="user.logged_in", actor_id=str(user.pk))
        assert login.after["method"] == "sso_saml" and login.after["connection_id"] == connection["id"]
        assert SSOLoginAttempt.objects.get().used_at is not None

    def test_the_sso_sign_in_opens_the_console(self, api, connection, org, saml_idp):
        """A member provisioned by SSO (no password, no staff flag) is in the console with the session's
        cookie: membership is the console's key (docs/console.md, "Access")."""
        saml_idp.user = "console.person@acme.example"
        browser = api()
        response = sign_in(browser, connection, redirect_url="/admin/")
        assert response.status_code == 302 and urlsplit(response["Location"]).path == "/admin/", response
        console = browser.get("/admin/")
        assert console.status_code == 200 and "Your role: <strong>l1_analyst</strong>" in console.content.decode()
        assert not User.objects.get(email="console.person@acme.example").is_staff

    def test_a_signed_response_around_an_unsigned_assertion_is_accepted(self, api, connection, saml_idp):
        saml_idp.tamper = {"response_only": True}
        assert sign_in(api(), connection).status_code == 302

    def test_an_unsigned_response_is_refused(self, api, connection, saml_idp):
        saml_idp.tamper = {"unsigned": True}
        assert_refused(sign_in(api(), connection), 401, "SSO_ASSERTION_INVALID")
        assert AuditLogEntry.objects.filter(action="sso.login_refused", object_id=connection["id"]).exists()

    @pytest.mark.parametrize("response_only", [False, True])
    def test_a_signature_by_another_key_is_refused(self, api, connection, saml_idp, response_only):
        saml_idp.tamper = {"wrong_key": True, "response_only": response_only}
        assert_refused(sign_in(api(), connection), 401, "SSO_ASSERTION_INVALID")

    def test_a_sha1_signature_is_refused(self, api, connection, saml_idp):
        saml_idp.tamper = {"sha1": True}
        assert_refused(sign_in(api(), connection), 401, "SSO_ASSERTION_INVALID", "weak algorithm")

    def test_another_audience_is_refused(self, api, connection, saml_idp):
        saml_idp.tamper = {"audience": "https://other-sp.example/metadata"}
        assert_refused(sign_in(api(), connection), 401, "SSO_ASSERTION_INVALID")

    def test_another_audience_of_this_service_is_refused(self, api, connection, saml_idp):
        """An assertion made for another connection's SP entity id (another organization's)."""
        other = "8c5f7d3e-0000-4000-8000-000000000000"
        saml_idp.tamper = {"audience": f"{django_settings.PUBLIC_URL}/v1/sso/saml/metadata?connection_id={other}"}
        assert_refused(sign_in(api(), connection), 401, "SSO_ASSERTION_INVALID")

    def test_another_destination_is_refused(self, api, connection, saml_idp):
        saml_idp.tamper = {"destination": "https://other-sp.example/acs"}
        assert_refused(sign_in(api(), connection), 401, "SSO_ASSERTION_INVALID")

    def test_an_expired_assertion_is_refused(self, api, connection, saml_idp):
        saml_idp.tamper = {"lifetime_minutes": -5}  # past the 60 s skew
        assert_refused(sign_in(api(), connection), 401, "SSO_ASSERTION_INVALID")

    def test_a_replayed_response_is_refused(self, api, connection, saml_idp):
        browser = api()
        fields = at_idp(start(browser, connection))
        assert post_acs(browser, fields).status_code == 302
        SessionToken.objects.all().delete()
        del browser.cookies[django_settings.SESSION_COOKIE_NAME]
        assert_refused(post_acs(browser, fields), 400, "SSO_STATE_INVALID", "already")
        # nor with the RelayState of a new sign-in: the response answers the old request
        relay_state = parse_qs(urlsplit(start(browser, connection)).query)["RelayState"][0]
        assert_refused(post_acs(browser, {**fields, "RelayState": relay_state}), 401, "SSO_ASSERTION_INVALID")

    def test_an_unknown_in_response_to_is_refused(self, api, connection, saml_idp):
        saml_idp.tamper = {"in_response_to": "id-not-a-request-of-ours"}
        assert_refused(sign_in(api(), connection), 401, "SSO_ASSERTION_INVALID")

    def test_a_response_in_another_browser_is_refused(self, api, connection):
        fields = at_idp(start(api(), connection))
        assert_refused(post_acs(api(), fields), 400, "SSO_STATE_INVALID")

    def test_a_missing_or_unknown_relay_state(self, api, connection):
        browser = api()
        fields = at_idp(start(browser, connection))
        assert_refused(post_acs(browser, {"SAMLResponse": fields["SAMLResponse"]}), 422, "VALIDATION_ERROR")
        assert_refused(post_acs(browser, {**fields, "RelayState": "x" + fields["RelayState"]}), 400, "SSO_STATE_INVALID")

    def test_garbage_is_refused(self, api, connection):
        browser = api()
        fields = at_idp(start(browser, connection))
        assert_refused(post_acs(browser, {**fields, "SAMLResponse": "bm90IHhtbA=="}), 401, "SSO_ASSERTION_INVALID")

    @pytest.mark.parametrize(("email", "why"), [
        ("someone@acme.dev", "not been verified"),
        ("someone@globex.example", "do not sign in through this connection"),
    ])
    def test_identities_the_connection_does_not_sign_in(self, api, connection, saml_idp, email, why):
        saml_idp.user = email
        assert_refused(sign_in(api(), connection), 403, "SSO_ACCESS_DENIED", why)
        assert not User.objects.filter(email=email).exists()

    def test_a_stored_redirect_that_is_not_a_path_here_is_refused(self, api, connection):
        browser = api()
        fields = at_idp(start(browser, connection))
        SSOLoginAttempt.objects.update(redirect_url="https://evil.example/")
        assert_refused(post_acs(browser, fields), 400, "SSO_STATE_INVALID")
