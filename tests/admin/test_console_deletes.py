"""Deleting in the console goes through the services, one record at a time, also from "delete
selected": a refused delete keeps the record, records nothing in the console's history and says only
why (no "deleted successfully" beside it); a delete the service makes is in the audit log and the
console's history."""

import pytest
from django.contrib.admin.models import DELETION, LogEntry
from django.contrib.auth.models import Permission
from django.test import Client

from common.models import AuditLogEntry
from monitoring.models import BlockedAddress
from organizations.models import Membership
from webhooks.models import WebhookEndpoint

pytestmark = pytest.mark.django_db


@pytest.fixture
def console(make_user):
    """console(user, {org: role}) → a client signed in as a staff member holding every model permission."""

    def make(user, roles: dict):
        user.is_staff = True
        user.save()
        user.user_permissions.set(Permission.objects.filter(codename__regex=r"^(view|change|add|delete)_"))
        for organization, role in roles.items():
            Membership.objects.update_or_create(organization=organization, user=user, defaults={"role": role})
        client = Client()
        client.force_login(user)
        return client

    return make


def shown(response) -> list[str]:
    return [str(message) for message in response.context["messages"]] if response.context else []


def deletions() -> int:
    return LogEntry.objects.filter(action_flag=DELETION).count()


def test_a_refused_delete_keeps_the_record_and_says_only_why(console, org):
    admin_membership = Membership.objects.get(organization=org, role="admin")  # the organization's only admin
    client = console(admin_membership.user, {org: "admin"})
    url = f"/admin/organizations/membership/{admin_membership.pk}/delete/"

    response = client.post(url, {"post": "yes"}, follow=True)

    assert response.redirect_chain[-1][0] == f"/admin/organizations/membership/{admin_membership.pk}/change/"
    messages = shown(response)
    assert len(messages) == 1 and "admin" in messages[0].lower() and "deleted" not in messages[0].lower(), messages
    assert Membership.objects.filter(pk=admin_membership.pk).exists()
    assert deletions() == 0
    assert not AuditLogEntry.objects.filter(action="member.removed").exists()


def test_a_delete_the_service_makes_is_audited_and_in_the_history(console, org, api, key):
    created = api(key(org, role="admin")).post("/v1/developer/webhook-endpoints", {
        "url": "https://hooks.acme.example/in", "event_types": ["alert.created"]}, format="json")
    assert created.status_code == 201, created.json()
    endpoint = WebhookEndpoint.objects.get(organization=org)
    client = console(Membership.objects.get(organization=org, role="admin").user, {org: "admin"})

    response = client.post(f"/admin/webhooks/webhookendpoint/{endpoint.pk}/delete/", {"post": "yes"}, follow=True)

    assert response.redirect_chain[-1][0] == "/admin/webhooks/webhookendpoint/"
    assert any("deleted successfully" in message for message in shown(response)), shown(response)
    assert not WebhookEndpoint.objects.filter(pk=endpoint.pk).exists()
    assert LogEntry.objects.filter(action_flag=DELETION, object_id=str(endpoint.pk)).count() == 1
    assert AuditLogEntry.objects.filter(organization=org, object_id=str(endpoint.pk)).exists()


def test_delete_selected_goes_through_the_service_for_each_record(console, make_user, org, other_org):
    """Before, "delete selected" of members deleted the rows directly: no last-admin guard, no audit."""
    analyst = make_user("analyst@acme.example")
    Membership.objects.create(organization=org, user=analyst, role="l1_analyst")
    only_admin = Membership.objects.get(organization=org, role="admin")
    client = console(only_admin.user, {org: "admin"})
    chosen = Membership.objects.filter(organization=org)

    response = client.post("/admin/organizations/membership/", {
        "action": "delete_selected", "_selected_action": [m.pk for m in chosen], "post": "yes"}, follow=True)

    messages = shown(response)
    assert "Deleted 1 of the 2 selected." in messages, messages
    assert any(str(only_admin) in message and "admin" in message.lower() for message in messages), messages
    assert not any(message.startswith("Successfully deleted") for message in messages), messages
    assert list(Membership.objects.filter(organization=org).values_list("user__email", flat=True)) == [only_admin.user.email]
    removed = AuditLogEntry.objects.get(action="member.removed")
    assert removed.before["email"] == "analyst@acme.example"
    assert deletions() == 1


def test_delete_selected_refused_in_one_organization_deletes_in_the_other(console, make_user, org, other_org):
    person = make_user("both@example.com")
    client = console(person, {org: "admin", other_org: "viewer"})  # lists need the admin role
    mine = BlockedAddress.objects.create(organization=org, address="0x" + "1" * 40, reason="acme's")
    theirs = BlockedAddress.objects.create(organization=other_org, address="0x" + "2" * 40, reason="globex's")

    response = client.post("/admin/monitoring/blockedaddress/", {
        "action": "delete_selected", "_selected_action": [mine.pk, theirs.pk], "post": "yes"}, follow=True)

    messages = shown(response)
    assert "Deleted 1 of the 2 selected." in messages, messages
    assert any(message.startswith(str(theirs)) for message in messages), messages
    assert not BlockedAddress.objects.filter(pk=mine.pk).exists()
    assert BlockedAddress.objects.filter(pk=theirs.pk).exists()
    assert LogEntry.objects.filter(action_flag=DELETION, object_id=str(mine.pk)).count() == 1
    assert deletions() == 1


def test_delete_selected_with_every_record_deleted_says_so(console, org):
    client = console(Membership.objects.get(organization=org, role="admin").user, {org: "admin"})
    entries = [BlockedAddress.objects.create(organization=org, address=f"0x{n:040x}") for n in (1, 2)]

    response = client.post("/admin/monitoring/blockedaddress/", {
        "action": "delete_selected", "_selected_action": [e.pk for e in entries], "post": "yes"}, follow=True)

    assert any(message.startswith("Successfully deleted 2") for message in shown(response)), shown(response)
    assert not BlockedAddress.objects.filter(organization=org).exists()
    assert deletions() == 2
