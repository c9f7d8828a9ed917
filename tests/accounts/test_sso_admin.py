"""SSO connections in the console: tenancy, no secret shown, changes through the service."""

import pytest
from django.test import Client

from accounts.models import SSOConnection
from accounts.sso.services import sso_connection_create
from common.models import AuditLogEntry
from common.principal import Principal
from conftest import PASSWORD
from organizations.models import Membership

pytestmark = pytest.mark.django_db
SECRET = "console-never-shows-this-4321"


@pytest.fixture
def connection(org):
    principal = Principal(credential="session", organization=org, mode="live", role="admin")
    return sso_connection_create(principal=principal, protocol="oidc", domains=["acme.example"], name="Acme Okta",
                                 oidc={"issuer": "https://login.acme.example", "client_id": "svc", "client_secret": SECRET})


URL = "/admin/accounts/ssoconnection/"


def form(connection, **fields):
    """The change form's POST: the fields, and the (read-only) domains inline's management form."""
    domain = connection.domains.get()
    return {"domains-TOTAL_FORMS": "1", "domains-INITIAL_FORMS": "1", "domains-0-id": str(domain.pk),
            "domains-0-connection": str(connection.pk), **fields}


def test_members_see_their_connections_without_the_secret(staff, org, connection):
    console = staff(org)
    listing = console.get(URL)
    assert listing.status_code == 200 and "Acme Okta" in listing.content.decode()
    page = console.get(f"{URL}{connection.pk}/change/").content.decode()
    assert "•••••4321" in page and SECRET not in page and connection.oidc_client_secret_encrypted not in page
    assert "_compliance-sso.acme.example" in page


def test_another_organization_neither_sees_nor_changes_them(staff, other_org, connection):
    console = staff(other_org)
    assert "Acme Okta" not in console.get(URL).content.decode()
    assert console.get(f"{URL}{connection.pk}/change/").status_code == 302  # Django's "does not exist" redirect
    console.post(f"{URL}{connection.pk}/change/", form(connection, name="Hijacked", status="inactive", default_role="viewer"))
    assert SSOConnection.objects.get(pk=connection.pk).name == "Acme Okta"


def test_an_admin_changes_through_the_service(staff, org, connection):
    console = staff(org)
    response = console.post(f"{URL}{connection.pk}/change/", form(connection, name="Acme Okta", status="active", enforce="on",
                                                                   default_role="l2_investigator"))
    assert response.status_code == 302
    stored = SSOConnection.objects.get(pk=connection.pk)
    assert stored.enforce is True and stored.default_role == "l2_investigator"
    entry = AuditLogEntry.objects.get(action="sso_connection.updated")
    assert entry.after["enforce"] is True and SECRET not in str(entry.after)


def test_a_lower_role_is_refused_and_nothing_changes(staff, org, connection):
    console = staff(org, "l3_officer")
    response = console.post(f"{URL}{connection.pk}/change/", form(connection, name="X", status="inactive", default_role="viewer"),
                            follow=True)
    assert "admin" in response.content.decode()
    assert SSOConnection.objects.get(pk=connection.pk).status == "active"


def test_no_admin_default_role_through_the_console(staff, org, connection):
    console = staff(org)
    console.post(f"{URL}{connection.pk}/change/", form(connection, name="Acme Okta", status="active", default_role="admin"))
    assert SSOConnection.objects.get(pk=connection.pk).default_role == "viewer"


def test_the_console_password_sign_in_is_refused_where_sso_is_enforced(make_user, org, connection):
    """As POST /v1/auth/login answers 403 SSO_REQUIRED: the console's own login page is not a way around it."""
    from django.utils import timezone

    connection.domains.update(verified_at=timezone.now())
    SSOConnection.objects.filter(pk=connection.pk).update(enforce=True)
    person = make_user("person@acme.example")  # a member: no staff flag (console.access)
    Membership.objects.create(organization=org, user=person, role="admin")
    console = Client()
    refused = console.post("/admin/login/?next=/admin/", {"username": "person@acme.example", "password": PASSWORD})
    assert refused.status_code == 200 and "signs in through single sign-on" in refused.content.decode()
    assert "_auth_user_id" not in console.session
    assert console.get("/admin/").status_code == 302

    SSOConnection.objects.filter(pk=connection.pk).update(enforce=False)  # not enforced: the password is fine
    allowed = console.post("/admin/login/?next=/admin/", {"username": "person@acme.example", "password": PASSWORD})
    assert allowed.status_code == 302 and console.get("/admin/").status_code == 200
