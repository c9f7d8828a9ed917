"""/v1/auth: register, verify, resend, forgot/reset, login, logout, me."""

import re
import threading

import pytest
from django.core import mail
from django.db import connection

from accounts.models import SessionToken, User
from common.models import AuditLogEntry, OutboundEmail
from conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def send(django_capture_on_commit_callbacks):
    """send(callable) runs it and then the on-commit hooks (the e-mail tasks run eagerly)."""

    def run(call):
        with django_capture_on_commit_callbacks(execute=True):
            return call()

    return run


def token_in(message) -> str:
    return re.search(r"token=([^\s&]+)", message.body).group(1).replace("%3A", ":")


def register(api, send, email="new@example.com", password=PASSWORD):
    return send(lambda: api().post("/v1/auth/register", {"email": email, "password": password}, format="json"))


class TestRegister:
    def test_creates_an_unverified_user_and_mails_a_link(self, api, send):
        response = register(api, send, email="New@Example.com")
        assert response.status_code == 201, response.json()
        body = response.json()
        assert body["email"] == "new@example.com" and body["email_verified"] is False
        user = User.objects.get(email="new@example.com")
        assert user.check_password(PASSWORD) and user.email_verified_at is None
        assert len(mail.outbox) == 1 and "/accounts/verify-email/?token=" in mail.outbox[0].body
        assert OutboundEmail.objects.get(kind="verify_email").status == "sent"
        assert AuditLogEntry.objects.filter(action="user.registered", object_id=str(user.pk)).exists()

    @pytest.mark.parametrize("password", ["short1A!", "password1234", "12345678901234", "alllowercaseletters"])
    def test_weak_passwords_are_refused(self, api, send, password):
        response = register(api, send, password=password)
        assert response.status_code == 422
        assert response.json()["error"]["details"][0]["field"] == "password"
        assert not User.objects.exists()

    def test_duplicate_email_is_a_conflict(self, api, send, make_user):
        make_user("taken@example.com")
        response = register(api, send, email="TAKEN@example.com")
        assert response.status_code == 409 and response.json()["error"]["code"] == "CONFLICT"
        assert User.objects.filter(email="taken@example.com").count() == 1

    def test_bad_input(self, api):
        response = api().post("/v1/auth/register", {"email": "not-an-email", "is_staff": True}, format="json")
        assert response.status_code == 422
        fields = {d["field"] for d in response.json()["error"]["details"]}
        assert fields == {"is_staff", "email", "password"}  # the unknown field with the declared fields' own errors
        assert not User.objects.exists()


class TestVerifyEmail:
    def test_link_token_verifies_once_and_stays_verified(self, api, send):
        register(api, send)
        token = token_in(mail.outbox[0])
        response = api().post(f"/v1/auth/verify-email?token={token}")
        assert response.status_code == 200 and response.json()["email_verified"] is True
        assert User.objects.get(email="new@example.com").email_verified_at is not None
        again = api().post(f"/v1/auth/verify-email?token={token}")
        assert again.status_code == 200

    @pytest.mark.parametrize("query", ["", "?token=", "?token=garbage", "?token=eyJ1IjoiMSJ9:abc:def"])
    def test_bad_tokens(self, api, send, query):
        register(api, send)
        response = api().post(f"/v1/auth/verify-email{query}")
        assert response.status_code == 422
        assert response.json()["error"]["details"][0]["field"] == "token"
        assert User.objects.get(email="new@example.com").email_verified_at is None

    def test_resend_needs_the_right_password(self, api, send):
        register(api, send)
        wrong = api().post("/v1/auth/resend-verification", {"email": "new@example.com", "password": "nope"}, format="json")
        assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "INVALID_CREDENTIALS"
        right = send(lambda: api().post("/v1/auth/resend-verification",
                                        {"email": "new@example.com", "password": PASSWORD}, format="json"))
        assert right.status_code == 200
        assert len(mail.outbox) == 2

    def test_resend_for_a_verified_address_is_a_conflict(self, api, make_user):
        make_user("done@example.com")
        response = api().post("/v1/auth/resend-verification", {"email": "done@example.com", "password": PASSWORD}, format="json")
        assert response.status_code == 409


