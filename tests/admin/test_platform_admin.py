"""The console's platform screens: API keys shown once, revocation, members through the services."""

import hashlib
import re

import pytest

from common.models import AuditLogEntry
from organizations.models import ApiKey, Membership

pytestmark = pytest.mark.django_db


def test_creating_a_key_shows_the_secret_once(admin_client, org):
    response = admin_client.post("/admin/organizations/apikey/add/", {
        "organization": org.pk, "name": "console key", "mode": "live", "tier": "premium", "role": "l2_investigator",
    })
    assert response.status_code == 200
    secret = re.search(rb'id="api-key-secret"[^>]*>(sk_live_[0-9A-Za-z]+)<', response.content).group(1).decode()
    stored = ApiKey.objects.get(name="console key")
    assert stored.key_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert (stored.mode, stored.tier, stored.role) == ("live", "premium", "l2_investigator")
    assert secret.encode() not in admin_client.get(f"/admin/organizations/apikey/{stored.pk}/change/").content
    assert AuditLogEntry.objects.filter(action="api_key.created", object_id=str(stored.pk)).exists()


def test_revoke_action_calls_the_service(admin_client, org, key, api, django_capture_on_commit_callbacks):
    secret = key(org)
    stored = ApiKey.objects.get(prefix=secret[:12])
    assert api(secret).get("/v1/developer/api-keys").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post("/admin/organizations/apikey/", {"action": "revoke", "_selected_action": [stored.pk]},
                                     follow=True)
    assert response.status_code == 200
    stored.refresh_from_db()
    assert stored.revoked_at is not None
    assert api(secret).get("/v1/developer/api-keys").status_code == 401


def test_demoting_the_last_admin_is_refused_in_the_console_too(admin_client, org):
    membership = Membership.objects.get(organization=org, role="admin")
    response = admin_client.post(f"/admin/organizations/membership/{membership.pk}/change/", {"role": "viewer"}, follow=True)
    assert b"last admin" in response.content
    membership.refresh_from_db()
    assert membership.role == "admin"


def test_console_pages_render(admin_client, org):
    for url in ("/admin/", "/admin/organizations/organization/", f"/admin/organizations/organization/{org.pk}/change/",
                "/admin/accounts/user/", "/admin/organizations/apikey/", "/admin/common/auditlogentry/",
                "/admin/organizations/invitation/", "/admin/common/outboundemail/"):
        assert admin_client.get(url).status_code == 200, url


def test_the_filer_profile_field_says_what_it_holds(admin_client, org):
    """Report validation names missing 'filer.*' keys; the field they are set in shows the keys and an example."""
    page = admin_client.get(f"/admin/organizations/organization/{org.pk}/change/").content.decode()
    assert "validation names a missing key as" in page and "transmitter_control_code" in page and "docs/filings.md" in page


def test_the_index_has_no_unused_django_sections(admin_client):
    page = admin_client.get("/admin/").content.decode()
    assert "/admin/auth/group/" not in page and "/admin/sites/site/" not in page
    assert "/admin/monitoring/alert/" in page
    groups = ["Work queues", "Customers", "Reports and filings", "Information sharing", "Configuration", "System"]
    assert [page.index(f'<span class="section">{group}</span>') for group in groups] == sorted(
        page.index(f'<span class="section">{group}</span>') for group in groups)  # the groups of the work, in order


def test_dates_read_one_unambiguous_way(admin_client, org):
    """Django's own date columns print as the console's columns do (2026-11-25 13:40:05), not 'Nov. 25, 2026, 1:40 p.m.'."""
    Organization = type(org)
    Organization.objects.filter(pk=org.pk).update(created_at="2026-11-25T13:40:05Z")
    page = admin_client.get("/admin/organizations/organization/").content.decode()
    assert "2026-11-25 13:40:05 UTC" in page and "Nov. 25, 2026" not in page
