"""Fixtures of the console tests: members who joined by invitation (no staff flag, nothing set by
hand), a console client signed in through the login page, and an organization's work bulk-created by
bench/console.py's `populate` (the same builder the figure uses)."""

import pytest
from django.test import Client

from bench.console import populate as _populate  # the figure's builder (bench/ is a namespace package at the root)
from common.principal import Principal
from conftest import PASSWORD
from organizations.models import Membership
from organizations.services import invitation_accept, invitation_create
from tests.admin.test_console_browser import browser  # noqa: F401  the headless Chromium fixture


def org_admin(organization) -> Principal:
    admin = Membership.objects.get(organization=organization, role="admin", user__email__startswith="admin@").user
    return Principal(credential="session", organization=organization, mode="live", role="admin", user=admin)


@pytest.fixture
def invited(make_user):
    """invited(org, role, email=None) → a user who accepted an admin's invitation to `org` with `role`."""

    def make(organization, role: str, *, email: str | None = None):
        email = email or f"invited.{role}@{organization.slug}.example"
        invitation = invitation_create(principal=org_admin(organization), email=email, role=role)
        user = make_user(email)
        invitation_accept(user=user, invitation_id=invitation.pk)
        assert not (user.is_staff or user.is_superuser)
        return user

    return make


def signed_in(user) -> Client:
    """A console client signed in through /admin/login/ with the user's e-mail and password."""
    console = Client()
    response = console.post("/admin/login/?next=/admin/", {"username": user.email, "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/admin/", response.content.decode()[-2000:]
    return console


@pytest.fixture
def populate():
    return _populate
