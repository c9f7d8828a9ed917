"""Fixtures of the webhook tests: TLS files, real HTTPS receivers on loopback, a movable clock,
endpoints and principals."""

import datetime as dt

import pytest
from django.utils import timezone

from common.principal import Principal
from organizations.choices import Mode, Role
from tests.webhooks.receiver import Receiver, make_tls_files
from webhooks import clock as webhook_clock
from webhooks.models import WebhookEndpoint


@pytest.fixture(scope="session")
def tls(tmp_path_factory):
    return make_tls_files(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def local_receivers(settings, tls):
    """Deliveries may reach loopback, and trust the test CA (as a local deployment would set them)."""
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    settings.WEBHOOK_CA_BUNDLE = str(tls.ca)
    return settings


@pytest.fixture
def receiver(tls):
    """receiver(behaviour=None, host="127.0.0.1") → a started Receiver, stopped after the test."""
    started = []

    def make(behaviour=None, **kwargs) -> Receiver:
        started.append(Receiver(tls, behaviour, **kwargs))
        return started[-1]

    yield make
    for running in started:
        running.stop()


class Clock:
    def __init__(self, start: dt.datetime):
        self.current = start

    def now(self) -> dt.datetime:
        return self.current

    def advance(self, **delta) -> dt.datetime:
        self.current += dt.timedelta(**delta)
        return self.current

    def set(self, moment: dt.datetime) -> dt.datetime:
        self.current = moment
        return moment


@pytest.fixture
def clock(monkeypatch):
    """The time the webhook services read, frozen at the real now and moved by the test."""
    frozen = Clock(timezone.now())
    monkeypatch.setattr(webhook_clock, "now", frozen.now)
    return frozen


@pytest.fixture
def handler_registry(monkeypatch) -> dict:
    """A copy of the inbound handler registry (the apps' handlers included) that the test may
    change; the real one is back afterwards."""
    from webhooks.inbound import handlers

    registry = dict(handlers._handlers)
    monkeypatch.setattr(handlers, "_handlers", registry)
    return registry


def principal_of(organization, role: str = Role.ADMIN, mode: str = Mode.TEST) -> Principal:
    """The principal of a fresh API key, as the API would build it."""
    from organizations.services import api_key_issue

    api_key = api_key_issue(organization=organization, mode=mode, role=role, name=f"{role} {mode}").api_key
    return Principal(credential="api_key", organization=organization, mode=mode, role=role, api_key=api_key)


@pytest.fixture
def admin_principal(org):
    return principal_of(org)


@pytest.fixture
def make_endpoint(admin_principal):
    """make_endpoint(url, event_types=["alert.created"], principal=None) via the service."""
    from webhooks import services

    def make(url: str, event_types=("alert.created",), principal=None, **kwargs) -> WebhookEndpoint:
        return services.endpoint_create(principal=principal or admin_principal, url=url, event_types=list(event_types), **kwargs)

    return make


def alert_data(**overrides) -> dict:
    data = {
        "alert_id": "6f1c1a53-5b0e-4b8e-9d57-2d7f1d1b0001", "entity_id": "0d6f8c4e-2f3b-4a59-8a1e-7e0c9b2a0002",
        "rule_id": "large_transfer", "rule_name": "Large transfer", "severity": "medium",
        "description": "One transfer of 12,500 USD", "transaction_ids": ["tx-1"],
        "created_at": dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC),
    }
    return {**data, **overrides}
