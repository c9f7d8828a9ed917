"""The published OpenAPI document is a contract: 3.1, version 0.1.0, every operation with schemas."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/v1/openapi.json")
    assert response.status_code == 200 and "json" in response["Content-Type"]
    return response.json()


def test_document_header(schema):
    assert schema["openapi"] == "3.1.0"
    assert schema["info"]["version"] == "0.1.0" and schema["info"]["title"]


def test_every_operation_has_an_id_responses_and_error_schema(schema):
    operations = [(path, method, op) for path, item in schema["paths"].items() for method, op in item.items()]
    assert len(operations) >= 20
    ids = [op["operationId"] for _, _, op in operations]
    assert len(ids) == len(set(ids))
    for path, method, op in operations:
        assert path.startswith("/v1/"), path
        success = [code for code in op["responses"] if code.startswith("2") or code == "302"]  # sign-in redirects
        assert success, (path, method)
        if method != "get":
            assert "422" in op["responses"], (path, method)
    assert schema["components"]["schemas"]["Error"]["required"] == ["error"]


# Operations without credentials that check a signature of their own instead: 401 when it fails.
SIGNED_PATHS = ("/v1/webhooks/", "/v1/travel-rule/vasps/")


def test_every_operation_is_described_and_documents_its_401(schema):
    """A description on every operation, and a 401 on each that takes credentials (the security it
    declares) or a signature; the fuzzer found 13 operations without one and two signed ones answering
    an undocumented 401."""
    undescribed, without_401 = [], []
    for path, item in schema["paths"].items():
        for method, op in item.items():
            if not (op.get("description") or "").strip():
                undescribed.append(f"{method.upper()} {path}")
            secured = op.get("security") not in (None, [], [{}]) and {} not in op["security"]
            if (secured or path.startswith(SIGNED_PATHS)) and "401" not in op["responses"]:
                without_401.append(f"{method.upper()} {path}")
    assert undescribed == [] and without_401 == []
    for path in ("/v1/travel-rule/vasps/{vasp_id}/inquiry", "/v1/travel-rule/vasps/{vasp_id}/reply"):
        assert {"401", "403"} <= set(schema["paths"][path]["post"]["responses"]), path


def test_a_429_documents_retry_after_and_the_rate_limit_headers(schema):
    throttled = schema["paths"]["/v1/onboarding/entities"]["get"]["responses"]["429"]
    assert set(throttled["headers"]) == {"Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"}


def test_request_and_response_bodies_are_real_schemas(schema):
    login = schema["paths"]["/v1/auth/login"]["post"]
    assert "requestBody" in login
    ref = login["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert set(schema["components"]["schemas"][ref]["properties"]) == {"user", "session_token", "expires_at"}


def test_the_document_validates_as_openapi_31(schema):
    from openapi_spec_validator import validate

    validate(schema)


def test_swagger_and_redoc_pages(client):
    for url in ("/v1/docs", "/v1/redoc"):
        response = client.get(url)
        assert response.status_code == 200 and b"openapi.json" in response.content


def test_only_ingestion_documents_the_busy_answer(schema):
    busy = sorted((path, method) for path, item in schema["paths"].items() for method, op in item.items() if "503" in op["responses"])
    assert busy == [("/v1/monitoring/fiat-events", "post"), ("/v1/monitoring/transfers", "post"),
                    ("/v1/monitoring/transfers/batch", "post")]


def test_alert_transaction_count_is_a_required_integer(schema):
    for name in ("CustomerAlertResponse", "CustomerAlertDetailResponse"):
        component = schema["components"]["schemas"][name]
        assert component["properties"]["transaction_count"]["type"] == "integer" and "transaction_count" in component["required"]


def _resolved(schema, node):
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def test_every_list_taking_limit_and_offset_documents_the_page_it_answers(schema):
    """common.api.pagination answers {"data", "total", "limit", "offset", "has_more"}: a list that pages
    by hand must say so too (it used to document a bare array)."""
    paged = []
    for path, item in schema["paths"].items():
        if path in ("/v1/monitoring/notifications", "/v1/onboarding/entities/{entity_id}/audit", "/v1/monitoring/314a/files",
                    "/v1/monitoring/314a/files/{file_id}/matches", "/v1/monitoring/314b/requests"):
            # shapes of their own: {"notifications", "unread_count"} and a plain array (README, "Lists"),
            # {"files"/"matches"/"requests", "total"} (docs/information-sharing.md)
            continue
        op = item.get("get")
        names = {parameter["name"] for parameter in (op or {}).get("parameters", [])}
        if not {"limit", "offset"} <= names:
            continue
        body = _resolved(schema, op["responses"]["200"]["content"]["application/json"]["schema"])
        assert set(body.get("properties", ())) == {"data", "total", "limit", "offset", "has_more"}, path
        assert _resolved(schema, body["properties"]["data"])["type"] == "array", path
        paged.append(path)
    assert "/v1/onboarding/entities/{entity_id}/alerts" in paged and len(paged) >= 10


def test_the_wallets_list_is_the_plain_array_it_answers(schema):
    """It answers a plain array and takes no limit/offset; the document said a page of them."""
    operation = schema["paths"]["/v1/onboarding/entities/{entity_id}/wallets"]["get"]
    assert operation["responses"]["200"]["content"]["application/json"]["schema"]["type"] == "array"
    assert not {p["name"] for p in operation.get("parameters", [])} & {"limit", "offset"}


def test_public_operations_document_the_errors_they_give(schema):
    """Sign-in answers 401 for wrong credentials and 429 when throttled; a provider callback 401 for a bad signature."""
    for path in ("/v1/auth/login", "/v1/auth/resend-verification"):
        assert {"401", "429"} <= set(schema["paths"][path]["post"]["responses"]), path
    assert "401" in schema["paths"]["/v1/webhooks/kyb-provider"]["post"]["responses"]
    assert "429" not in schema["paths"]["/v1/auth/register"]["post"]["responses"]


def test_limits_and_strict_bodies_are_documented_as_enforced(schema):
    """A client validating against the document sends nothing the API then refuses for reasons the
    document could state: every limit's bounds and default, every offset's bounds, and request bodies
    that refuse undeclared fields (StrictSerializer) say additionalProperties: false."""
    bounds = {}
    for path, item in schema["paths"].items():
        for parameter in (item.get("get") or {}).get("parameters", []):
            if parameter["name"] in ("limit", "offset"):
                bounds[(path, parameter["name"])] = parameter["schema"]
    assert len(bounds) >= 25
    for (path, name), found in bounds.items():
        assert found["minimum"] == (1 if name == "limit" else 0) and found["maximum"] >= 5 and "default" in found, (path, name)
    assert bounds[("/v1/onboarding/entities/{entity_id}/activity", "limit")]["maximum"] == 200
    components = schema["components"]["schemas"]
    assert components["AlertDispositionCreateRequest"]["additionalProperties"] is False
    assert "additionalProperties" not in components["CustomerAlertResponse"]


def test_request_bodies_carry_the_specs_names(schema):
    """A serializer named for its request keeps its name (no 'OnboardEntityRequestRequest'), so the
    document's request bodies carry the published names: body OnboardEntityRequest, EntityReviewRequest, …"""
    names = set(schema["components"]["schemas"])
    assert not [name for name in names if name.endswith("RequestRequest")]
    spec_names = {"BatchStatusRequest", "CaseAssignRequest", "CreateOrgRequest", "EntityReviewRequest", "ForgotPasswordRequest",
                  "InviteRequest", "LoginRequest", "OnboardEntityRequest", "RegisterRequest", "ResetPasswordRequest"}
    assert spec_names <= names
    approve = schema["paths"]["/v1/onboarding/entities/{entity_id}/approve"]["post"]["requestBody"]["content"]["application/json"]
    assert approve["schema"]["$ref"] == "#/components/schemas/EntityReviewRequest"


