"""Sign-in with Google (/v1/auth/google) against a stand-in for Google's endpoints on loopback
(tests/accounts/fake_google.py), which issues real RS256 ID tokens and serves its JWKS."""

import time
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.conf import settings as django_settings

from accounts.models import SessionToken, SSOLoginAttempt, User
from common.models import AuditLogEntry
from organizations.models import Membership
from tests.accounts.fake_google import CLIENT_ID

pytestmark = pytest.mark.django_db
CALLBACK = "/v1/auth/google/callback"


def start(browser, redirect_url="/"):
    response = browser.get("/v1/auth/google", {"redirect_url": redirect_url})
    assert response.status_code == 302, response.content
    return response["Location"]


def at_google(location) -> str:
    """The callback path and query Google sends the browser back to."""
    back = requests.get(location, allow_redirects=False, timeout=10)
    assert back.status_code == 302, back.text
    parts = urlsplit(back.headers["Location"])
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == django_settings.PUBLIC_URL + CALLBACK
    return f"{parts.path}?{parts.query}"


def sign_in(browser, redirect_url="/"):
    return browser.get(at_google(start(browser, redirect_url)))


def assert_refused(response, status, code, why=None):
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code
    if why:
        assert why in response.json()["error"]["message"], response.json()
    assert not SessionToken.objects.exists()
    assert "_auth_user_id" not in response.wsgi_request.session


class TestLogin:
    def test_redirects_to_google_with_state_nonce_and_pkce(self, api, google):
        browser = api()
        parts = urlsplit(start(browser))
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{google.base}/o/oauth2/v2/auth"
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        assert query["client_id"] == CLIENT_ID and query["response_type"] == "code"
        assert query["redirect_uri"] == django_settings.PUBLIC_URL + CALLBACK
        assert set(query["scope"].split()) == {"openid", "email", "profile"} and query["code_challenge_method"] == "S256"
        attempt = SSOLoginAttempt.objects.get()
        assert attempt.connection is None and attempt.nonce == query["nonce"] and attempt.state_hash != query["state"]
        cookie = browser.cookies["svc_sso_binding"]
        assert cookie["httponly"] and cookie["path"] == "/v1/auth/google"

    @pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example", "/\\evil.example"])
    def test_an_open_redirect_is_refused(self, api, google, target):
        response = api().get("/v1/auth/google", {"redirect_url": target})
        assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "redirect_url"
        assert not SSOLoginAttempt.objects.exists()

    def test_not_configured(self, api, settings):
        settings.GOOGLE_CLIENT_ID = ""
        assert api().get("/v1/auth/google").status_code == 404


