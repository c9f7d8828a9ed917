"""/v1/organizations: create, me (incl. filer profile), members and roles."""

import threading

import pytest
from django.db import connection

from common.models import AuditLogEntry
from organizations.models import Membership, Organization

pytestmark = pytest.mark.django_db

FILER = {
    "legal_name": "Acme Bank N.A.", "tin": "12-3456789", "tin_type": "EIN",
    "address": {"line1": "1 Main St", "city": "Springfield", "state": "IL", "postal_code": "62701", "country": "us"},
    "primary_regulator": "OCC", "contact_office": "BSA Office", "contact_phone": "+1 217 555 0100",
}


class TestCreate:
    def test_creator_becomes_admin(self, api, make_user):
        from accounts.services import session_login
        from conftest import PASSWORD

        user = make_user("founder@example.com")
        token = session_login(email=user.email, password=PASSWORD).token
        response = api(token).post("/v1/organizations", {"name": "Initech Payments", "filer_profile": FILER}, format="json")
        body = response.json()
        assert response.status_code == 201, body
        assert body["slug"] == "initech-payments" and body["role"] == "admin"
        assert body["filer_profile"]["address"]["country"] == "US"
        org = Organization.objects.get(pk=body["id"])
        assert Membership.objects.get(organization=org, user=user).role == "admin"
        assert AuditLogEntry.objects.filter(action="organization.created", object_id=str(org.pk)).exists()

    def test_taken_slug_is_a_conflict(self, api, member, org):
        _, token = member(org)
        response = api(token).post("/v1/organizations", {"name": "X", "slug": "acme"}, format="json")
        assert response.status_code == 409
        assert Organization.objects.filter(slug="acme").count() == 1

    def test_a_slug_is_kept_lower_case_so_no_look_alike_of_a_taken_one(self, api, member, org):
        _, token = member(org)
        response = api(token).post("/v1/organizations", {"name": "X", "slug": "ACME"}, format="json")
        assert response.status_code == 409 and response.json()["error"]["code"] == "CONFLICT"
        assert not Organization.objects.filter(slug="ACME").exists()
        created = api(token).post("/v1/organizations", {"name": "Y", "slug": "Globex-EU"}, format="json")
        assert created.status_code == 201 and created.json()["slug"] == "globex-eu"
        assert Organization.objects.filter(slug="globex-eu").exists()

    @pytest.mark.django_db(transaction=True)
    def test_organizations_of_one_name_created_at_once_each_get_a_slug(self, api, member, org):
        """No slug given, the same name four times at the same moment: four organizations, four slugs,
        each creator its admin. Before, on PostgreSQL the creations that lost the race for the slug
        made from the name answered 409 "The slug is taken." to callers who had named no slug."""
        users_tokens = [member(org) for _ in range(4)]
        barrier, answers = threading.Barrier(4), []

        def create(token):
            try:
                barrier.wait()
                answers.append(api(token).post("/v1/organizations", {"name": "Same Name"}, format="json"))
            finally:
                connection.close()

        threads = [threading.Thread(target=create, args=(token,)) for _, token in users_tokens]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [response.status_code for response in answers] == [201] * 4, [response.json() for response in answers]
        slugs = {response.json()["slug"] for response in answers}
        assert len(slugs) == 4 and "same-name" in slugs
        for user, _ in users_tokens:
            created = Organization.objects.get(name="Same Name", memberships__user=user)
            assert Membership.objects.get(organization=created, user=user).role == "admin"
        assert AuditLogEntry.objects.filter(action="organization.created").count() == 4

    def test_api_key_and_anonymous_refused(self, api, org, key):
        assert api().post("/v1/organizations", {"name": "X"}, format="json").status_code == 401
        assert api(key(org)).post("/v1/organizations", {"name": "X"}, format="json").status_code == 403
        assert Organization.objects.count() == 1