def test_sso_operations_are_documented(schema):
    paths = schema["paths"]
    create = paths["/v1/sso/connections"]["post"]
    assert create["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/SSOConnectionCreate")
    assert set(create["responses"]) >= {"201", "401", "403", "422"}
    assert {"get", "patch", "delete"} <= set(paths["/v1/sso/connections/{connection_id}"])
    verify = paths["/v1/sso/connections/{connection_id}/verify-domain"]["post"]["requestBody"]["content"]["application/json"]
    assert verify["schema"]["$ref"].endswith("/VerifyDomainRequest")
    check = paths["/v1/sso/check"]["post"]
    assert check["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/SSOCheckResponse")
    assert check.get("security") in (None, [], [{}])
    callback = paths["/v1/sso/oidc/callback"]["get"]["responses"]
    assert {"302", "400", "401", "403", "422", "502"} <= set(callback)
    response = schema["components"]["schemas"]["SSOConnectionResponse"]["properties"]
    assert "client_secret" in schema["components"]["schemas"]["OIDCSettingsResponse"]["properties"] and "oidc" in response


def test_saml_and_google_sign_in_are_documented(schema):
    paths = schema["paths"]
    metadata = paths["/v1/sso/saml/metadata"]["get"]
    assert "application/samlmetadata+xml" in metadata["responses"]["200"]["content"]
    assert [p["name"] for p in metadata["parameters"]] == ["connection_id"]
    login = paths["/v1/sso/saml/login"]["get"]
    assert {p["name"] for p in login["parameters"]} == {"connection_id", "redirect_url"} and {"302", "502"} <= set(login["responses"])
    acs = paths["/v1/sso/saml/acs"]["post"]
    form = acs["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"]
    assert form["$ref"].endswith("/SAMLACSForm") and {"302", "400", "401", "403", "422"} <= set(acs["responses"])
    google = paths["/v1/auth/google"]["get"]
    assert [p["name"] for p in google["parameters"]] == ["redirect_url"] and "302" in google["responses"]
    callback = paths["/v1/auth/google/callback"]["get"]
    assert {p["name"] for p in callback["parameters"]} == {"code", "state"}
    assert {"302", "400", "401", "403", "422", "502"} <= set(callback["responses"])
    for operation in (metadata, login, acs, google, callback):
        assert operation.get("security") in (None, [], [{}])


