"""OIDC sign-in against a real OpenID Provider on loopback (npm oidc-provider): the browser is
driven through the provider's own login and consent pages with `requests`, and comes back to
/v1/sso/oidc/callback. Each refusal is a clear 4xx and leaves no session behind."""

import time
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
from django.conf import settings as django_settings

from accounts.models import SessionToken, SSOLoginAttempt, User
from accounts.sso import oidc
from accounts.sso.errors import SSOAssertionInvalid
from common import crypto
from common.models import AuditLogEntry
from conftest import PASSWORD
from organizations.models import Membership
from tests.accounts.conftest import OP_CLIENT_ID, OP_CLIENT_SECRET
from tests.accounts.sso_servers import sign_in_at_provider, signing_key

pytestmark = pytest.mark.django_db
CALLBACK = "/v1/sso/oidc/callback"


@pytest.fixture
def connection(api, org, member, oidc_provider, txt_server):
    """Acme's OIDC connection: acme.example verified, acme.dev listed but not verified."""
    _, token = member(org, "admin")
    admin = api(token)
    created = admin.post("/v1/sso/connections", {
        "protocol": "oidc", "domains": ["acme.example", "acme.dev"], "default_role": "l1_analyst",
        "oidc": {"issuer": oidc_provider.issuer, "client_id": OP_CLIENT_ID, "client_secret": OP_CLIENT_SECRET}}, format="json")
    assert created.status_code == 201, created.json()
    record = next(d for d in created.json()["domains"] if d["domain"] == "acme.example")["verification"]
    txt_server.records[record["name"]] = [record["value"]]
    verified = admin.post(f"/v1/sso/connections/{created.json()['id']}/verify-domain", {"domain": "acme.example"}, format="json")
    assert verified.status_code == 200, verified.json()
    SessionToken.objects.all().delete()  # the admin's: the tests count the sessions a sign-in opens
    return created.json()


def start(browser, connection, redirect_url="/"):
    response = browser.get("/v1/sso/oidc/login", {"connection_id": connection["id"], "redirect_url": redirect_url})
    assert response.status_code == 302, response.content
    return response["Location"]


def through_provider(authorization_url, login):
    """The callback path and query the provider sends the browser back to."""
    back = sign_in_at_provider(authorization_url, login, stop_at=django_settings.PUBLIC_URL + CALLBACK)
    parts = urlsplit(back)
    return f"{parts.path}?{parts.query}"


def sign_in(browser, connection, login, redirect_url="/"):
    return browser.get(through_provider(start(browser, connection, redirect_url), login))


def assert_refused(response, status, code):
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code
    assert not SessionToken.objects.exists()
    assert "_auth_user_id" not in response.wsgi_request.session


class TestLogin:
    def test_redirects_to_the_provider_with_state_nonce_and_pkce(self, api, connection, oidc_provider):
        browser = api()
        url = start(browser, connection)
        parts = urlsplit(url)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        assert f"{parts.scheme}://{parts.netloc}" == oidc_provider.issuer
        assert query["response_type"] == "code" and query["client_id"] == OP_CLIENT_ID
        assert query["redirect_uri"] == django_settings.PUBLIC_URL + CALLBACK
        assert query["code_challenge_method"] == "S256" and set(query["scope"].split()) == {"openid", "email", "profile"}
        attempt = SSOLoginAttempt.objects.get()
        assert attempt.nonce == query["nonce"] and attempt.state_hash != query["state"]
        assert oidc.code_challenge(crypto.decrypt(attempt.code_verifier_encrypted)) == query["code_challenge"]
        assert browser.cookies["svc_sso_binding"]["httponly"]

    @pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example", "/\\evil.example", "javascript:alert(1)",
                                        "evil.example", "/ok\r\nLocation: https://evil.example"])
    def test_an_open_redirect_is_refused(self, api, connection, target):
        response = api().get("/v1/sso/oidc/login", {"connection_id": connection["id"], "redirect_url": target})
        assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "redirect_url"
        assert not SSOLoginAttempt.objects.exists()

    def test_unknown_inactive_or_missing_connection(self, api, connection, org):
        assert api().get("/v1/sso/oidc/login", {"connection_id": "8c5f7d3e-0000-4000-8000-000000000000"}).status_code == 404
        assert api().get("/v1/sso/oidc/login").status_code == 422
        from accounts.models import SSOConnection

        SSOConnection.objects.filter(pk=connection["id"]).update(status="inactive")
        assert api().get("/v1/sso/oidc/login", {"connection_id": connection["id"]}).status_code == 404


