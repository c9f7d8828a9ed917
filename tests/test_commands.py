"""Management commands: create_org, create_api_key, bootstrap_demo, serve's port check."""

import io
import json
import socket

import pytest
from django.core.management import CommandError, call_command

from accounts.services import session_login
from common.management.commands import serve
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


class TestServePortCheck:
    @pytest.fixture
    def listening(self):
        """A real server socket on a free loopback port: the port another `make run` holds."""
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen()
            yield server.getsockname()[1]

    def test_a_taken_port_is_named_with_the_way_out(self, listening):
        assert serve.port_problem("127.0.0.1", listening) == (
            f"Port {listening} is in use; stop the other server or run `PORT={listening + 1} make run`.")
        assert serve.port_problem("0.0.0.0", listening) is not None  # all addresses include the loopback one

    def test_a_free_port_passes(self, listening):
        with socket.socket() as other:
            other.bind(("127.0.0.1", 0))
            free = other.getsockname()[1]
        assert serve.port_problem("127.0.0.1", free) is None

    def test_an_unknown_host_is_explained(self):
        assert "set HOST" in serve.port_problem("no-such-host.invalid", 8000)

    def test_serve_stops_before_starting_anything(self, listening, monkeypatch):
        def refuse(*args, **kwargs):
            raise AssertionError("started a process")

        monkeypatch.setattr(serve.subprocess, "Popen", refuse)
        with pytest.raises(CommandError, match=f"Port {listening} is in use"):
            run("serve", "--host", "127.0.0.1", "--port", str(listening))

    def test_check_port_only_checks(self, listening, monkeypatch):
        """make run's first step: a taken port stops it before migrating and loading anything."""
        def refuse(*args, **kwargs):
            raise AssertionError("started a process")

        monkeypatch.setattr(serve.subprocess, "Popen", refuse)
        with pytest.raises(CommandError, match=f"Port {listening} is in use"):
            run("serve", "--check-port", "--host", "127.0.0.1", "--port", str(listening))
        with socket.socket() as other:
            other.bind(("127.0.0.1", 0))
            free = other.getsockname()[1]
        run("serve", "--check-port", "--host", "127.0.0.1", "--port", str(free))  # returns, starts nothing