def test_the_signed_travel_rule_operations_document_the_429_they_can_answer(schema, api, org, key, settings):
    """Found by the contract fuzz (tests/fuzz): a VASP id that is not a UUID reaches the /v1 fallback,
    which counts an API key sent along, so a key over its limit gets a 429 there; the document listed
    401 and 403 only. Nothing is stored either way."""
    from compliance.models import InboundTravelRuleTransfer

    settings.RATE_LIMIT_TIERS = {**settings.RATE_LIMIT_TIERS, "standard": 1}
    client = api(key(org))
    first = client.post("/v1/travel-rule/vasps/not-a-uuid/inquiry", b"{}", content_type="application/json")
    second = client.post("/v1/travel-rule/vasps/not-a-uuid/reply", b"{}", content_type="application/json")
    assert first.status_code == 404 and first.json()["error"]["code"] == "NOT_FOUND"
    assert second.status_code == 429 and second.json()["error"]["code"] == "RATE_LIMIT_EXCEEDED" and int(second["Retry-After"]) >= 1
    assert InboundTravelRuleTransfer.objects.count() == 0
    for path in ("/v1/travel-rule/vasps/{vasp_id}/inquiry", "/v1/travel-rule/vasps/{vasp_id}/reply"):
        answers = schema["paths"][path]["post"]["responses"]
        assert {"401", "403", "429"} <= set(answers) and "Retry-After" in answers["429"]["headers"], path


def test_every_operation_documents_the_414_and_431_gunicorn_gives_before_django(schema):
    """Found by the contract fuzz (tests/fuzz): GET /v1/sso/oidc/callback with a query of 4 KB answered
    414 URI_TOO_LONG (gunicorn's request-line limit, config/gunicorn_errors.py), which the document did not
    list; any operation, public ones included, can answer it, and 431 for oversized headers."""
    for path, item in schema["paths"].items():
        for method, op in item.items():
            for code in ("414", "431"):
                assert op["responses"][code]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}, \
                    (method, path, code)
