"""/v1/sso/connections (org admin, user session), domain verification by DNS TXT against a real DNS
server on loopback, /v1/sso/check, and password sign-in refused where SSO is enforced."""

import pytest

from accounts.models import SSOConnection, SSODomain
from common import crypto
from common.models import AuditLogEntry
from conftest import PASSWORD

pytestmark = pytest.mark.django_db

SECRET = "super-secret-client-value-9876"
IDP_METADATA = """<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.acme.example/saml">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.acme.example/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>"""


def oidc_body(**overrides):
    body = {"protocol": "oidc", "domains": ["acme.example"], "default_role": "l1_analyst",
            "oidc": {"issuer": "https://login.acme.example", "client_id": "svc", "client_secret": SECRET}}
    return {**body, **overrides}


@pytest.fixture
def admin_client(api, org, member):
    _, token = member(org, "admin")
    return api(token)


@pytest.fixture
def connection(admin_client):
    response = admin_client.post("/v1/sso/connections", oidc_body(), format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def publish(txt_server, connection, domain="acme.example"):
    record = next(d for d in connection["domains"] if d["domain"] == domain)["verification"]
    txt_server.records[record["name"]] = ["v=spf1 -all", record["value"]]


class TestCreate:
    def test_anonymous_api_key_and_non_admin_are_refused(self, api, org, key, member):
        assert api().post("/v1/sso/connections", oidc_body(), format="json").status_code == 401
        assert api(key(org)).post("/v1/sso/connections", oidc_body(), format="json").status_code == 403
        _, token = member(org, "l3_officer")
        response = api(token).post("/v1/sso/connections", oidc_body(), format="json")
        assert response.status_code == 403 and response.json()["error"]["code"] == "FORBIDDEN"
        assert not SSOConnection.objects.exists()

    def test_oidc_connection_keeps_the_secret_encrypted_and_never_answers_it(self, admin_client, org):
        response = admin_client.post("/v1/sso/connections", oidc_body(domains=["Acme.Example", "acme-labs.example"]), format="json")
        assert response.status_code == 201, response.json()
        body = response.json()
        assert SECRET not in response.content.decode()
        assert body["oidc"]["client_secret"] == "•••••9876" and body["oidc"]["scopes"] == ["openid", "email", "profile"]
        assert body["oidc"]["redirect_uri"].endswith("/v1/sso/oidc/callback")
        assert body["protocol"] == "oidc" and body["status"] == "active" and body["enforce"] is False
        assert body["default_role"] == "l1_analyst" and body["saml"] is None
        assert body["login_url"].endswith(f"/v1/sso/oidc/login?connection_id={body['id']}")
        assert [d["domain"] for d in body["domains"]] == ["acme-labs.example", "acme.example"]
        first = body["domains"][1]
        assert first["verified"] is False and first["verification"]["type"] == "dns_txt"
        assert first["verification"]["name"] == "_compliance-sso.acme.example"
        assert first["verification"]["value"].startswith("compliance-sso-verification=")
        stored = SSOConnection.objects.get(pk=body["id"])
        assert stored.organization == org and SECRET not in stored.oidc_client_secret_encrypted
        assert crypto.decrypt(stored.oidc_client_secret_encrypted) == SECRET
        entry = AuditLogEntry.objects.get(action="sso_connection.created", object_id=body["id"])
        assert entry.organization_id == org.pk and SECRET not in str(entry.after)
        assert entry.after["domains"] == ["acme-labs.example", "acme.example"]

    def test_saml_connection_reads_the_entity_id_from_the_metadata(self, admin_client):
        response = admin_client.post("/v1/sso/connections", {"protocol": "saml", "domains": ["acme.example"],
                                                             "saml": {"idp_metadata_xml": IDP_METADATA}}, format="json")
        assert response.status_code == 201, response.json()
        saml = response.json()["saml"]
        assert saml["idp_entity_id"] == "https://idp.acme.example/saml" and saml["idp_metadata_configured"] is True
        assert response.json()["oidc"] is None and "/v1/sso/saml/acs" in saml["acs_url"]

    @pytest.mark.parametrize(("body", "field"), [
        ({"protocol": "oidc", "domains": ["acme.example"]}, "oidc"),
        (oidc_body(protocol="ldap"), "protocol"),
        (oidc_body(domains=[]), "domains"),
        (oidc_body(domains=["localhost"]), "domains.0"),
        (oidc_body(domains=["acme.example", "ACME.example"]), "domains"),
        (oidc_body(domains=["-bad-.example"]), "domains.0"),
        (oidc_body(default_role="admin"), "default_role"),
        (oidc_body(oidc={"issuer": "http://login.acme.example", "client_id": "svc", "client_secret": SECRET}), "oidc.issuer"),
        (oidc_body(oidc={"issuer": "not a url", "client_id": "svc", "client_secret": SECRET}), "oidc.issuer"),
        (oidc_body(oidc={"issuer": "https://login.acme.example", "client_id": "svc"}), "oidc.client_secret"),
        (oidc_body(oidc={"issuer": "https://l.example", "client_id": "svc", "client_secret": SECRET, "scopes": ["email"]}), "oidc.scopes"),
        (oidc_body(saml={"idp_metadata_xml": IDP_METADATA}), "saml"),
        ({"protocol": "saml", "domains": ["acme.example"], "saml": {"idp_metadata_xml": "<not xml"}}, "saml.idp_metadata_xml"),
        ({"protocol": "saml", "domains": ["acme.example"], "saml": {}}, "saml.idp_metadata_xml"),
        (oidc_body(is_admin=True), "is_admin"),
    ])
    def test_bad_input_is_a_422_naming_the_field(self, admin_client, body, field):
        response = admin_client.post("/v1/sso/connections", body, format="json")
        assert response.status_code == 422, response.json()
        error = response.json()["error"]
        assert error["code"] == "VALIDATION_ERROR" and field in {d["field"] for d in error["details"]}, error
        assert not SSOConnection.objects.exists()


class TestReadChangeDelete:
    def test_list_and_get(self, admin_client, connection):
        assert [c["id"] for c in admin_client.get("/v1/sso/connections").json()] == [connection["id"]]
        response = admin_client.get(f"/v1/sso/connections/{connection['id']}")
        assert response.status_code == 200 and response.json() == connection

    def test_another_organizations_connection_is_not_found(self, api, other_org, member, connection):
        _, token = member(other_org, "admin")
        client = api(token)
        for method in ("get", "patch", "delete"):
            response = getattr(client, method)(f"/v1/sso/connections/{connection['id']}", {}, format="json")
            assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND", method
        response = client.post(f"/v1/sso/connections/{connection['id']}/verify-domain", {"domain": "acme.example"}, format="json")
        assert response.status_code == 404
        assert SSOConnection.objects.filter(pk=connection["id"]).exists()

    def test_patch_changes_settings_secret_and_domains(self, admin_client, connection, txt_server):
        publish(txt_server, connection)
        admin_client.post(f"/v1/sso/connections/{connection['id']}/verify-domain", {"domain": "acme.example"}, format="json")
        response = admin_client.patch(f"/v1/sso/connections/{connection['id']}", {
            "enforce": True, "name": "Okta", "domains": ["acme.example", "acme.dev"],
            "oidc": {"client_secret": "rotated-secret-1111"}}, format="json")
        assert response.status_code == 200, response.json()
        body = response.json()
        assert body["enforce"] is True and body["name"] == "Okta" and body["oidc"]["client_secret"] == "•••••1111"
        assert body["oidc"]["client_id"] == "svc"
        assert {d["domain"]: d["verified"] for d in body["domains"]} == {"acme.dev": False, "acme.example": True}
        stored = SSOConnection.objects.get(pk=connection["id"])
        assert crypto.decrypt(stored.oidc_client_secret_encrypted) == "rotated-secret-1111"
        entry = AuditLogEntry.objects.get(action="sso_connection.updated")
        assert entry.before["enforce"] is False and entry.after["enforce"] is True
        assert "rotated-secret-1111" not in str(entry.after) and entry.after["oidc_client_secret_last4"] == "1111"

    @pytest.mark.parametrize(("body", "field"), [
        ({"protocol": "saml"}, "protocol"),
        ({"saml": {"idp_metadata_xml": IDP_METADATA}}, "saml"),
        ({"oidc": {"issuer": "ftp://x.example"}}, "oidc.issuer"),
        ({"domains": []}, "domains"),
        ({"status": "paused"}, "status"),
        ({"enforce": "yes"}, "enforce"),
        ({"enforce": 1}, "enforce"),
    ])
    def test_bad_patch_changes_nothing(self, admin_client, connection, body, field):
        response = admin_client.patch(f"/v1/sso/connections/{connection['id']}", body, format="json")
        assert response.status_code == 422, response.json()
        assert field in {d["field"] for d in response.json()["error"]["details"]}
        assert admin_client.get(f"/v1/sso/connections/{connection['id']}").json() == connection

    def test_delete(self, admin_client, connection):
        response = admin_client.delete(f"/v1/sso/connections/{connection['id']}")
        assert response.status_code == 204
        assert not SSOConnection.objects.exists() and not SSODomain.objects.exists()
        assert AuditLogEntry.objects.filter(action="sso_connection.deleted", object_id=connection["id"]).exists()
        assert admin_client.get(f"/v1/sso/connections/{connection['id']}").status_code == 404


class TestVerifyDomain:
    def verify(self, client, connection, domain="acme.example"):
        return client.post(f"/v1/sso/connections/{connection['id']}/verify-domain", {"domain": domain}, format="json")

    def test_without_the_record_the_domain_stays_unverified(self, admin_client, connection, txt_server):
        txt_server.records["_compliance-sso.acme.example"] = ["compliance-sso-verification=someone-elses-token"]
        response = self.verify(admin_client, connection)
        assert response.status_code == 422 and response.json()["error"]["code"] == "DOMAIN_NOT_VERIFIED"
        assert "_compliance-sso.acme.example" in response.json()["error"]["message"]
        assert "_compliance-sso.acme.example" in txt_server.queries
        assert not SSODomain.objects.filter(verified_at__isnull=False).exists()

    def test_the_published_record_verifies_it_once(self, admin_client, connection, txt_server, org):
        publish(txt_server, connection)
        response = self.verify(admin_client, connection)
        assert response.status_code == 200, response.json()
        assert response.json()["domain"] == "acme.example" and response.json()["verified"] is True
        assert SSODomain.objects.get(domain="acme.example").verified_at is not None
        again = self.verify(admin_client, connection)
        assert again.status_code == 200 and again.json()["verified_at"] == response.json()["verified_at"]
        assert AuditLogEntry.objects.filter(action="sso_domain.verified", organization_id=org.pk).count() == 1

    def test_a_domain_verified_by_one_organization_cannot_be_verified_by_another(self, api, admin_client, connection, txt_server,
                                                                                 other_org, member):
        publish(txt_server, connection)
        assert self.verify(admin_client, connection).status_code == 200
        _, token = member(other_org, "admin")
        rival = api(token)
        theirs = rival.post("/v1/sso/connections", oidc_body(), format="json").json()
        publish(txt_server, theirs)  # even with their own record published
        response = self.verify(rival, theirs)
        assert response.status_code == 409 and response.json()["error"]["code"] == "CONFLICT"
        assert SSODomain.objects.get(connection_id=theirs["id"]).verified_at is None

    def test_a_domain_not_of_the_connection_and_a_bad_domain(self, admin_client, connection, txt_server):
        response = self.verify(admin_client, connection, "other.example")
        assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "domain"
        assert self.verify(admin_client, connection, "not a domain").status_code == 422

    def test_an_unreachable_name_server_is_a_clear_422(self, admin_client, connection, txt_server, settings):
        txt_server.close()
        settings.SSO_DNS_TIMEOUT_SECONDS = 1
        response = self.verify(admin_client, connection)
        assert response.status_code == 422 and "failed" in response.json()["error"]["message"]

    def test_non_admin_is_refused(self, api, org, member, connection, txt_server):
        _, token = member(org, "l3_officer")
        assert self.verify(api(token), connection).status_code == 403


@pytest.fixture
def enforced(admin_client, connection, txt_server):
    publish(txt_server, connection)
    assert admin_client.post(f"/v1/sso/connections/{connection['id']}/verify-domain", {"domain": "acme.example"},
                             format="json").status_code == 200
    admin_client.patch(f"/v1/sso/connections/{connection['id']}", {"enforce": True}, format="json")
    return connection


class TestCheck:
    def check(self, api, email):
        response = api().post("/v1/sso/check", {"email": email}, format="json")
        assert response.status_code == 200, response.json()
        return response.json()

    def test_enforced_verified_domain_requires_sso(self, api, enforced):
        body = self.check(api, "Someone@ACME.example")
        assert body == {"sso_required": True, "protocol": "oidc", "connection_id": enforced["id"],
                        "login_url": enforced["login_url"]}

    def test_other_domains_say_nothing_more(self, api, enforced, admin_client):
        nothing = {"sso_required": False, "protocol": None, "connection_id": None, "login_url": None}
        assert self.check(api, "someone@globex.example") == nothing
        admin_client.patch(f"/v1/sso/connections/{enforced['id']}", {"domains": ["acme.example", "acme.dev"]}, format="json")
        assert self.check(api, "x@acme.dev") == nothing  # listed, enforced, not verified
        admin_client.patch(f"/v1/sso/connections/{enforced['id']}", {"status": "inactive"}, format="json")
        assert self.check(api, "x@acme.example") == nothing

    def test_a_verified_domain_that_does_not_enforce(self, api, admin_client, enforced):
        admin_client.patch(f"/v1/sso/connections/{enforced['id']}", {"enforce": False}, format="json")
        assert self.check(api, "x@acme.example")["sso_required"] is False

    def test_bad_input(self, api):
        response = api().post("/v1/sso/check", {"email": "nope"}, format="json")
        assert response.status_code == 422


class TestPasswordSignInWhereSSOIsEnforced:
    def test_refused_with_the_way_to_sign_in(self, api, enforced, make_user):
        make_user("worker@acme.example")
        response = api().post("/v1/auth/login", {"email": "worker@acme.example", "password": PASSWORD}, format="json")
        assert response.status_code == 403 and response.json()["error"]["code"] == "SSO_REQUIRED"
        assert enforced["id"] in response.json()["error"]["message"]

    def test_wrong_password_still_says_only_that(self, api, enforced, make_user):
        make_user("worker@acme.example")
        response = api().post("/v1/auth/login", {"email": "worker@acme.example", "password": "wrong-Password-1"}, format="json")
        assert response.status_code == 401

    def test_the_unicode_spelling_of_an_idn_domain_is_the_same_domain(self, api, admin_client, enforced, make_user, txt_server):
        """A connection stores an IDN domain in punycode; an address may spell it in Unicode (the same mailboxes)."""
        updated = admin_client.patch(f"/v1/sso/connections/{enforced['id']}", {"domains": ["acme.example", "bücher.example"]},
                                     format="json").json()
        publish(txt_server, updated, "xn--bcher-kva.example")
        assert admin_client.post(f"/v1/sso/connections/{enforced['id']}/verify-domain", {"domain": "bücher.example"},
                                 format="json").status_code == 200
        make_user("worker@bücher.example")
        response = api().post("/v1/auth/login", {"email": "worker@BÜCHER.example", "password": PASSWORD}, format="json")
        assert response.status_code == 403 and response.json()["error"]["code"] == "SSO_REQUIRED"
        assert api().post("/v1/sso/check", {"email": "worker@bücher.example"}, format="json").json()["sso_required"] is True

    def test_other_domains_sign_in_with_a_password(self, api, enforced, make_user):
        make_user("someone@globex.example")
        response = api().post("/v1/auth/login", {"email": "someone@globex.example", "password": PASSWORD}, format="json")
        assert response.status_code == 200


class TestSessionsOpenedBeforeEnforcement:
    """A session opened with a password before the domain enforced SSO ends at its next request, as
    that sign-in would be refused now; a session opened through SSO goes on."""

    @pytest.fixture
    def verified(self, admin_client, connection, txt_server):
        publish(txt_server, connection)
        assert admin_client.post(f"/v1/sso/connections/{connection['id']}/verify-domain", {"domain": "acme.example"},
                                 format="json").status_code == 200
        return connection

    def test_a_password_token_ends_an_sso_token_goes_on(self, api, org, admin_client, verified, make_user):
        from accounts.models import SessionToken
        from accounts.services import session_issue
        from organizations.models import Membership

        worker = make_user("worker@acme.example")
        Membership.objects.create(organization=org, user=worker, role="l1_analyst")
        login = {"email": "worker@acme.example", "password": PASSWORD}
        by_password = api().post("/v1/auth/login", login, format="json").json()["session_token"]
        by_sso = session_issue(user=worker, method="sso_oidc").token
        assert api(by_password).get("/v1/developer/whoami").status_code == 200

        admin_client.patch(f"/v1/sso/connections/{verified['id']}", {"enforce": True}, format="json")
        refused = api(by_password).get("/v1/developer/whoami")
        assert refused.status_code == 401 and "acme.example signs in through single sign-on now" in refused.json()["error"]["message"]
        assert api(by_sso).get("/v1/developer/whoami").status_code == 200
        assert set(SessionToken.objects.filter(user=worker).values_list("method", flat=True)) == {"password", "sso_oidc"}

        # As the password sign-in: refused while the domain enforces SSO, taken again once it does not.
        admin_client.patch(f"/v1/sso/connections/{verified['id']}", {"enforce": False}, format="json")
        assert api(by_password).get("/v1/developer/whoami").status_code == 200

    def test_the_platform_operator_and_other_domains_keep_their_sessions(self, api, org, admin_client, verified, make_user):
        from organizations.models import Membership

        operator = make_user("root@acme.example")
        operator.is_superuser = True
        operator.save()
        Membership.objects.create(organization=org, user=operator, role="admin")
        token = api().post("/v1/auth/login", {"email": "root@acme.example", "password": PASSWORD}, format="json").json()["session_token"]
        admin_client.patch(f"/v1/sso/connections/{verified['id']}", {"enforce": True}, format="json")
        assert api(token).get("/v1/developer/whoami").status_code == 200
        assert admin_client.get("/v1/developer/whoami").status_code == 200  # user1@example.com: not the domain

    def test_a_console_session_ends_and_asks_for_a_sign_in(self, org, admin_client, verified, make_user):
        from django.test import Client

        from organizations.models import Membership

        person = make_user("officer@acme.example")  # a member: no staff flag (docs/console.md)
        Membership.objects.create(organization=org, user=person, role="admin")
        console = Client()
        assert console.post("/admin/login/?next=/admin/", {"username": "officer@acme.example", "password": PASSWORD}).status_code == 302
        assert console.get("/admin/").status_code == 200

        admin_client.patch(f"/v1/sso/connections/{verified['id']}", {"enforce": True}, format="json")
        ended = console.get("/admin/")
        assert ended.status_code == 302 and ended["Location"].startswith("/admin/login/")
        assert "_auth_user_id" not in console.session
        assert AuditLogEntry.objects.filter(action="user.logged_out", actor_id=str(person.pk), object_id="cookie").exists()


def test_tokens_issued_before_the_method_was_kept_take_it_from_their_audit_entry(make_user):
    import importlib

    from django.apps import apps

    from accounts.models import SessionToken
    from accounts.services import session_issue

    person = make_user("old@acme.example")
    session_issue(user=person, method="sso_saml", details={"connection_id": "x"})
    session_issue(user=person)
    SessionToken.objects.update(method="password")  # as the migration finds tokens issued before it
    importlib.import_module("accounts.migrations.0004_session_token_method").methods_from_the_audit_log(apps, None)
    assert sorted(SessionToken.objects.values_list("method", flat=True)) == ["password", "sso_saml"]
