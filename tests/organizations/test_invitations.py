"""/v1/organizations/invitations: create (e-mail), list, preview (public), accept, revoke, expiry."""

import threading
from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection
from django.utils import timezone

from organizations.models import Invitation, Membership

pytestmark = pytest.mark.django_db


@pytest.fixture
def invite(api, member, org, django_capture_on_commit_callbacks):
    _, admin_token = member(org, "admin")

    def make(email="joiner@example.com", role="l1_analyst"):
        with django_capture_on_commit_callbacks(execute=True):
            return api(admin_token).post("/v1/organizations/invitations", {"email": email, "role": role}, format="json")

    make.admin_token = admin_token
    return make


def test_create_mails_a_link_and_lists_it(api, invite):
    response = invite()
    body = response.json()
    assert response.status_code == 201, body
    assert body["status"] == "pending" and body["role"] == "l1_analyst" and body["token"]
    assert len(mail.outbox) == 1 and body["token"] in mail.outbox[0].body.replace("%3A", ":")
    listed = api(invite.admin_token).get("/v1/organizations/invitations").json()
    assert [i["email"] for i in listed] == ["joiner@example.com"]


def test_preview_is_public(api, invite):
    token = invite().json()["token"]
    response = api().get(f"/v1/organizations/invitations/preview?token={token}")
    assert response.status_code == 200
    assert response.json()["organization_name"] == "Acme" and response.json()["status"] == "pending"
    assert api().get("/v1/organizations/invitations/preview?token=forged").status_code == 404
    assert api().get("/v1/organizations/invitations/preview").status_code == 422


def test_accept_by_the_invited_user(api, invite, make_user):
    from accounts.services import session_login
    from conftest import PASSWORD

    invitation_id = invite().json()["id"]
    joiner = make_user("joiner@example.com")
    token = session_login(email=joiner.email, password=PASSWORD).token
    response = api(token).post(f"/v1/organizations/invitations/{invitation_id}/accept")
    assert response.status_code == 200, response.json()
    assert Membership.objects.get(user=joiner).role == "l1_analyst"
    assert Invitation.objects.get(pk=invitation_id).accepted_by == joiner
    assert api(token).post(f"/v1/organizations/invitations/{invitation_id}/accept").status_code == 409


def test_someone_else_cannot_accept(api, invite, member, other_org):
    invitation_id = invite().json()["id"]
    intruder, token = member(other_org, "admin")
    assert api(token).post(f"/v1/organizations/invitations/{invitation_id}/accept").status_code == 404
    assert Invitation.objects.get(pk=invitation_id).accepted_at is None


def test_revoked_and_expired_cannot_be_accepted(api, invite, make_user):
    from accounts.services import session_login
    from conftest import PASSWORD

    first = invite("a@example.com").json()["id"]
    second = invite("b@example.com").json()["id"]
    assert api(invite.admin_token).post(f"/v1/organizations/invitations/{first}/revoke").json()["status"] == "revoked"
    Invitation.objects.filter(pk=second).update(expires_at=timezone.now() - timedelta(seconds=1))
    for email, invitation_id, status in (("a@example.com", first, "revoked"), ("b@example.com", second, "expired")):
        make_user(email)
        token = session_login(email=email, password=PASSWORD).token
        response = api(token).post(f"/v1/organizations/invitations/{invitation_id}/accept")
        assert response.status_code == 409 and status in response.json()["error"]["message"]
    assert Membership.objects.filter(user__email__in=["a@example.com", "b@example.com"]).count() == 0


def test_expiry_is_seven_days(invite):
    invitation = Invitation.objects.get(pk=invite().json()["id"])
    assert timedelta(days=6, hours=23) < invitation.expires_at - invitation.created_at <= timedelta(days=7)


def test_duplicates_members_and_roles(api, invite, member, org):
    assert invite().status_code == 201
    assert invite().status_code == 409  # a pending one exists
    existing, _ = member(org, "viewer")
    assert invite(existing.email).status_code == 409
    _, officer = member(org, "l3_officer")
    refused = api(officer).post("/v1/organizations/invitations", {"email": "x@example.com"}, format="json")
    assert refused.status_code == 403
    assert invite("y@example.com", role="superuser").status_code == 422
    assert Invitation.objects.count() == 1


