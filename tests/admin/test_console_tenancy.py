"""The console's tenancy: a staff member of one organization (Globex) never sees, opens or changes
another organization's (Acme's) records, and changes their own organization only through the
service (admin role, audit entry), as PATCH /v1/organizations/me does."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from accounts.services import session_login
from common.models import AuditLogEntry, OutboundEmail
from compliance.models import OnchainStatusUpdate
from conftest import PASSWORD
from onboarding.models import ComplianceCheck, Entity, ScreeningHit
from organizations.models import ApiKey, Invitation, Membership
from organizations.services import api_key_issue
from webhooks.models import Delivery, Event, WebhookEndpoint

pytestmark = pytest.mark.django_db



def tenant_records(api, key, organization, name: str) -> dict:
    """One of each console record for `organization`, every one carrying `name` where it shows."""
    officer = api(key(organization, role="admin"))
    response = officer.post("/v1/onboarding/entities", {
        "legal_name": f"{name} Trading Ltd", "entity_type": "business", "jurisdiction": "US",
        "wallets": [{"chain_id": 1, "address": f"0x{abs(hash(name)) % 16 ** 40:040x}"}]}, format="json")
    assert response.status_code == 201, response.json()
    entity = Entity.objects.get(pk=response.json()["id"])
    tenant = {"organization": organization, "mode": entity.mode}
    check = ComplianceCheck.objects.create(**tenant, entity=entity, check_type="sanctions", result="fail",
                                           provider=f"{name.lower()}-provider", summary=f"{name} check summary")
    hit = ScreeningHit.objects.create(**tenant, check_run=check, entity=entity, subject_type="entity", subject_key="entity",
                                      subject_value=f"{name} Trading Ltd", source="ofac", entry_uid="1", entry_version_hash="h",
                                      primary_name=f"{name.upper()} LISTED PERSON", matched_name="x", score=0.99, outcome="match")
    created = officer.post("/v1/developer/webhook-endpoints", {
        "url": f"https://hooks.{name.lower()}.example/in", "event_types": ["alert.created"]}, format="json")
    assert created.status_code == 201, created.json()
    endpoint = WebhookEndpoint.objects.get(organization=organization)
    event = Event.objects.create(**tenant, public_id=f"evt_{name.lower()}", type="alert.created", data={"name": name})
    delivery = Delivery.objects.create(**tenant, event=event, endpoint=endpoint, status="failed", last_error=f"{name} receiver down")
    invitation = Invitation.objects.create(organization=organization, email=f"invitee@{name.lower()}.example", role="viewer",
                                           expires_at=timezone.now() + timedelta(days=7))
    api_key = ApiKey.objects.get(pk=api_key_issue(organization=organization, mode="test", name=f"{name} console key").api_key.pk)
    wallet = entity.wallets.get()
    onchain = OnchainStatusUpdate.objects.create(**tenant, wallet=wallet, entity=entity, chain_id=1, address=wallet.address,
                                                 flagged=True, reason=f"{name} flagged reason")
    session_login(email=f"admin@{organization.slug}.example", password=PASSWORD)
    return {"entity": entity, "check": check, "hit": hit, "endpoint": endpoint, "event": event, "delivery": delivery,
            "invitation": invitation, "api_key": api_key, "onchain": onchain,
            "audit": AuditLogEntry.objects.filter(organization=organization, object_id=str(entity.pk)).first(),
            "membership": Membership.objects.get(organization=organization, user__email=f"admin@{organization.slug}.example")}


@pytest.fixture
def acme(api, key, org):
    return tenant_records(api, key, org, "Acme")


@pytest.fixture
def globex(api, key, other_org):
    return tenant_records(api, key, other_org, "Globex")


def page(console, url) -> str:
    response = console.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def hidden(console, url) -> bool:
    """Another tenant's record page: not found (Django's admin redirects to the index with a message)."""
    response = console.get(url)
    return response.status_code == 404 or (response.status_code == 302 and response.url.rstrip("/").endswith("/admin"))


# Each list page, with the text of the one org's row on it ({} is the organization's name).
LISTS = {
    "/admin/onboarding/screeninghit/": "{NAME} LISTED PERSON",
    "/admin/onboarding/compliancecheck/": "{name} Trading Ltd",
    "/admin/webhooks/webhookendpoint/": "hooks.{slug}.example",
    "/admin/webhooks/delivery/": "hooks.{slug}.example",
    "/admin/webhooks/event/": "evt_{slug}",
    "/admin/organizations/membership/": "admin@{slug}.example",
    "/admin/organizations/invitation/": "invitee@{slug}.example",
    "/admin/organizations/apikey/": "{name} console key",
    "/admin/organizations/organization/": "/organization/{pk}/change/",
    "/admin/compliance/onchainstatusupdate/": "{name} Trading Ltd",
    "/admin/accounts/user/": "admin@{slug}.example",
}


def marker(template: str, org) -> str:
    return template.format(name=org.name, NAME=org.name.upper(), slug=org.slug, pk=org.pk)


class TestListsShowOnlyTheMembersOrganizations:
    @pytest.mark.parametrize("url", list(LISTS))
    def test_a_list_page(self, staff, admin_client, org, other_org, acme, globex, url):
        body = page(staff(other_org), url)
        assert marker(LISTS[url], org) not in body, url
        assert marker(LISTS[url], other_org) in body, url
        everything = page(admin_client, url)  # the platform operator's list has every organization's
        assert marker(LISTS[url], org) in everything and marker(LISTS[url], other_org) in everything, url

    def test_a_filter_by_another_organization_shows_nothing_of_it(self, staff, admin_client, org, acme, other_org, globex):
        console = staff(other_org)
        body = page(console, f"/admin/onboarding/screeninghit/?organization__id__exact={org.pk}")
        assert "ACME LISTED PERSON" not in body and "Acme Trading Ltd" not in body
        assert "GLOBEX LISTED PERSON" in page(console, f"/admin/onboarding/screeninghit/?organization__id__exact={other_org.pk}")
        filtered = page(admin_client, f"/admin/onboarding/entity/?organization__id__exact={other_org.pk}")
        assert "Globex Trading Ltd" in filtered and "Acme Trading Ltd" not in filtered

    def test_the_audit_log(self, staff, org, other_org, acme, globex):
        body = page(staff(other_org), "/admin/common/auditlogentry/")
        assert str(acme["entity"].pk) not in body and str(globex["entity"].pk) in body
        assert "Acme (acme)" not in body

    def test_platform_entries_of_the_audit_log_are_the_operators(self, staff, other_org, admin_client, globex):
        platform = AuditLogEntry.objects.create(actor_type="system", action="platform.checked", object_type="platform",
                                                object_id="platform-object-7")
        assert "platform-object-7" not in page(staff(other_org), "/admin/common/auditlogentry/")
        assert "platform-object-7" in page(admin_client, "/admin/common/auditlogentry/")
        assert hidden(staff(other_org, email="second@globex.example"), f"/admin/common/auditlogentry/{platform.pk}/change/")

    def test_the_audit_log_is_the_admins(self, make_user, other_org, globex):
        """The audit log is in the System group (console.groups): a member below admin, staff flag or not,
        is refused it; an admin of the organization reads it (console.access, not a hand-given permission)."""
        for role, allowed in (("l3_officer", False), ("admin", True)):
            user = make_user(f"plain.{role}@globex.example")
            Membership.objects.create(organization=other_org, user=user, role=role)
            console = Client()
            console.force_login(user)
            assert (console.get("/admin/common/auditlogentry/").status_code == 200) is allowed, role
            assert (console.get(f"/admin/common/auditlogentry/{globex['audit'].pk}/change/").status_code == 200) is allowed, role

    def test_outbound_emails_have_no_organization_so_only_the_operator_sees_them(self, staff, other_org, admin_client):
        OutboundEmail.objects.create(kind="invitation", to="someone@acme.example")
        assert staff(other_org).get("/admin/common/outboundemail/").status_code == 403
        assert "someone@acme.example" in page(admin_client, "/admin/common/outboundemail/")

    def test_session_tokens_are_the_users_own(self, staff, other_org, acme, globex, admin_client):
        body = page(staff(other_org), "/admin/accounts/sessiontoken/")
        assert "admin@acme.example" not in body and "admin@globex.example" not in body
        assert "admin@acme.example" in page(admin_client, "/admin/accounts/sessiontoken/")


class TestAnotherOrganizationsPagesAreNotFound:
    PAGES = {"hit": "onboarding/screeninghit", "check": "onboarding/compliancecheck", "endpoint": "webhooks/webhookendpoint",
             "delivery": "webhooks/delivery", "event": "webhooks/event", "invitation": "organizations/invitation",
             "api_key": "organizations/apikey", "membership": "organizations/membership",
             "onchain": "compliance/onchainstatusupdate", "audit": "common/auditlogentry"}

    @pytest.mark.parametrize("record", list(PAGES))
    def test_a_change_page(self, staff, other_org, acme, globex, record):
        console = staff(other_org)
        assert hidden(console, f"/admin/{self.PAGES[record]}/{acme[record].pk}/change/"), record
        assert console.get(f"/admin/{self.PAGES[record]}/{globex[record].pk}/change/").status_code == 200, record

    def test_the_organization_and_its_members(self, staff, org, other_org, acme):
        console = staff(other_org)
        assert hidden(console, f"/admin/organizations/organization/{org.pk}/change/")
        assert "admin@globex.example" in page(console, f"/admin/organizations/organization/{other_org.pk}/change/")
        assert hidden(console, f"/admin/accounts/user/{acme['membership'].user_id}/change/")

    def test_nothing_of_another_organization_changes(self, staff, other_org, acme):
        console = staff(other_org)
        membership, endpoint = acme["membership"], acme["endpoint"]
        changed = console.post(f"/admin/organizations/membership/{membership.pk}/change/", {"role": "viewer"})
        assert changed.status_code == 404 or changed.url.rstrip("/").endswith("/admin")  # not found, not refused
        changed = console.post(f"/admin/webhooks/webhookendpoint/{endpoint.pk}/change/", {
            "url": "https://evil.example/x", "description": "", "event_types": ["alert.created"], "enabled": "on"})
        assert changed.status_code == 404 or changed.url.rstrip("/").endswith("/admin")
        console.post("/admin/organizations/invitation/", {"action": "revoke", "_selected_action": [acme["invitation"].pk]})
        membership.refresh_from_db(), endpoint.refresh_from_db(), acme["invitation"].refresh_from_db()
        assert (membership.role, endpoint.url, acme["invitation"].revoked_at) == ("admin", "https://hooks.acme.example/in", None)


class TestOrganizationFilters:
    LISTS = ["/admin/monitoring/alert/?queue=all", "/admin/filings/case/?queue=all", "/admin/filings/filingrecord/",
             "/admin/onboarding/entity/", "/admin/monitoring/assetprice/", "/admin/monitoring/addresstag/",
             "/admin/monitoring/blockedaddress/", "/admin/monitoring/codelistentry/", "/admin/organizations/apikey/",
             "/admin/organizations/membership/", "/admin/organizations/invitation/", "/admin/webhooks/webhookendpoint/",
             "/admin/webhooks/delivery/", "/admin/webhooks/event/"]

    @pytest.mark.parametrize("url", LISTS)
    def test_only_the_members_organizations_are_offered(self, staff, admin_client, org, other_org, acme, globex, url):
        body = page(staff(other_org), url)
        assert "Acme (acme)" not in body and f"organization__id__exact={org.pk}" not in body, url
        assert f"organization__id__exact={other_org.pk}" in body, url
        everything = page(admin_client, url)  # the platform operator is offered every organization
        assert f"organization__id__exact={org.pk}" in everything and f"organization__id__exact={other_org.pk}" in everything, url


FOUR_EYES_CHOICES = {None: "unknown", True: "true", False: "false"}  # the console's select (Unknown = the default)


def organization_form(org, **changes) -> dict:
    return {"name": org.name, "filer_profile": "{}", "four_eyes_filing": FOUR_EYES_CHOICES[org.four_eyes_filing],
            "memberships-TOTAL_FORMS": "0", "memberships-INITIAL_FORMS": "0", **changes}


class TestOrganizationChanges:
    def test_another_organization_cannot_be_changed(self, staff, org, other_org):
        type(org).objects.filter(pk=org.pk).update(four_eyes_filing=True, filer_profile={"tin": "12-3456789"})
        org.refresh_from_db()
        response = staff(other_org).post(f"/admin/organizations/organization/{org.pk}/change/",
                                         organization_form(org, name="Pwned", filer_profile='{"tin": "00-0000000"}',
                                                           four_eyes_filing="false"))
        assert response.status_code in (302, 404) and b"Pwned" not in response.content
        org.refresh_from_db()
        assert (org.name, org.filer_profile, org.four_eyes_filing) == ("Acme", {"tin": "12-3456789"}, True)
        assert not AuditLogEntry.objects.filter(action="organization.updated").exists()

    def test_a_viewer_cannot_change_their_own_organization(self, staff, other_org):
        type(other_org).objects.filter(pk=other_org.pk).update(four_eyes_filing=True)
        other_org.refresh_from_db()
        response = staff(other_org, "viewer").post(f"/admin/organizations/organization/{other_org.pk}/change/",
                                                   organization_form(other_org, name="Renamed", four_eyes_filing="false"), follow=True)
        assert [m.level_tag for m in response.context["messages"]] == ["error"]
        other_org.refresh_from_db()
        assert (other_org.name, other_org.four_eyes_filing) == ("Globex", True)
        assert not AuditLogEntry.objects.filter(action="organization.updated").exists()

    def test_an_admin_changes_their_own_organization_through_the_service(self, staff, other_org):
        response = staff(other_org, "admin").post(f"/admin/organizations/organization/{other_org.pk}/change/",
                                                  organization_form(other_org, name="Globex Holdings", four_eyes_filing="true",
                                                                    filer_profile='{"tin": "99-9999999"}'), follow=True)
        assert [m.level_tag for m in response.context["messages"]] == ["success"]
        other_org.refresh_from_db()
        assert (other_org.name, other_org.four_eyes_filing, other_org.filer_profile) == (
            "Globex Holdings", True, {"tin": "99-9999999"})
        entry = AuditLogEntry.objects.get(action="organization.updated")
        assert entry.organization_id == other_org.pk and entry.actor_label == "admin.staff@globex.example"
        assert entry.before["name"] == "Globex" and entry.after["name"] == "Globex Holdings"


PLATFORM_PAGES = ("/admin/account/emailaddress/", "/admin/django_celery_beat/periodictask/",
                  "/admin/django_celery_beat/intervalschedule/", "/admin/django_celery_beat/crontabschedule/")


def test_other_packages_platform_records_are_the_operators_alone(staff, org, make_user):
    """allauth's e-mail addresses (every user's) and the beat schedule were open to any staff member
    given their permissions; they are platform records, like the outbound e-mails."""
    console = staff(org)
    index = console.get("/admin/")
    assert index.status_code == 200
    assert b"/admin/account/" not in index.content and b"/admin/django_celery_beat/" not in index.content
    for page in PLATFORM_PAGES:
        assert console.get(page).status_code == 403, page
    every_minute = IntervalSchedule.objects.create(every=1, period=IntervalSchedule.MINUTES)
    task = PeriodicTask.objects.create(name="webhooks sweep", task="webhooks.sweep_deliveries", interval=every_minute)
    assert console.post(f"/admin/django_celery_beat/periodictask/{task.pk}/delete/", {"post": "yes"}).status_code == 403
    assert PeriodicTask.objects.filter(pk=task.pk).exists()

    operator = make_user("operator@platform.example")
    operator.is_staff = operator.is_superuser = True
    operator.save()
    platform = Client()
    platform.force_login(operator)
    for page in PLATFORM_PAGES:
        assert platform.get(page).status_code == 200, page
    assert b"/admin/django_celery_beat/" in platform.get("/admin/").content


def test_a_member_cannot_change_their_own_e_mail_address_in_the_console(staff, org, other_org, acme):
    """The API refuses an e-mail change (PATCH /v1/auth/me: not among the fields); the console took
    one from any staff member on their own page, unverified (the account stayed verified): another
    organization's invitee's address, whose invitation then matched them. Only the operator changes
    an address; the member's profile fields still change."""
    from accounts.models import User

    console = staff(other_org, "viewer", email="viewer.staff@globex.example")
    me = User.objects.get(email="viewer.staff@globex.example")
    page = console.get(f"/admin/accounts/user/{me.pk}/change/")
    assert page.status_code == 200 and b'name="email"' not in page.content
    response = console.post(f"/admin/accounts/user/{me.pk}/change/", {
        "email": "invitee@acme.example", "first_name": "Vera", "last_name": "", "job_title": "Analyst"}, follow=True)
    assert response.status_code == 200
    me.refresh_from_db()
    assert (me.email, me.first_name, me.job_title) == ("viewer.staff@globex.example", "Vera", "Analyst")
    assert not User.objects.filter(email="invitee@acme.example").exists()
    assert not Membership.objects.filter(organization=org, user=me).exists()


