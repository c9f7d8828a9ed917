"""The error envelope on every path (DESIGN §4)."""

import pytest
from django.test import override_settings
from django.urls import path

from common.api.views import V1APIView

pytestmark = pytest.mark.django_db


class Boom(V1APIView):
    public = True
    authentication_classes = ()
    permission_classes = ()

    def get(self, request):
        raise RuntimeError("secret internal detail")


def boom_plain(request):
    raise RuntimeError("secret internal detail")


urlpatterns = [path("v1/boom", Boom.as_view()), path("v1/boom-plain", boom_plain)]


def assert_envelope(response, status, code):
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["error"]["code"] == code and body["error"]["message"]
    return body


def test_unknown_route_under_v1(client):
    assert_envelope(client.get("/v1/does/not/exist"), 404, "NOT_FOUND")
    assert_envelope(client.post("/v1"), 404, "NOT_FOUND")


def test_method_not_allowed(api, org, key):
    assert_envelope(api(key(org)).put("/v1/developer/api-keys"), 405, "METHOD_NOT_ALLOWED")


def test_malformed_json_and_non_object_bodies(client):
    assert_envelope(client.post("/v1/auth/login", "{not json", content_type="application/json"), 400, "BAD_REQUEST")
    for body in ("[1, 2]", '"text"', "42", "null"):
        assert_envelope(client.post("/v1/auth/login", body, content_type="application/json"), 400, "BAD_REQUEST")


def test_unsupported_media_type(client):
    assert_envelope(client.post("/v1/auth/login", "a=b", content_type="text/plain"), 415, "UNSUPPORTED_MEDIA_TYPE")


def test_body_over_the_limit(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = '{"email": "' + "a" * 2000 + '"}'
    assert_envelope(client.post("/v1/auth/login", body, content_type="application/json"), 413, "PAYLOAD_TOO_LARGE")


def test_validation_details_name_nested_fields(api, member, org):
    _, token = member(org, "admin")
    body = assert_envelope(
        api(token).patch("/v1/organizations/me", {"filer_profile": {"address": {"country": "ZZ"}}}, format="json"),
        422, "VALIDATION_ERROR",
    )
    fields = {d["field"] for d in body["error"]["details"]}
    assert fields == {"filer_profile.address.country", "filer_profile.address.line1", "filer_profile.address.city"}


@override_settings(ROOT_URLCONF="tests.common.test_errors")
def test_exceptions_become_500_without_a_trace(client):
    client.raise_request_exception = False
    for url in ("/v1/boom", "/v1/boom-plain"):
        body = assert_envelope(client.get(url), 500, "INTERNAL_ERROR")
        assert "secret" not in str(body) and "Traceback" not in str(body)


def test_request_id_is_echoed_or_generated(client):
    response = client.get("/health/live", HTTP_X_REQUEST_ID="abc-123")
    assert response["X-Request-Id"] == "abc-123"
    generated = client.get("/health/live", HTTP_X_REQUEST_ID="bad id with spaces")
    assert generated["X-Request-Id"].startswith("req_")


def test_bad_mode_header(api, member, org):
    _, token = member(org)
    assert_envelope(api(token, HTTP_X_MODE="prod").get("/v1/organizations/me"), 400, "BAD_REQUEST")