def test_other_organizations_invitation_cannot_be_revoked(api, invite, member, other_org):
    invitation_id = invite().json()["id"]
    _, other_admin = member(other_org, "admin")
    assert api(other_admin).post(f"/v1/organizations/invitations/{invitation_id}/revoke").status_code == 404
    assert Invitation.objects.get(pk=invitation_id).revoked_at is None


def test_the_token_is_the_same_whenever_it_is_made_and_older_tokens_still_open(api, invite, monkeypatch):
    """The API's answer and the e-mail (rendered later by a worker) carry one token; a token of the
    earlier timestamped form still previews."""
    from django.core import signing

    from organizations.selectors import INVITATION_SALT, invitation_by_token, invitation_token

    invitation = Invitation.objects.get(pk=invite().json()["id"])
    first = invitation_token(invitation)
    monkeypatch.setattr(signing.time, "time", lambda: 4_000_000_000.0)
    assert invitation_token(invitation) == first and invitation_by_token(first) == invitation
    legacy = signing.dumps(str(invitation.pk), salt=INVITATION_SALT)
    response = api().get(f"/v1/organizations/invitations/preview?token={legacy}")
    assert response.status_code == 200 and response.json()["organization_name"] == "Acme", response.json()
    assert invitation_by_token(first[:-2] + "xx") is None


@pytest.mark.django_db(transaction=True)
def test_two_invitations_accepted_at_once_make_one_membership_and_a_409(api, org, make_user):
    """Two pending invitations of one address (left by invitations created at the same moment before
    that was serialised) accepted at the same moment: before, the second insert broke the unique
    (organization, user) constraint on PostgreSQL and answered 500. Now one joins, the other is a 409,
    and the refused invitation stays pending."""
    from accounts.services import session_login
    from conftest import PASSWORD

    joiner = make_user("joiner@example.com")
    token = session_login(email=joiner.email, password=PASSWORD).token
    for _ in range(4):  # a race: each round is one more chance for the two inserts to meet
        Membership.objects.filter(user=joiner).delete()
        invitations = [Invitation.objects.create(organization=org, email=joiner.email, role=role,
                                                 expires_at=timezone.now() + timedelta(days=1)).pk for role in ("admin", "viewer")]
        barrier, codes = threading.Barrier(2), {}

        def accept(invitation_id, barrier=barrier, codes=codes):
            try:
                barrier.wait()
                codes[invitation_id] = api(token).post(f"/v1/organizations/invitations/{invitation_id}/accept")
            finally:
                connection.close()

        threads = [threading.Thread(target=accept, args=(invitation_id,)) for invitation_id in invitations]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(response.status_code for response in codes.values()) == [200, 409], {k: v.json() for k, v in codes.items()}
        refused = next(invitation_id for invitation_id, response in codes.items() if response.status_code == 409)
        assert codes[refused].json()["error"]["message"] == "You are already a member of this organization."
        membership = Membership.objects.get(user=joiner)
        accepted = Invitation.objects.get(accepted_by=joiner)
        assert membership.role == accepted.role and Invitation.objects.get(pk=refused).status == "pending"
        Invitation.objects.filter(pk__in=invitations).delete()


@pytest.mark.django_db(transaction=True)
def test_invitations_of_one_address_created_at_once_store_one(api, org, member):
    """Four admins' requests inviting one address at the same moment: one 201, three 409, one
    pending invitation and one e-mail row. Before, on PostgreSQL each found none pending and most
    were stored (three pending invitations of one address)."""
    from common.models import AuditLogEntry, OutboundEmail

    _, token = member(org, "admin")
    barrier, codes = threading.Barrier(4), []

    def invite():
        try:
            barrier.wait()
            codes.append(api(token).post("/v1/organizations/invitations", {"email": "joiner@example.com", "role": "admin"},
                                         format="json"))
        finally:
            connection.close()

    threads = [threading.Thread(target=invite) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(response.status_code for response in codes) == [201, 409, 409, 409]
    assert {response.json()["error"]["code"] for response in codes if response.status_code == 409} == {"CONFLICT"}
    assert Invitation.objects.filter(email="joiner@example.com").count() == 1
    assert OutboundEmail.objects.filter(kind="invitation", to="joiner@example.com").count() == 1
    assert AuditLogEntry.objects.filter(action="invitation.created").count() == 1