class TestMe:
    def test_get(self, api, member, org):
        _, token = member(org, "viewer")
        body = api(token).get("/v1/organizations/me").json()
        assert body["id"] == str(org.pk) and body["role"] == "viewer" and body["four_eyes_filing"] is None
        assert body["four_eyes"] == {"setting": "default", "live": True, "test": False}  # on by default in live mode

    def test_admin_updates_filer_profile(self, api, member, org):
        _, token = member(org, "admin")
        response = api(token).patch("/v1/organizations/me", {"filer_profile": FILER, "four_eyes_filing": True}, format="json")
        assert response.status_code == 200, response.json()
        org.refresh_from_db()
        assert org.filer_profile["tin"] == "12-3456789" and org.four_eyes_filing is True
        partial = api(token).patch("/v1/organizations/me", {"filer_profile": {"contact_office": "FIU"}}, format="json")
        assert partial.json()["filer_profile"]["tin"] == "12-3456789"
        assert partial.json()["filer_profile"]["contact_office"] == "FIU"
        entry = AuditLogEntry.objects.filter(action="organization.updated").first()
        assert entry.before["filer_profile"]["tin"] == "12-3456789" and entry.after["filer_profile"]["contact_office"] == "FIU"

    @pytest.mark.parametrize("profile, field", [
        ({"tin_type": "VAT"}, "filer_profile.tin_type"),
        ({"address": {"line1": "x", "city": "y", "country": "XX"}}, "filer_profile.address.country"),
        ({"address": {"city": "y", "country": "US"}}, "filer_profile.address.line1"),
        ({"tin": "!!"}, "filer_profile.tin"),
        ({"favourite_colour": "red"}, "filer_profile.favourite_colour"),
    ])
    def test_bad_filer_profile(self, api, member, org, profile, field):
        _, token = member(org, "admin")
        response = api(token).patch("/v1/organizations/me", {"filer_profile": profile}, format="json")
        assert response.status_code == 422
        assert field in {d["field"] for d in response.json()["error"]["details"]}
        org.refresh_from_db()
        assert org.filer_profile == {}

    def test_non_admin_cannot_update(self, api, member, org):
        _, token = member(org, "l3_officer")
        response = api(token).patch("/v1/organizations/me", {"name": "Hacked"}, format="json")
        assert response.status_code == 403
        org.refresh_from_db()
        assert org.name == "Acme"

    def test_x_organization_header_selects_among_memberships(self, api, member, org, other_org):
        user, token = member(org, "viewer")
        Membership.objects.create(organization=other_org, user=user, role="admin")
        assert api(token, HTTP_X_ORGANIZATION="globex").get("/v1/organizations/me").json()["slug"] == "globex"
        assert api(token, HTTP_X_ORGANIZATION=str(other_org.pk)).get("/v1/organizations/me").json()["role"] == "admin"
        stranger = api(token, HTTP_X_ORGANIZATION="nobody").get("/v1/organizations/me")
        assert stranger.status_code == 404


class TestMembers:
    def test_list(self, api, member, org):
        _, token = member(org, "viewer")
        body = api(token).get("/v1/organizations/members").json()
        assert sorted(m["role"] for m in body) == ["admin", "viewer"]

    def test_change_role(self, api, member, org):
        _, admin_token = member(org, "admin")
        target, _ = member(org, "viewer")
        response = api(admin_token).patch(f"/v1/organizations/members/{target.pk}/role", {"role": "l2_investigator"}, format="json")
        assert response.status_code == 200 and response.json()["role"] == "l2_investigator"
        assert Membership.objects.get(user=target).role == "l2_investigator"
        entry = AuditLogEntry.objects.get(action="member.role_changed")
        assert (entry.before, entry.after) == ({"role": "viewer"}, {"role": "l2_investigator"})

    def test_unknown_role_and_wrong_role(self, api, member, org):
        _, officer = member(org, "l3_officer")
        target, _ = member(org, "viewer")
        assert api(officer).patch(f"/v1/organizations/members/{target.pk}/role", {"role": "admin"}, format="json").status_code == 403
        _, admin_token = member(org, "admin")
        bad = api(admin_token).patch(f"/v1/organizations/members/{target.pk}/role", {"role": "god"}, format="json")
        assert bad.status_code == 422
        assert Membership.objects.get(user=target).role == "viewer"

    def test_last_admin_cannot_be_demoted_or_removed(self, api, org, member):
        admin = Membership.objects.get(organization=org, role="admin").user
        from accounts.services import session_login
        from conftest import PASSWORD

        token = session_login(email=admin.email, password=PASSWORD).token
        demote = api(token).patch(f"/v1/organizations/members/{admin.pk}/role", {"role": "viewer"}, format="json")
        assert demote.status_code == 409
        remove = api(token).delete(f"/v1/organizations/members/{admin.pk}")
        assert remove.status_code == 409
        assert Membership.objects.get(user=admin).role == "admin"

    def test_remove_member(self, api, member, org):
        _, admin_token = member(org, "admin")
        target, target_token = member(org, "viewer")
        assert api(admin_token).delete(f"/v1/organizations/members/{target.pk}").status_code == 204
        assert not Membership.objects.filter(user=target).exists()
        assert api(target_token).get("/v1/organizations/me").status_code == 403  # no organization any more

    def test_other_organizations_member_is_404(self, api, member, org, other_org):
        _, admin_token = member(org, "admin")
        outsider, _ = member(other_org, "viewer")
        assert api(admin_token).delete(f"/v1/organizations/members/{outsider.pk}").status_code == 404
        assert api(admin_token).patch(f"/v1/organizations/members/{outsider.pk}/role", {"role": "admin"},
                                      format="json").status_code == 404
        assert Membership.objects.get(user=outsider).role == "viewer"
