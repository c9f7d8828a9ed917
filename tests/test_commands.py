"""Management commands: create_org, create_api_key, bootstrap_demo."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from accounts.services import session_login
from organizations.models import ApiKey, Membership, Organization

pytestmark = pytest.mark.django_db


def run(*args) -> list[str]:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue().strip().splitlines()


def test_create_org_makes_a_verified_admin_who_can_log_in():
    lines = run("create_org", "--slug", "bank", "--name", "Bank", "--admin-email", "boss@bank.example",
                "--admin-password", "Very-Secret-Pass-1")
    assert "Organization: Bank (bank)" in lines[0]
    org = Organization.objects.get(slug="bank")
    assert Membership.objects.get(organization=org).role == "admin"
    assert session_login(email="boss@bank.example", password="Very-Secret-Pass-1").token.startswith("st_")
    with pytest.raises(CommandError):
        run("create_org", "--slug", "bank", "--name", "Again", "--admin-email", "x@bank.example")


def test_create_org_generates_a_password_when_none_is_given():
    lines = run("create_org", "--slug", "gen", "--name", "Gen", "--admin-email", "g@gen.example")
    password = lines[-1].removeprefix("Password: ")
    assert session_login(email="g@gen.example", password=password).token


def test_create_api_key_prints_the_key_alone_on_the_last_line(api, org):
    lines = run("create_api_key", "--org", "acme", "--mode", "live", "--tier", "premium", "--role", "admin", "--name", "cli")
    secret = lines[-1]
    assert secret.startswith("sk_live_") and " " not in secret
    stored = ApiKey.objects.get(prefix=secret[:12])
    assert (stored.mode, stored.tier, stored.role, stored.name) == ("live", "premium", "admin", "cli")
    assert api(secret).get("/v1/developer/api-keys").status_code == 200
    with pytest.raises(CommandError):
        run("create_api_key", "--org", "nope", "--mode", "test")


def test_bootstrap_demo_is_idempotent_and_prints_the_same_key(settings, api):
    first = run("bootstrap_demo")
    second = run("bootstrap_demo")
    key_line = [line for line in first if line.startswith("API key: sk_test_")]
    assert key_line and key_line == [line for line in second if line.startswith("API key: ")]
    assert Organization.objects.filter(slug="demo").count() == 1 and ApiKey.objects.count() == 1
    credentials = json.loads((settings.DATA_DIR / "demo-credentials.json").read_text())
    assert api(key_line[0].split()[-1]).get("/v1/developer/api-keys").status_code == 200
    assert session_login(email=credentials["email"], password=credentials["password"]).token