class TestLogin:
    def test_success_returns_token_and_sets_cookie(self, api, make_user):
        user = make_user("a@example.com")
        client = api()
        response = client.post("/v1/auth/login", {"email": "A@example.com", "password": PASSWORD}, format="json")
        body = response.json()
        assert response.status_code == 200, body
        assert body["user"]["id"] == str(user.pk) and body["session_token"].startswith("st_")
        assert body["expires_at"]
        assert "sessionid" in response.cookies
        assert SessionToken.objects.filter(user=user, revoked_at__isnull=True).count() == 1
        me = api(body["session_token"]).get("/v1/auth/me")
        assert me.status_code == 200 and me.json()["user"]["email"] == "a@example.com"

    def test_wrong_password_and_unknown_user_look_the_same(self, api, make_user):
        make_user("a@example.com")
        wrong = api().post("/v1/auth/login", {"email": "a@example.com", "password": "Wrong-pass-123"}, format="json")
        unknown = api().post("/v1/auth/login", {"email": "b@example.com", "password": "Wrong-pass-123"}, format="json")
        assert wrong.status_code == unknown.status_code == 401
        assert wrong.json() == unknown.json()
        assert wrong.json()["error"]["code"] == "INVALID_CREDENTIALS"
        assert not SessionToken.objects.exists()

    def test_unverified_email_is_refused(self, api, make_user):
        make_user("u@example.com", verified=False)
        response = api().post("/v1/auth/login", {"email": "u@example.com", "password": PASSWORD}, format="json")
        assert response.status_code == 403 and response.json()["error"]["code"] == "EMAIL_NOT_VERIFIED"
        assert not SessionToken.objects.exists()

    def test_repeated_failures_are_throttled_even_with_the_right_password(self, api, make_user, settings):
        make_user("a@example.com")
        for _ in range(settings.LOGIN_FAILURE_LIMIT):
            api().post("/v1/auth/login", {"email": "a@example.com", "password": "Wrong-pass-123"}, format="json")
        response = api().post("/v1/auth/login", {"email": "a@example.com", "password": PASSWORD}, format="json")
        assert response.status_code == 429
        assert response.json()["error"]["code"] == "RATE_LIMIT_EXCEEDED"
        assert int(response["X-RateLimit-Remaining"]) == 0 and int(response["X-RateLimit-Reset"]) > 0
        assert int(response["Retry-After"]) >= 1
        assert "Too many failed sign-in attempts; retry in " in response.json()["error"]["message"]
        assert not SessionToken.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_guesses_sent_at_the_same_moment_are_throttled_too(api, make_user, settings):
    """Sixteen wrong passwords for one address sent at once: only LOGIN_FAILURE_LIMIT of them are
    tried, the rest are 429, and the right password is refused after. Before, each request checked
    the counter before any had recorded its failure: all sixteen were tried (16 × 401)."""
    make_user("a@example.com")
    count = 16
    barrier, codes = threading.Barrier(count), []

    def guess():
        try:
            barrier.wait()
            codes.append(api().post("/v1/auth/login", {"email": "a@example.com", "password": "Wrong-pass-123"},
                                    format="json").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=guess) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [401] * settings.LOGIN_FAILURE_LIMIT + [429] * (count - settings.LOGIN_FAILURE_LIMIT)
    right = api().post("/v1/auth/login", {"email": "a@example.com", "password": PASSWORD}, format="json")
    assert right.status_code == 429 and right.json()["error"]["code"] == "RATE_LIMIT_EXCEEDED"
    assert not SessionToken.objects.exists()


def test_a_success_clears_the_address_counter(api, make_user, settings):
    make_user("a@example.com")
    for _ in range(3):
        for _ in range(settings.LOGIN_FAILURE_LIMIT - 1):
            assert api().post("/v1/auth/login", {"email": "a@example.com", "password": "Wrong-pass-123"},
                              format="json").status_code == 401
        assert api().post("/v1/auth/login", {"email": "a@example.com", "password": PASSWORD}, format="json").status_code == 200
    assert SessionToken.objects.count() == 3


class TestLogout:
    def test_revokes_the_token(self, api, member, org):
        user, token = member(org)
        client = api(token)
        assert client.post("/v1/auth/logout").status_code == 200
        assert SessionToken.objects.get(user=user).revoked_at is not None
        after = client.get("/v1/auth/me")
        assert after.status_code == 401 and after.json()["error"]["code"] == "UNAUTHENTICATED"

    def test_needs_a_session(self, api, org, key):
        assert api().post("/v1/auth/logout").status_code == 401
        response = api(key(org)).post("/v1/auth/logout")
        assert response.status_code == 403 and response.json()["error"]["code"] == "FORBIDDEN"


