"""The investigator console: entity list and page, review actions and false positives through the
services (roles included), sanctions lists."""

import pytest

from common.models import AuditLogEntry
from onboarding.models import Entity, ScreeningHit
from organizations.models import Membership
from tests.onboarding.helpers import COMPANY, onboard, screened

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api, org, key):
    return api(key(org, role="l2_investigator"))


@pytest.fixture
def entity(client):
    return client.post("/v1/onboarding/entities", {**COMPANY, "wallets": [{"chain_id": 0, "address": "acct-1"}],
                                                   "ubos": [{"name": "Ana Lima"}]}, format="json").json()


def action(admin_client, url, name, ids, **form):
    return admin_client.post(url, {"action": name, "_selected_action": ids, **form}, follow=True)


def test_list_filters_and_entity_page(admin_client, entity):
    listing = admin_client.get("/admin/onboarding/entity/", {"status__exact": "pending", "risk_tier__exact": "low"})
    assert listing.status_code == 200 and b"Blue Harbor Trading LLC" in listing.content
    assert b"Blue Harbor" not in admin_client.get("/admin/onboarding/entity/", {"status__exact": "active"}).content
    page = admin_client.get(f"/admin/onboarding/entity/{entity['id']}/change/")
    assert page.status_code == 200
    for text in (b"Risk factors", b"Jurisdiction", b"entity.created", b"acct-1", b"Ana Lima", b"risk history"):
        assert text.lower() in page.content.lower(), text
    # No tax id on record reads as the console's dash, not 'None'; one on record shows its last four.
    assert b"None" not in page.content
    Entity.objects.filter(pk=entity["id"]).update(tax_id_last4="6789")
    assert "•••••6789" in admin_client.get(f"/admin/onboarding/entity/{entity['id']}/change/").content.decode()


def test_approve_asks_then_calls_the_service(admin_client, entity):
    url = "/admin/onboarding/entity/"
    confirm = admin_client.post(url, {"action": "approve", "_selected_action": [entity["id"]]})
    assert confirm.status_code == 200 and b"Approve entities" in confirm.content
    assert Entity.objects.get(pk=entity["id"]).status == "pending"
    screened(entity)
    action(admin_client, url, "approve", [entity["id"]], apply="1", reason="", notes="documents checked")
    assert Entity.objects.get(pk=entity["id"]).status == "active"
    audit = AuditLogEntry.objects.get(action="entity.approve", object_id=entity["id"])
    assert audit.actor_type == "user" and audit.after["notes"] == "documents checked"


def test_reject_without_reason_is_refused(admin_client, entity):
    response = action(admin_client, "/admin/onboarding/entity/", "reject", [entity["id"]], apply="1", reason="")
    assert b"A reason is required" in response.content
    assert Entity.objects.get(pk=entity["id"]).status == "pending"


def test_the_console_user_needs_the_role(client, org, make_user, entity):
    from django.test import Client

    user = make_user("analyst@acme.example")
    user.is_staff = True
    user.is_superuser = True
    user.save()
    Membership.objects.create(organization=org, user=user, role="l1_analyst")
    console = Client()
    console.force_login(user)
    response = action(console, "/admin/onboarding/entity/", "suspend", [entity["id"]], apply="1", reason="x")
    assert b"needs the role l2_investigator" in response.content


@pytest.mark.usefixtures("sanctions_index")
def test_mark_false_positive_from_the_console(admin_client, client, django_capture_on_commit_callbacks):
    entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Ismael Zambada Garcia", "entity_type": "individual",
                                                                   "jurisdiction": "MX"})
    hit = ScreeningHit.objects.get(entity_id=entity["id"], entry_uid="7226", active=True)
    page = admin_client.get(f"/admin/onboarding/screeninghit/{hit.pk}/change/")
    assert page.status_code == 200 and b"ZAMBADA GARCIA" in page.content
    action(admin_client, "/admin/onboarding/screeninghit/", "mark_false_positive", [hit.pk], apply="1", reason="different person")
    hit.refresh_from_db()
    assert hit.status == "false_positive" and hit.false_positive.reason == "different person"
    assert hit.false_positive.decided_by_user is not None
    lists = admin_client.get("/admin/onboarding/sanctionslist/")
    assert lists.status_code == 200 and b"8976" in lists.content


def test_review_decisions_from_the_entity_page(admin_client, entity):
    """The entity page offers the decisions its status allows, each through the same form and service as the list's actions."""
    page_url = f"/admin/onboarding/entity/{entity['id']}/change/"
    review = f"/admin/onboarding/entity/{entity['id']}/review/"
    page = admin_client.get(page_url).content.decode()
    assert f'href="{review}approve/"' in page and f'href="{review}reject/"' in page and f'href="{review}suspend/"' not in page
    assert "<h1>Entity</h1>" in page or "<title>Entity |" in page
    form = admin_client.get(f"{review}approve/")
    assert form.status_code == 200 and b"Approve entities" in form.content and b"Blue Harbor Trading LLC" in form.content

    screened(entity)
    done = admin_client.post(f"{review}approve/", {"apply": "1", "reason": "", "notes": "docs ok"}, follow=True)
    assert done.redirect_chain[-1][0] == page_url and "approve done." in done.content.decode()
    assert Entity.objects.get(pk=entity["id"]).status == "active"
    page = admin_client.get(page_url).content.decode()
    assert f'href="{review}suspend/"' in page and f'href="{review}approve/"' not in page
    no_reason = admin_client.post(f"{review}suspend/", {"apply": "1", "reason": ""}, follow=True)
    assert "A reason is required" in no_reason.content.decode() and Entity.objects.get(pk=entity["id"]).status == "active"
    assert admin_client.get(f"{review}delete/").status_code == 404


def test_review_from_the_entity_page_needs_the_console_permissions_and_the_tenant(org, other_org, make_user, entity):
    """A member of another organization finds no such entity (404, its name not shown); a staff user of
    no organization is sent to the sign-in page (console.access); a viewer of the organization is shown
    the form but the service refuses the decision (the role, not a console permission); nothing changes."""
    from django.test import Client

    review = f"/admin/onboarding/entity/{entity['id']}/review/approve/"
    screened(entity)
    outsider = make_user("outsider@globex.example")
    Membership.objects.create(organization=other_org, user=outsider, role="admin")
    nobody = make_user("staff.only@acme.example")
    nobody.is_staff = True
    nobody.save()
    viewer = make_user("viewer2@acme.example")
    Membership.objects.create(organization=org, user=viewer, role="viewer")
    for user, status in ((outsider, 404), (nobody, 302)):
        console = Client()
        console.force_login(user)
        shown = console.get(review)
        assert shown.status_code == status and b"Blue Harbor" not in shown.content, user
        assert console.post(review, {"apply": "1", "reason": "", "notes": "x"}).status_code == status
    console = Client()
    console.force_login(viewer)
    assert console.get(review).status_code == 200
    refused = console.post(review, {"apply": "1", "reason": "", "notes": "x"}, follow=True)
    assert refused.status_code == 200 and "l2_investigator" in refused.content.decode()
    assert Entity.objects.get(pk=entity["id"]).status == "pending"