class TestCallback:
    def test_first_sign_in_provisions_the_member_and_opens_a_session(self, api, connection, org):
        browser = api()
        response = sign_in(browser, connection, "New.Person@acme.example", redirect_url="/cases?queue=mine")
        assert response.status_code == 302, response.content
        location = urlsplit(response["Location"])
        assert (location.scheme, location.netloc, location.path, location.query) == ("", "", "/cases", "queue=mine")
        fragment = parse_qs(location.fragment)
        token = fragment["session_token"][0]
        assert token.startswith("st_") and fragment["expires_at"]
        user = User.objects.get(email="new.person@acme.example")
        assert user.email_verified and not user.has_usable_password()
        assert Membership.objects.get(organization=org, user=user).role == "l1_analyst"
        me = api(token).get("/v1/auth/me")
        assert me.status_code == 200 and me.json()["user"]["email"] == "new.person@acme.example"
        assert me.json()["organization"]["organization_slug"] == org.slug
        assert browser.get("/v1/auth/me").json()["user"]["email"] == "new.person@acme.example"  # the session cookie
        login = AuditLogEntry.objects.get(action="user.logged_in", actor_id=str(user.pk))
        assert login.after["method"] == "sso_oidc" and login.after["connection_id"] == connection["id"]
        assert AuditLogEntry.objects.filter(action="member.provisioned", organization_id=org.pk).count() == 1
        assert SSOLoginAttempt.objects.get().used_at is not None

    def test_an_unverified_account_of_the_address_is_claimed_without_its_password(self, api, connection, org, make_user):
        """Someone registered boss@acme.example without owning it and never verified it: the owner's SSO
        sign-in takes the account over, and the stranger's password stops working."""
        squatter = make_user("boss@acme.example", verified=False)
        assert squatter.has_usable_password() and not squatter.email_verified
        response = sign_in(api(), connection, "boss@acme.example")
        assert response.status_code == 302, response.content
        squatter.refresh_from_db()
        assert squatter.email_verified and not squatter.has_usable_password()
        claimed = AuditLogEntry.objects.get(action="user.claimed_by_sso", object_id=str(squatter.pk))
        assert claimed.after["password_removed"] is True
        refused = api().post("/v1/auth/login", {"email": "boss@acme.example", "password": PASSWORD}, format="json")
        assert refused.status_code == 401, refused.json()

    def test_an_existing_member_keeps_their_role(self, api, connection, org, make_user):
        user = make_user("boss@acme.example")
        Membership.objects.create(organization=org, user=user, role="l3_officer")
        assert sign_in(api(), connection, "boss@acme.example").status_code == 302
        assert Membership.objects.get(organization=org, user=user).role == "l3_officer"
        assert not AuditLogEntry.objects.filter(action="member.provisioned").exists()

    def test_a_replayed_state_is_refused(self, api, connection):
        browser = api()
        callback = through_provider(start(browser, connection), "someone@acme.example")
        assert browser.get(callback).status_code == 302
        SessionToken.objects.all().delete()
        del browser.cookies[django_settings.SESSION_COOKIE_NAME]  # signed out; the binding cookie stays
        replayed = browser.get(callback)
        assert_refused(replayed, 400, "SSO_STATE_INVALID")
        assert "already" in replayed.json()["error"]["message"]

    def test_a_wrong_state_is_refused(self, api, connection):
        browser = api()
        callback = through_provider(start(browser, connection), "someone@acme.example")
        assert_refused(browser.get(callback.replace("state=", "state=x")), 400, "SSO_STATE_INVALID")
        assert_refused(browser.get(CALLBACK, {"code": "abc"}), 422, "VALIDATION_ERROR")

    def test_a_callback_in_another_browser_is_refused(self, api, connection):
        callback = through_provider(start(api(), connection), "someone@acme.example")
        assert_refused(api().get(callback), 400, "SSO_STATE_INVALID")  # login CSRF: the attacker's code in the victim's browser

    def test_an_expired_attempt_is_refused(self, api, connection):
        browser = api()
        callback = through_provider(start(browser, connection), "someone@acme.example")
        SSOLoginAttempt.objects.update(expires_at="2000-01-01T00:00:00Z")
        assert_refused(browser.get(callback), 400, "SSO_STATE_INVALID")

    def test_a_bad_nonce_is_refused(self, api, connection):
        browser = api()
        url = start(browser, connection)
        SSOLoginAttempt.objects.update(nonce="not-the-nonce-the-provider-saw")
        assert_refused(browser.get(through_provider(url, "someone@acme.example")), 401, "SSO_ASSERTION_INVALID")
        assert AuditLogEntry.objects.filter(action="sso.login_refused", object_id=connection["id"]).exists()

    def test_an_expired_id_token_is_refused(self, api, connection, monkeypatch):
        browser = api()
        callback = through_provider(start(browser, connection), "someone@acme.example")
        monkeypatch.setattr(oidc, "_clock", lambda: time.time() + 2 * 3600)  # the provider's tokens live an hour
        response = browser.get(callback)
        assert_refused(response, 401, "SSO_ASSERTION_INVALID")
        assert "expired" in response.json()["error"]["message"]

    def test_a_tampered_code_is_refused_by_the_provider(self, api, connection):
        browser = api()
        callback = through_provider(start(browser, connection), "someone@acme.example")
        assert_refused(browser.get(callback.replace("code=", "code=x")), 401, "SSO_ASSERTION_INVALID")

    def test_a_pkce_verifier_that_does_not_match_is_refused(self, api, connection):
        browser = api()
        url = start(browser, connection)
        SSOLoginAttempt.objects.update(code_verifier_encrypted=crypto.encrypt("x" * 64))
        assert_refused(browser.get(through_provider(url, "someone@acme.example")), 401, "SSO_ASSERTION_INVALID")

    @pytest.mark.parametrize(("login", "why"), [
        ("someone@acme.dev", "not been verified"),
        ("someone@globex.example", "do not sign in through this connection"),
        ("unverified@acme.example", "email_verified"),
    ])
    def test_identities_the_connection_does_not_sign_in(self, api, connection, login, why):
        response = sign_in(api(), connection, login)
        assert_refused(response, 403, "SSO_ACCESS_DENIED")
        assert why in response.json()["error"]["message"]
        assert not User.objects.filter(email=login).exists()

    def test_a_disabled_account_is_refused(self, api, connection, make_user):
        user = make_user("gone@acme.example")
        User.objects.filter(pk=user.pk).update(is_active=False)
        assert_refused(sign_in(api(), connection, "gone@acme.example"), 403, "SSO_ACCESS_DENIED")

    def test_the_provider_refusing_is_a_403(self, api, connection):
        browser = api()
        state = parse_qs(urlsplit(start(browser, connection)).query)["state"][0]
        response = browser.get(CALLBACK, {"state": state, "error": "access_denied", "error_description": "The user said no"})
        assert_refused(response, 403, "SSO_ACCESS_DENIED")
        assert "access_denied" in response.json()["error"]["message"]