class TestCallback:
    def test_a_new_google_user_gets_an_account_and_a_session(self, api, google):
        browser = api()
        response = sign_in(browser, redirect_url="/onboarding?step=2")
        assert response.status_code == 302, response.content
        location = urlsplit(response["Location"])
        assert (location.netloc, location.path, location.query) == ("", "/onboarding", "step=2")
        token = parse_qs(location.fragment)["session_token"][0]
        user = User.objects.get(email="someone@gmail.com")
        assert user.email_verified and not user.has_usable_password() and user.first_name == "Some"
        assert not Membership.objects.filter(user=user).exists()
        assert api(token).get("/v1/auth/me").json()["user"]["email"] == "someone@gmail.com"
        assert browser.get("/v1/auth/me").status_code == 200  # the session cookie
        login = AuditLogEntry.objects.get(action="user.logged_in", actor_id=str(user.pk))
        assert login.after == {"method": "google", "subject": "1092837465"}
        assert AuditLogEntry.objects.get(action="user.created", actor_id=str(user.pk)).after["source"] == "google"
        # the code was exchanged with the PKCE verifier, the client authenticated
        assert google.token_requests[-1]["code_verifier"] and google.token_requests[-1]["grant_type"] == "authorization_code"

    def test_an_existing_verified_account_is_signed_in(self, api, google, make_user):
        user = make_user("someone@gmail.com")
        assert user.email_verified and user.has_usable_password()
        assert sign_in(api()).status_code == 302
        user.refresh_from_db()
        assert user.has_usable_password() and User.objects.count() == 1

    def test_an_unverified_account_of_the_address_is_taken_over_without_its_password(self, api, google, make_user):
        user = make_user("someone@gmail.com")
        User.objects.filter(pk=user.pk).update(email_verified_at=None)
        assert sign_in(api()).status_code == 302
        user.refresh_from_db()
        assert user.email_verified and not user.has_usable_password()
        assert AuditLogEntry.objects.filter(action="user.claimed_by_google", object_id=str(user.pk)).exists()

    def test_the_older_issuer_spelling_is_accepted(self, api, google):
        google.tamper = {"claims": {"iss": "accounts.google.com"}}
        assert sign_in(api()).status_code == 302

    @pytest.mark.parametrize(("tamper", "status", "code", "why"), [
        ({"claims": {"email_verified": False}}, 403, "SSO_ACCESS_DENIED", "not verified"),
        ({"claims": {"email": None}}, 403, "SSO_ACCESS_DENIED", "no e-mail"),
        ({"claims": {"aud": "another-client.apps.googleusercontent.com"}}, 401, "SSO_ASSERTION_INVALID", "Audience"),
        ({"claims": {"iss": "https://evil.example"}}, 401, "SSO_ASSERTION_INVALID", "issuer"),
        ({"claims": {"nonce": "not-ours"}}, 401, "SSO_ASSERTION_INVALID", "nonce"),
        ({"claims": {"exp": int(time.time()) - 600}}, 401, "SSO_ASSERTION_INVALID", "expired"),
        ({"wrong_key": True}, 401, "SSO_ASSERTION_INVALID", "signature"),
    ])
    def test_refused_id_tokens(self, api, google, tamper, status, code, why):
        google.tamper = tamper
        assert_refused(sign_in(api()), status, code, why)
        assert not User.objects.exists()

    def test_a_domain_that_enforces_sso_is_refused(self, api, google, org):
        from accounts.models import SSOConnection, SSODomain

        connection = SSOConnection.objects.create(organization=org, name="Acme", protocol="oidc", enforce=True,
                                                  oidc_issuer="https://idp.acme.example", oidc_client_id="x")
        SSODomain.objects.create(connection=connection, organization=org, domain="acme.example", verification_token="t",
                                 verified_at="2026-01-01T00:00:00Z")
        google.account["email"] = "someone@acme.example"
        assert_refused(sign_in(api()), 403, "SSO_REQUIRED", "single sign-on")
        assert not User.objects.filter(email="someone@acme.example").exists()
        SSOConnection.objects.update(enforce=False)  # listed, not enforced: Google is fine
        assert sign_in(api()).status_code == 302

    def test_a_replayed_callback_is_refused(self, api, google):
        browser = api()
        callback = at_google(start(browser))
        assert browser.get(callback).status_code == 302
        SessionToken.objects.all().delete()
        del browser.cookies[django_settings.SESSION_COOKIE_NAME]
        assert_refused(browser.get(callback), 400, "SSO_STATE_INVALID", "already")

    def test_a_callback_in_another_browser_is_refused(self, api, google):
        assert_refused(api().get(at_google(start(api()))), 400, "SSO_STATE_INVALID", "another browser")

    def test_a_verifier_that_does_not_match_is_refused_by_google(self, api, google):
        from common import crypto

        browser = api()
        callback = at_google(start(browser))
        SSOLoginAttempt.objects.update(code_verifier_encrypted=crypto.encrypt("x" * 64))
        assert_refused(browser.get(callback), 401, "SSO_ASSERTION_INVALID", "code verifier")

    def test_google_refusing_is_a_403(self, api, google):
        browser = api()
        state = parse_qs(urlsplit(start(browser)).query)["state"][0]
        assert_refused(browser.get(CALLBACK, {"state": state, "error": "access_denied"}), 403, "SSO_ACCESS_DENIED")
        assert_refused(browser.get(CALLBACK, {"code": "x"}), 422, "VALIDATION_ERROR")

    def test_a_google_state_does_not_finish_an_sso_sign_in(self, api, google):
        browser = api()
        state = parse_qs(urlsplit(start(browser)).query)["state"][0]
        assert_refused(browser.get("/v1/sso/oidc/callback", {"state": state, "code": "x"}), 400, "SSO_STATE_INVALID")
