"""The error envelope on every path (docs/architecture.md §4)."""

import re

import pytest
from django.test import override_settings
from django.test.client import encode_multipart
from django.urls import path

from common.api.views import V1APIView
from common.models import AuditLogEntry
from onboarding.models import Entity

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
    body = assert_envelope(client.get("/v1/does/not/exist"), 404, "NOT_FOUND")
    assert body["error"]["message"].startswith("No operation at GET /v1/does/not/exist.") and "/v1/docs" in body["error"]["message"]
    assert_envelope(client.post("/v1"), 404, "NOT_FOUND")


def test_the_bare_address_leads_to_the_api_pages(client):
    response = client.get("/")
    assert response.status_code == 302 and response["Location"] == "/v1/docs"


def deeply_nested(levels: int) -> str:
    return '{"email": "a@b.example", "password": "x", "extra": ' + "[" * levels + "]" * levels + "}"


def test_deeply_nested_json_is_a_400_not_a_500(client, api, org, key):
    """100,000 nested arrays overflowed the decoder (RecursionError: a 500, even without credentials)."""
    for body in ("[" * 100_000 + "]" * 100_000, deeply_nested(100_000), deeply_nested(64)):
        response = client.post("/v1/auth/login", body, content_type="application/json")
        message = assert_envelope(response, 400, "BAD_REQUEST")["error"]["message"]
        assert "more than 64 levels deep" in message, message
    endpoints = api(key(org, role="admin")).post(
        "/v1/developer/webhook-endpoints", '{"url": "https://hooks.example/in", "event_types": ' + "[" * 5000 + "]" * 5000 + "}",
        content_type="application/json")
    assert_envelope(endpoints, 400, "BAD_REQUEST")
    assert not AuditLogEntry.objects.filter(organization=org, action__startswith="webhook").exists()


def test_nesting_up_to_the_limit_is_parsed(client):
    """63 arrays inside the body's object: 64 levels, parsed; the login then fails on the credentials."""
    response = client.post("/v1/auth/login", deeply_nested(63), content_type="application/json")
    assert response.status_code != 400, response.json()
    assert response.json()["error"]["code"] in ("VALIDATION_ERROR", "INVALID_CREDENTIALS"), response.json()


