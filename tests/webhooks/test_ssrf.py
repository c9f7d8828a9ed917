"""The SSRF guard: non-public destinations are refused after DNS resolution, before any connection,
unless WEBHOOK_ALLOW_PRIVATE_NETWORKS is set."""

import ipaddress
import socket

import pytest

from common.errors import ValidationFailed
from tests.webhooks.conftest import alert_data
from webhooks import services, transport
from webhooks.models import Delivery, WebhookEndpoint

REFUSED = ["127.0.0.1", "127.8.9.10", "10.0.0.5", "172.16.3.4", "192.168.1.1", "169.254.169.254", "100.64.0.1",
           "0.0.0.0", "224.0.0.1", "240.0.0.1", "::1", "fe80::1", "fc00::1", "::ffff:127.0.0.1", "::ffff:10.1.2.3", "ff02::1"]


@pytest.mark.parametrize("address", REFUSED)
def test_non_public_addresses_are_refused(address):
    assert transport.address_refusal(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize("address", ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses_pass(address):
    assert transport.address_refusal(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize("host", ["127.0.0.1", "10.20.30.40", "169.254.169.254", "::1", "localhost"])
def test_resolution_is_checked_before_connecting(settings, host):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    with pytest.raises(transport.DestinationRefused, match="refused"):
        transport.resolve_destination(host, 443)


@pytest.mark.parametrize("host", ["10.20.30.40", "169.254.169.254", "[::1]"])
def test_a_post_to_a_private_address_fails_without_any_connection(settings, host):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    outcome = transport.post(f"https://{host}/hook", b"{}", {})
    assert outcome.status_code is None and "refused" in outcome.error
    assert outcome.duration_ms < 1000  # refused up front, not a connection attempt that timed out


@pytest.mark.django_db
def test_a_loopback_receiver_gets_nothing_without_the_setting(settings, tls, receiver, org, django_capture_on_commit_callbacks):
    settings.WEBHOOK_CA_BUNDLE = str(tls.ca)
    hook = receiver()
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True  # registered while allowed (a local deployment) ...
    from tests.webhooks.conftest import principal_of

    services.endpoint_create(principal=principal_of(org), url=hook.url(), event_types=["alert.created"])
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False  # ... then the guard is on

    with django_capture_on_commit_callbacks(execute=True):
        event = services.event_emit(organization=org, mode="test", type="alert.created", data=alert_data())

    stored = Delivery.objects.get(event=event)
    assert stored.status == "pending" and "loopback" in stored.last_error
    assert stored.attempt_log.get().status_code is None
    assert hook.requests == []


def test_only_https_is_called(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    outcome = transport.post("http://127.0.0.1:9/hook", b"{}", {})
    assert outcome.status_code is None and "https" in outcome.error


LOOPBACK_SPELLINGS = ["https://127.1/x", "https://2130706433/x", "https://0x7f000001/x", "https://0177.0.0.1/x", "https://0/x",
                      "https://localhost./x", "https://LOCALHOST/x", "https://foo.localhost/x", "https://a.b.localhost./x",
                      "https://012.1/x", "https://0xa9.0xfe.0xa9.0xfe/latest", "https://[::ffff:127.0.0.1]/x"]


@pytest.mark.django_db
@pytest.mark.parametrize("url", LOOPBACK_SPELLINGS)
def test_every_spelling_of_a_non_public_host_is_refused_when_saved(settings, admin_principal, url):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    with pytest.raises(ValidationFailed) as refused:
        services.endpoint_create(principal=admin_principal, url=url, event_types=["alert.created"])
    assert refused.value.details[0]["field"] == "url" and "only public destinations" in refused.value.details[0]["message"]
    assert not WebhookEndpoint.objects.exists()


@pytest.mark.parametrize("url", LOOPBACK_SPELLINGS)
def test_the_same_spellings_are_refused_when_sent(settings, url):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    outcome = transport.post(url, b"{}", {})
    assert outcome.status_code is None and "refused" in outcome.error


@pytest.mark.django_db
def test_a_host_name_is_not_resolved_when_saved(settings, admin_principal, monkeypatch):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False

    def no_dns(*args, **kwargs):
        raise AssertionError("resolved at save time")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    for url in ("https://hooks.example.com/x", "https://localhost.example.com/x", "https://1.2.3.4.example/x",
                "https://93.184.216.34/x"):
        services.endpoint_create(principal=admin_principal, url=url, event_types=["alert.created"])
    assert WebhookEndpoint.objects.count() == 4