class TestPasswordReset:
    def test_forgot_is_always_200_and_mails_only_real_accounts(self, api, send, make_user):
        make_user("a@example.com")
        known = send(lambda: api().post("/v1/auth/forgot-password", {"email": "a@example.com"}, format="json"))
        unknown = send(lambda: api().post("/v1/auth/forgot-password", {"email": "zz@example.com"}, format="json"))
        assert known.status_code == unknown.status_code == 200
        assert known.json() == unknown.json()
        assert [m.to for m in mail.outbox] == [["a@example.com"]]

    def test_forgot_mails_an_address_at_most_three_times_an_hour(self, api, send, make_user, settings):
        """Anyone may ask for a reset of any address: before, every request wrote an e-mail row and
        sent a link (a mailbox filled at will). The fourth request of the hour still answers the same
        200, writes no row and sends nothing, for a known address as for an unknown one (so the
        answer tells nothing); another address is counted apart."""
        make_user("a@example.com")
        for address in ("a@example.com", "zz@example.com"):
            answers = [send(lambda address=address: api().post("/v1/auth/forgot-password", {"email": address}, format="json"))
                       for _ in range(settings.PASSWORD_RESET_EMAIL_LIMIT + 2)]
            assert {response.status_code for response in answers} == {200}
            assert len({str(response.json()) for response in answers}) == 1
            assert OutboundEmail.objects.filter(kind="password_reset", to=address).count() == settings.PASSWORD_RESET_EMAIL_LIMIT
        assert [m.to for m in mail.outbox] == [["a@example.com"]] * settings.PASSWORD_RESET_EMAIL_LIMIT
        other = send(lambda: api().post("/v1/auth/forgot-password", {"email": "A2@example.com"}, format="json"))
        assert other.status_code == 200 and OutboundEmail.objects.filter(kind="password_reset", to="a2@example.com").count() == 1

    def test_reset_is_single_use_and_revokes_sessions(self, api, send, member, org):
        user, token = member(org)
        send(lambda: api().post("/v1/auth/forgot-password", {"email": user.email}, format="json"))
        reset_token = token_in(mail.outbox[0])
        response = api().post("/v1/auth/reset-password", {"token": reset_token, "password": "New-Password-42"}, format="json")
        assert response.status_code == 200, response.json()
        user.refresh_from_db()
        assert user.check_password("New-Password-42")
        assert api(token).get("/v1/auth/me").status_code == 401
        again = api().post("/v1/auth/reset-password", {"token": reset_token, "password": "Other-Password-43"}, format="json")
        assert again.status_code == 422
        user.refresh_from_db()
        assert user.check_password("New-Password-42")

    def test_weak_new_password_keeps_the_old_one(self, api, send, make_user):
        user = make_user("a@example.com")
        send(lambda: api().post("/v1/auth/forgot-password", {"email": user.email}, format="json"))
        response = api().post("/v1/auth/reset-password", {"token": token_in(mail.outbox[0]), "password": "abc"}, format="json")
        assert response.status_code == 422
        user.refresh_from_db()
        assert user.check_password(PASSWORD)


class TestMe:
    def test_shows_current_organization_and_memberships(self, api, member, org, other_org):
        user, token = member(org, "l2_investigator")
        body = api(token).get("/v1/auth/me").json()
        assert body["organization"]["organization_slug"] == "acme"
        assert body["organization"]["role"] == "l2_investigator"
        assert body["mode"] == "live"
        assert [m["organization_slug"] for m in body["memberships"]] == ["acme"]

    def test_patch_changes_only_safe_fields(self, api, member, org):
        user, token = member(org)
        ok = api(token).patch("/v1/auth/me", {"first_name": "Ada", "job_title": "BSA officer"}, format="json")
        assert ok.status_code == 200 and ok.json()["first_name"] == "Ada"
        refused = api(token).patch("/v1/auth/me", {"email": "evil@example.com", "is_staff": True}, format="json")
        assert refused.status_code == 422
        assert {d["field"] for d in refused.json()["error"]["details"]} == {"email", "is_staff"}
        user.refresh_from_db()
        assert (user.first_name, user.job_title, user.email, user.is_staff) == ("Ada", "BSA officer", user.email, False)
        assert AuditLogEntry.objects.filter(action="user.profile_updated", object_id=str(user.pk)).count() == 1

    def test_anonymous_and_api_keys_are_refused(self, api, org, key):
        assert api().get("/v1/auth/me").status_code == 401
        assert api(key(org)).get("/v1/auth/me").status_code == 403

    def test_user_without_organization_can_read_me(self, api, make_user):
        from accounts.services import session_login

        user = make_user("lonely@example.com")
        token = session_login(email=user.email, password=PASSWORD).token
        body = api(token).get("/v1/auth/me").json()
        assert body["organization"] is None and body["memberships"] == []