@pytest.mark.parametrize("body", [
    '{"legal_name": "Nova Traders", "entity_type": "business", "jurisdiction": "US", "legal_name": "Someone Else"}',
    '{"legal_name": "Nova Traders", "entity_type": "business", "jurisdiction": "US", "address": {"city": "A", "city": "B"}}',
])
def test_a_key_named_twice_in_one_object_is_a_400_and_stores_nothing(client, org, key, body):
    """Python's json keeps the last of two values silently; which one the caller meant is not knowable."""
    response = client.post("/v1/onboarding/entities", body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {key(org)}")
    assert response.status_code == 400
    twice = "legal_name" if body.count("legal_name") == 2 else "city"
    assert response.json() == {"error": {"code": "BAD_REQUEST", "message": f'The request body has the key "{twice}" twice in one object; '
                                                                            "send each key once."}}
    assert not Entity.objects.exists() and not AuditLogEntry.objects.filter(action__startswith="entity.").exists()


def test_the_same_key_in_different_objects_and_nan_are_judged_as_before(client, org, key):
    ok = client.post("/v1/onboarding/entities", '{"legal_name": "Nova", "entity_type": "business", "jurisdiction": "US", '
                     '"address": {"legal_name": "x"}}', content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {key(org)}")
    assert ok.status_code != 400, ok.json()
    nan = client.post("/v1/auth/login", '{"email": "a@b.example", "password": NaN}', content_type="application/json")
    assert_envelope(nan, 400, "BAD_REQUEST")


def test_method_not_allowed(api, org, key):
    assert_envelope(api(key(org)).put("/v1/developer/api-keys"), 405, "METHOD_NOT_ALLOWED")
    form = api(key(org)).put("/v1/developer/api-keys", "a=b", content_type="application/x-www-form-urlencoded")
    assert_envelope(form, 405, "METHOD_NOT_ALLOWED")  # no such operation, whatever the body


def test_malformed_json_and_non_object_bodies(client):
    assert_envelope(client.post("/v1/auth/login", "{not json", content_type="application/json"), 400, "BAD_REQUEST")
    for body in ("[1, 2]", '"text"', "42", "null"):
        assert_envelope(client.post("/v1/auth/login", body, content_type="application/json"), 400, "BAD_REQUEST")


def test_unsupported_media_type(client):
    assert_envelope(client.post("/v1/auth/login", "a=b", content_type="text/plain"), 415, "UNSUPPORTED_MEDIA_TYPE")


class TestJSONOnly:
    """curl -d '{...}' without a Content-Type sends application/x-www-form-urlencoded: a 415 telling to send JSON."""

    ENTITY = '{"legal_name": "Nova Traders", "entity_type": "business", "jurisdiction": "US"}'

    def test_form_encoded_json_text_is_415_and_stores_nothing(self, client, org, key):
        response = client.post("/v1/onboarding/entities", self.ENTITY, content_type="application/x-www-form-urlencoded",
                               HTTP_AUTHORIZATION=f"Bearer {key(org)}")
        body = assert_envelope(response, 415, "UNSUPPORTED_MEDIA_TYPE")
        assert body["error"]["message"] == ('Unsupported media type "application/x-www-form-urlencoded" in request. '
                                            "The API takes JSON: send the body with `Content-Type: application/json`.")
        assert not Entity.objects.exists() and not AuditLogEntry.objects.filter(action__startswith="entity.").exists()

    def test_multipart_is_415(self, client, member, org):
        _, token = member(org, "admin")
        response = client.patch("/v1/organizations/me", encode_multipart("xYz", {"name": "Renamed"}),
                                           content_type="multipart/form-data; boundary=xYz", HTTP_AUTHORIZATION=f"Bearer {token}")
        assert_envelope(response, 415, "UNSUPPORTED_MEDIA_TYPE")
        org.refresh_from_db()
        assert org.name == "Acme"

    def test_refused_even_where_the_view_reads_no_body(self, client, api, member, org):
        _, token = member(org)
        response = client.post("/v1/auth/logout", "a=b", content_type="application/x-www-form-urlencoded",
                               HTTP_AUTHORIZATION=f"Bearer {token}")
        assert_envelope(response, 415, "UNSUPPORTED_MEDIA_TYPE")
        assert api(token).get("/v1/auth/me").status_code == 200  # still signed in

    def test_json_with_a_charset_and_bodyless_writes_still_work(self, client, api, member, org, key):
        response = client.post("/v1/onboarding/entities", self.ENTITY, content_type="application/json; charset=utf-8",
                               HTTP_AUTHORIZATION=f"Bearer {key(org)}")
        assert response.status_code == 201, response.json()
        assert Entity.objects.get().legal_name == "Nova Traders"
        _, token = member(org)
        assert client.generic("POST", "/v1/auth/logout", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 200  # curl -X POST
        assert api(token).get("/v1/auth/me").status_code == 401


def test_body_over_the_limit(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = '{"email": "' + "a" * 2000 + '"}'
    assert_envelope(client.post("/v1/auth/login", body, content_type="application/json"), 413, "PAYLOAD_TOO_LARGE")


@pytest.mark.parametrize(("size", "status"), [(1000, 422), (1001, 413)])
def test_a_chunked_body_is_held_to_the_same_limit_to_the_byte(client, settings, size, status):
    """The middleware reads a chunked body (no Content-Length) itself, as the server has de-chunked it
    (tests/common/test_chunked_bodies.py sends real ones through gunicorn)."""
    import io

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = ('{"email": "a@b.example", "password": "' + "x" * 1000)[:size - 2].encode() + b'"}'
    assert len(body) == size
    response = client.generic("POST", "/v1/auth/login", HTTP_TRANSFER_ENCODING="chunked",  # no Content-Length, as gunicorn passes it
                              **{"wsgi.input": io.BytesIO(body), "CONTENT_TYPE": "application/json"})
    assert response.status_code == status, response.json()
    if status == 413:
        assert response.json() == {"error": {"code": "PAYLOAD_TOO_LARGE", "message": "The request body is larger than 1000 bytes."}}
    else:  # read in full: the password is judged (too long), not found missing as in an empty body
        assert [d["field"] for d in response.json()["error"]["details"]] == ["password"]


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


def test_an_unknown_id_names_what_was_looked_for(api, org, key):
    client = api(key(org))
    for url, message in (("/v1/onboarding/entities/00000000-0000-0000-0000-000000000000", "No entity of yours has this id."),
                          ("/v1/developer/webhook-endpoints/00000000-0000-0000-0000-000000000000",
                           "No webhook endpoint of yours has this id.")):
        body = assert_envelope(client.get(url), 404, "NOT_FOUND")
        assert body["error"]["message"] == f"{message} (These credentials see test-mode records only.)"


def test_a_misspelt_field_is_reported_with_the_missing_ones(api, org, key):
    """One answer lists every mistake: the field not accepted and the required fields it was meant to be."""
    from onboarding.models import Entity

    body = assert_envelope(api(key(org)).post("/v1/onboarding/entities", {"name": "X"}, format="json"), 422, "VALIDATION_ERROR")
    fields = {detail["field"]: detail["message"] for detail in body["error"]["details"]}
    assert fields["name"] == "This field is not accepted here."
    assert {"legal_name", "entity_type", "jurisdiction"} <= set(fields)
    assert not Entity.objects.exists()


def test_a_live_key_asking_for_a_test_record_is_told_its_mode(api, org, key):
    created = api(key(org, mode="test")).post("/v1/onboarding/entities", {"legal_name": "Acme", "entity_type": "business",
                                                                          "jurisdiction": "US"}, format="json")
    assert created.status_code == 201
    body = assert_envelope(api(key(org, mode="live")).get(f"/v1/onboarding/entities/{created.json()['id']}"), 404, "NOT_FOUND")
    assert body["error"]["message"] == "No entity of yours has this id. (These credentials see live-mode records only.)"


def test_ingestion_for_another_modes_entity_is_told_its_mode(api, org, key):
    from monitoring.models import FiatEvent

    created = api(key(org, mode="test")).post("/v1/onboarding/entities", {"legal_name": "Acme", "entity_type": "business",
                                                                          "jurisdiction": "US"}, format="json")
    event = {"entity_id": created.json()["id"], "event_type": "wire_in", "amount": "15000", "event_timestamp": "2026-11-01T10:00:00Z"}
    body = assert_envelope(api(key(org, mode="live")).post("/v1/monitoring/fiat-events", event, format="json"), 422, "VALIDATION_ERROR")
    assert body["error"]["details"] == [{"field": "entity_id",
                                         "message": "No entity of yours has this id (these credentials see live-mode records only)."}]
    assert not FiatEvent.objects.exists()


def test_no_credentials_says_how_to_send_them(api):
    body = assert_envelope(api().get("/v1/onboarding/entities"), 401, "UNAUTHENTICATED")
    assert body["error"]["message"].startswith("No credentials were sent: send the header Authorization: Bearer <key>")


def test_an_unknown_path_does_not_blame_the_mode(api, org, key):
    body = assert_envelope(api(key(org)).get("/v1/does/not/exist"), 404, "NOT_FOUND")
    assert "These credentials see" not in body["error"]["message"]


def test_options_answers_every_operation(api, org, key, settings):
    """OPTIONS on any documented path is answered (200 with the view's name, or 403 where the operation
    takes a session rather than an API key), also where the view validates its body with a request
    serializer of its own and declares none (those were a 500)."""
    from drf_spectacular.generators import SchemaGenerator

    settings.RATE_LIMIT_ENABLED = False
    client = api(key(org, tier="premium"))
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    failed = {}
    for template in paths:
        url = re.sub(r"\{[^}]+\}", "00000000-0000-0000-0000-000000000000", template.replace("{chain_id}", "1"))
        response = client.options(url)
        answered = response.status_code == 403 or (response.status_code == 200 and "name" in response.json())
        if not answered:
            failed[template] = response.status_code
    assert len(paths) > 80 and failed == {}


def test_an_offset_past_any_list_is_a_422(api, org, key):
    client = api(key(org))
    for url in ("/v1/onboarding/entities", "/v1/developer/api-keys", "/v1/monitoring/notifications"):
        body = assert_envelope(client.get(url, {"offset": 10**30}), 422, "VALIDATION_ERROR")
        assert body["error"]["details"][0]["field"] == "offset", url
        assert client.get(url, {"offset": 2**31 - 1}).status_code == 200


def test_a_refused_choice_lists_the_values_taken(api, org, key):
    body = {"legal_name": "Acme", "entity_type": "company", "jurisdiction": "US"}
    error = assert_envelope(api(key(org)).post("/v1/onboarding/entities", body, format="json"), 422, "VALIDATION_ERROR")
    assert error["error"]["details"] == [{"field": "entity_type", "message": '"company" is not one of: individual, business.'}]
    assert not Entity.objects.exists()
