"""Fixtures every test module can use: organizations, members with roles, API keys, clients.

    def test_x(api, org, key):                 # `key(org, role=..., mode=..., tier=...)` → secret
        client = api(key(org))                 # a DRF APIClient sending `Bearer <secret>`
    def test_y(api, org, member):              # `member(org, role)` → (user, session token)
        user, token = member(org, "viewer"); client = api(token)
    def test_z(staff, org):                    # `staff(org, role)` → a console client (Django test Client)
        page = staff(org, "l3_officer").get("/admin/...")
"""

import pytest
from rest_framework.test import APIClient

from accounts.services import session_login, user_create_verified
from organizations.choices import Mode, Role, Tier
from organizations.models import Membership, Organization
from organizations.services import api_key_issue

PASSWORD = "Correct-Horse-9-Battery"


@pytest.fixture
def make_user(db):
    counter = {"n": 0}

    def make(email: str | None = None, *, verified: bool = True, password: str = PASSWORD):
        counter["n"] += 1
        email = email or f"user{counter['n']}@example.com"
        if verified:
            return user_create_verified(email=email, password=password)
        from accounts.models import User

        return User.objects.create_user(email=email, password=password)

    return make


@pytest.fixture
def make_org(db, make_user):
    counter = {"n": 0}

    def make(slug: str | None = None, *, admin=None) -> Organization:
        counter["n"] += 1
        slug = slug or f"org-{counter['n']}"
        org = Organization.objects.create(name=slug.title(), slug=slug)
        Membership.objects.create(organization=org, user=admin or make_user(f"admin@{slug}.example"), role=Role.ADMIN)
        return org

    return make


@pytest.fixture
def org(make_org) -> Organization:
    return make_org("acme")


@pytest.fixture
def other_org(make_org) -> Organization:
    return make_org("globex")


@pytest.fixture
def key(db):
    """key(org, role="admin", mode="test", tier="standard") → the secret of a fresh API key."""

    def make(organization, *, role: str = Role.ADMIN, mode: str = Mode.TEST, tier: str = Tier.STANDARD) -> str:
        return api_key_issue(organization=organization, mode=mode, tier=tier, role=role, name=f"{role} {mode}").secret

    return make


@pytest.fixture
def member(make_user):
    """member(org, role) → (user, session token) of a new verified member signed in."""

    def make(organization, role: str = Role.VIEWER, *, email: str | None = None):
        user = make_user(email)
        Membership.objects.create(organization=organization, user=user, role=role)
        return user, session_login(email=user.email, password=PASSWORD).token

    return make


@pytest.fixture
def staff(make_user):
    """staff(org, role="admin", email=None) → a Django test client signed in to the console as a
    non-superuser staff member of `org` holding every model permission: the console's permissions
    are not what keeps tenants apart or roles in their place, the organization and the role are."""
    from django.contrib.auth.models import Permission
    from django.test import Client

    def make(organization, role: str = Role.ADMIN, *, email: str | None = None) -> Client:
        user = make_user(email or f"{role}.staff@{organization.slug}.example")
        user.is_staff = True
        user.save()
        user.user_permissions.set(Permission.objects.filter(codename__regex=r"^(view|change|add|delete)_"))
        Membership.objects.create(organization=organization, user=user, role=role)
        console = Client()
        console.force_login(user)
        return console

    return make


@pytest.fixture
def api():
    """api(token=None, **headers) → an APIClient that sends `Authorization: Bearer <token>`."""

    def make(token: str | None = None, **headers) -> APIClient:
        client = APIClient()
        if token:
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}", **headers)
        elif headers:
            client.credentials(**headers)
        return client

    return make


@pytest.fixture(autouse=True)
def _fresh_rate_limits(request, settings):
    """Redis buckets survive a test's rollback: clear this run's after each test that used the DB."""
    yield
    if settings.REDIS_URL and {"db", "transactional_db", "django_db_setup"} & set(request.fixturenames):
        from common import ratelimit

        ratelimit.reset_all()


FLUSHING_FIXTURES = {"transactional_db", "live_server"}


def pytest_collection_modifyitems(config, items):
    """Mark the tests that end by flushing the whole test database (transactional ones): `make
    test` runs them in a second pass, so they never wipe data that a worker loaded once for the
    tests that share it (the real sanctions lists, tests/onboarding/conftest.py)."""
    for item in items:
        marker = item.get_closest_marker("django_db")
        if (marker and marker.kwargs.get("transaction")) or FLUSHING_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.flushes_db)
