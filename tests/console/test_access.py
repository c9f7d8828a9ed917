"""Console access follows membership (console.access, console.site): an invited member signs in with
their e-mail and password, no staff flag; removing the member ends it; a non-member (staff flag or
not) and an inactive member are refused; the role decides what the console offers (permissions) and
the System group is the admins'; the platform operator's own pages stay theirs."""

import pytest
from django.test import Client

from conftest import PASSWORD
from console.access import role_permissions
from organizations.models import Membership
from organizations.services import member_remove
from tests.console.conftest import org_admin, signed_in

pytestmark = pytest.mark.django_db
REFUSED = "Please enter the e-mail address and password of a member of an organization."


def refused(email: str) -> Client:
    console = Client()
    response = console.post("/admin/login/?next=/admin/", {"username": email, "password": PASSWORD})
    assert response.status_code == 200 and REFUSED in response.content.decode(), response.status_code
    assert "_auth_user_id" not in console.session
    return console


def test_an_invited_member_signs_in_without_a_staff_flag(org, invited):
    user = invited(org, "l2_investigator")
    page = signed_in(user).get("/admin/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "Open alerts by severity" in body and "Your role: <strong>l2_investigator</strong>" in body
    user.refresh_from_db()
    assert not user.is_staff and user.last_login is not None  # nothing flipped by hand, the sign-in recorded


def test_removing_the_member_removes_access(org, invited):
    user = invited(org, "l1_analyst")
    console = signed_in(user)
    member_remove(principal=org_admin(org), user_id=user.pk)
    assert not Membership.objects.filter(user=user).exists()
    ended = console.get("/admin/")  # the open session: the next request asks for a sign-in
    assert ended.status_code == 302 and ended["Location"].startswith("/admin/login/")
    assert console.get("/admin/monitoring/alert/").status_code == 302
    refused(user.email)  # and signing in again is refused, as a wrong password is


def test_a_member_of_another_organization_keeps_access_when_removed_from_one(org, other_org, invited):
    user = invited(org, "viewer", email="both@example.com")
    Membership.objects.create(organization=other_org, user=user, role="viewer")
    member_remove(principal=org_admin(org), user_id=user.pk)
    assert signed_in(user).get("/admin/").status_code == 200


@pytest.mark.parametrize("staff", [False, True])
def test_a_user_of_no_organization_is_refused(make_user, staff):
    user = make_user("nobody@example.com")
    user.is_staff = staff  # the staff flag no longer opens the console
    user.save()
    refused(user.email)
    console = Client()
    console.force_login(user)
    assert console.get("/admin/").status_code == 302


def test_an_inactive_member_is_refused(org, invited):
    user = invited(org, "admin", email="gone@acme.example")
    user.is_active = False
    user.save()
    console = Client()
    assert console.post("/admin/login/", {"username": user.email, "password": PASSWORD}).status_code == 200
    assert "_auth_user_id" not in console.session


def test_the_platform_operator_signs_in_without_a_membership(make_user):
    operator = make_user("operator@platform.example")
    operator.is_superuser = True  # no staff flag either
    operator.save()
    console = signed_in(operator)
    assert console.get("/admin/django_celery_beat/periodictask/").status_code == 200


def test_the_operators_pages_stay_theirs(org, invited):
    console = signed_in(invited(org, "admin", email="boss@acme.example"))
    for url in ("/admin/django_celery_beat/periodictask/", "/admin/common/outboundemail/", "/admin/account/emailaddress/"):
        assert console.get(url).status_code == 403, url


def test_what_each_role_is_offered():
    viewer, analyst, officer, admin = (role_permissions(role) for role in ("viewer", "l1_analyst", "l3_officer", "admin"))
    assert role_permissions(None) == frozenset()
    assert {"monitoring.view_alert", "filings.view_case", "onboarding.view_entity"} <= viewer
    assert not {"filings.change_case", "monitoring.change_alert", "onboarding.change_entity"} & viewer  # a viewer reads
    assert {"filings.change_case", "onboarding.change_screeninghit"} <= analyst
    for system in ("common.view_auditlogentry", "webhooks.view_delivery", "accounts.view_sessiontoken"):
        assert system not in officer and system in admin, system
    assert viewer < analyst == officer < admin  # l3 is offered what l1 is: the services check the role of each action


@pytest.mark.parametrize(("role", "system"), [("l1_analyst", False), ("l3_officer", False), ("admin", True)])
def test_the_system_group_is_the_admins(org, invited, role, system):
    console = signed_in(invited(org, role))
    body = console.get("/admin/").content.decode()
    assert ('<span class="section">System</span>' in body) is system
    assert ("/admin/common/auditlogentry/" in body) is system
    assert (console.get("/admin/common/auditlogentry/").status_code == 200) is system
    assert '<span class="section">Work queues</span>' in body and "/admin/monitoring/alert/" in body