class TestIdTokenValidation:
    """Tokens forged with the provider's own signing key (or another), checked against its real JWKS."""

    @pytest.fixture
    def forge(self, oidc_provider):
        def make(key=None, **changes):
            now = int(time.time())
            claims = {"iss": oidc_provider.issuer, "sub": "u1", "aud": OP_CLIENT_ID, "exp": now + 300, "iat": now, "nonce": "n1",
                      "email": "a@acme.example", "email_verified": True, **changes}
            claims = {k: v for k, v in claims.items() if v is not None}
            return jwt.encode(claims, key or oidc_provider.key, algorithm="RS256", headers={"kid": "test-key-1"})

        return make

    def validate(self, oidc_provider, token):
        return oidc.id_token_claims(id_token=token, jwks_uri=f"{oidc_provider.issuer}/jwks", issuer=oidc_provider.issuer,
                                    client_id=OP_CLIENT_ID, nonce="n1")

    def test_a_valid_token(self, oidc_provider, forge):
        assert self.validate(oidc_provider, forge())["email"] == "a@acme.example"

    @pytest.mark.parametrize(("changes", "why"), [
        ({"aud": "another-client"}, "audience"),
        ({"aud": [OP_CLIENT_ID, "another-client"]}, "azp"),
        ({"iss": "https://evil.example"}, "issuer"),
        ({"exp": int(time.time()) - 600}, "expired"),
        ({"nonce": "n2"}, "nonce"),
        ({"nonce": None}, "nonce"),
        ({"sub": None}, "sub"),
    ])
    def test_refused_claims(self, oidc_provider, forge, changes, why):
        with pytest.raises(SSOAssertionInvalid) as refused:
            self.validate(oidc_provider, forge(**changes))
        assert why in refused.value.message.lower()

    def test_another_key_or_no_signature(self, oidc_provider, forge):
        other, _ = signing_key()
        with pytest.raises(SSOAssertionInvalid, match="signature"):
            self.validate(oidc_provider, forge(key=other))
        unsigned = jwt.encode({"iss": oidc_provider.issuer, "sub": "u1", "aud": OP_CLIENT_ID}, None, algorithm="none")
        with pytest.raises(SSOAssertionInvalid, match="algorithm"):
            self.validate(oidc_provider, unsigned)
        hmac = jwt.encode({"iss": oidc_provider.issuer, "sub": "u1", "aud": OP_CLIENT_ID}, OP_CLIENT_SECRET * 2, algorithm="HS256")
        with pytest.raises(SSOAssertionInvalid, match="algorithm"):
            self.validate(oidc_provider, hmac)
