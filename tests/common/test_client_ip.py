"""The client address the audit trail and the sign-in limit use: REMOTE_ADDR, or behind a trusted
proxy the X-Forwarded-For entry that proxy appended (the last), never one the client chose."""

import pytest
from rest_framework.test import APIClient

from common.models import AuditLogEntry
from conftest import PASSWORD

pytestmark = pytest.mark.django_db


def login_ip(make_user, **meta) -> str | None:
    user = make_user()
    response = APIClient().post("/v1/auth/login", {"email": user.email, "password": PASSWORD}, format="json", **meta)
    assert response.status_code == 200, response.json()
    return AuditLogEntry.objects.get(action="user.logged_in", actor_id=str(user.pk)).ip_address


def test_without_a_trusted_proxy_the_header_is_ignored(make_user):
    assert login_ip(make_user, HTTP_X_FORWARDED_FOR="198.51.100.7", REMOTE_ADDR="192.0.2.10") == "192.0.2.10"


def test_behind_a_trusted_proxy_the_entry_it_appended_counts(make_user, settings):
    settings.TRUST_X_FORWARDED_FOR = True
    # The client sent "6.6.6.6" itself; the proxy appended the address it saw.
    assert login_ip(make_user, HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9", REMOTE_ADDR="10.0.0.2") == "203.0.113.9"
    assert login_ip(make_user, HTTP_X_FORWARDED_FOR="2001:db8::1", REMOTE_ADDR="10.0.0.2") == "2001:db8::1"


@pytest.mark.parametrize("meta", [{"REMOTE_ADDR": "not-an-address"},
                                  {"HTTP_X_FORWARDED_FOR": "6.6.6.6, unknown", "REMOTE_ADDR": "10.0.0.2"}])
def test_what_is_not_an_address_is_recorded_as_none(make_user, settings, meta):
    settings.TRUST_X_FORWARDED_FOR = True
    assert login_ip(make_user, **meta) is None