def test_a_members_own_profile_change_in_the_console_is_audited(staff, other_org):
    """As PATCH /v1/auth/me: the change goes through profile_update and leaves its audit entry
    (before, the console saved the row itself and recorded nothing)."""
    from accounts.models import User

    console = staff(other_org, "viewer", email="viewer.staff@globex.example")
    me = User.objects.get(email="viewer.staff@globex.example")
    response = console.post(f"/admin/accounts/user/{me.pk}/change/", {"first_name": "Vera", "last_name": "Lind", "job_title": ""},
                            follow=True)
    assert response.status_code == 200
    me.refresh_from_db()
    assert (me.first_name, me.last_name) == ("Vera", "Lind")
    entry = AuditLogEntry.objects.get(action="user.profile_updated", object_id=str(me.pk))
    assert entry.before["first_name"] == "" and entry.after["first_name"] == "Vera" and entry.after["last_name"] == "Lind"


def test_a_member_cannot_set_their_password_without_the_current_one_in_the_console(staff, other_org):
    """The user page's password form sets a new password without the current one and signs nothing
    out; before, any staff member could use it on their own account (so could whoever held their
    console cookie). It is the operator's alone now; the password stays."""
    from accounts.models import User

    console = staff(other_org, "viewer", email="viewer.staff@globex.example")
    me = User.objects.get(email="viewer.staff@globex.example")
    new = "Taken-Over-Password-77"
    assert console.get(f"/admin/accounts/user/{me.pk}/password/").status_code == 403
    response = console.post(f"/admin/accounts/user/{me.pk}/password/", {"password1": new, "password2": new, "usable_password": "true"})
    assert response.status_code == 403
    me.refresh_from_db()
    assert me.check_password(PASSWORD) and not me.check_password(new)
