"""Tenancy on a mode-scoped resource (webhook endpoints): test and live data are separate, and
another organization's ids are 404, through the one guarded get_queryset of the /v1 base."""

import pytest

from webhooks.models import WebhookEndpoint

pytestmark = pytest.mark.django_db
URL = "/v1/developer/webhook-endpoints"


def make_endpoint(client, url="https://hooks.example.com/x"):
    response = client.post(URL, {"url": url, "event_types": ["alert.created"]}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def test_test_key_cannot_see_live_data(api, org, key):
    test_client, live_client = api(key(org, mode="test")), api(key(org, mode="live"))
    live_id = make_endpoint(live_client)
    test_id = make_endpoint(test_client, "https://hooks.example.com/test")
    assert [e["id"] for e in test_client.get(URL).json()["data"]] == [test_id]
    assert test_client.get(f"{URL}/{live_id}").status_code == 404
    assert test_client.delete(f"{URL}/{live_id}").status_code == 404
    assert WebhookEndpoint.objects.get(pk=live_id).mode == "live"
    assert [e["id"] for e in live_client.get(URL).json()["data"]] == [live_id]


def test_session_mode_follows_the_x_mode_header(api, org, member, key):
    live_id = make_endpoint(api(key(org, mode="live")))
    _, token = member(org, "admin")
    assert [e["id"] for e in api(token).get(URL).json()["data"]] == [live_id]
    assert api(token, HTTP_X_MODE="test").get(URL).json()["data"] == []


def test_other_organizations_ids_are_404_never_403(api, org, other_org, key):
    foreign_id = make_endpoint(api(key(other_org, mode="test")))
    mine = api(key(org, mode="test"))
    for method in ("get", "delete", "patch"):
        response = getattr(mine, method)(f"{URL}/{foreign_id}", {"enabled": False}, format="json")
        assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"
    assert WebhookEndpoint.objects.get(pk=foreign_id).enabled is True
