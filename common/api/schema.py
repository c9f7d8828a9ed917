"""OpenAPI: security schemes for our credentials and the error envelope on every operation."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import force_instance

from common.api.serializers import StrictSerializer

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "examples": ["VALIDATION_ERROR"]},
                "message": {"type": "string"},
                "details": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"field": {"type": ["string", "null"]}, "message": {"type": "string"}},
                        "required": ["message"],
                    },
                },
            },
        }
    },
}

ERROR_STATUSES = {
    "400": "Body is not JSON, or not an object (BAD_REQUEST).",
    "401": "No, unknown or revoked credential (UNAUTHENTICATED).",
    "403": "Role too low, or wrong kind of credential (FORBIDDEN).",
    "404": "Unknown id, or another organization's or mode's (NOT_FOUND).",
    "409": "State transition not allowed (CONFLICT).",
    "413": "Body over the limit (PAYLOAD_TOO_LARGE).",
    "414": "The request line (method, path and query) is over 4,094 bytes (URI_TOO_LONG); gunicorn answers it for every operation.",
    "422": "A field is missing, of the wrong type or out of range (VALIDATION_ERROR).",
    "429": "Rate limit exceeded (RATE_LIMIT_EXCEEDED); Retry-After says in how many seconds to send again.",
    "431": "The request headers are too many or too large (HEADERS_TOO_LARGE); gunicorn answers it for every operation.",
    "503": "Chosen to break a lock cycle with concurrent writes on every retry; nothing stored, send again (SERVICE_BUSY).",
}
# Only ingestion retries its transaction and can give up (monitoring.ingestion.retry).
RETRIED_PATHS = ("/v1/monitoring/transfers", "/v1/monitoring/fiat-events")
# Operations without credentials that still answer these: the sign-in throttle (accounts.services.
# credentials_check), the providers' signed callbacks (webhooks.inbound) and the counterparty VASPs'
# signed messages (compliance.travel_rule.vasp_exchange: an unknown VASP or a bad signature 401, a disabled one 403;
# an id that is not a UUID reaches the /v1 fallback, which counts an API key sent along: 429 over its limit).
PUBLIC_ERRORS = {"/v1/auth/login": ("401", "429"), "/v1/auth/resend-verification": ("401", "429"), "/v1/webhooks/": ("401",),
                 "/v1/travel-rule/vasps/": ("401", "403", "429")}
# The SSO sign-in endpoints (public: the browser comes back from the identity provider) answer
# these in the envelope, with their own codes (accounts.sso.errors).
SSO_ERRORS = {
    "400": "This sign-in's state is unknown, used, expired or from another browser (SSO_STATE_INVALID).",
    "401": "The identity provider's answer failed verification (SSO_ASSERTION_INVALID).",
    "403": "The identity provider refused, or this identity may not sign in here (SSO_ACCESS_DENIED).",
    "502": "The identity provider could not be reached or answered nonsense (SSO_PROVIDER_UNAVAILABLE).",
}
SSO_ERROR_CODES = {"/v1/sso/oidc/login": ("502",), "/v1/sso/saml/login": ("502",),
                   "/v1/sso/oidc/callback": tuple(SSO_ERRORS), "/v1/sso/saml/acs": tuple(SSO_ERRORS),
                   "/v1/auth/google/callback": tuple(SSO_ERRORS)}


class AutoSchema(SpectacularAutoSchema):
    def _get_serializer_name(self, serializer, direction, bypass_extensions=False) -> str:
        """A request serializer already named for it (OnboardEntityRequest: the API's published names) keeps
        its name: COMPONENT_SPLIT_REQUEST would append 'Request' once more (OnboardEntityRequestRequest)."""
        spec_name = getattr(serializer, "request_component_name", None)
        if direction == "request" and spec_name:  # a published name for a request body not ending in "Request"
            return spec_name
        name = super()._get_serializer_name(serializer, direction, bypass_extensions)
        return name.removesuffix("Request") if direction == "request" and name.endswith("RequestRequest") else name

    def _map_basic_serializer(self, serializer, direction):
        """A StrictSerializer's request body refuses fields it does not declare: say so."""
        schema = super()._map_basic_serializer(serializer, direction)
        if direction == "request" and isinstance(force_instance(serializer), StrictSerializer):
            schema["additionalProperties"] = False
        return schema


def add_error_responses(result, generator, request, public):
    """Postprocessing hook: the Error component, and the error statuses on every operation."""
    components = result.setdefault("components", {})
    components.setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    ref = {"$ref": "#/components/schemas/Error"}
    for path, methods in result.get("paths", {}).items():
        for method, operation in methods.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            responses = operation.setdefault("responses", {})
            public_op = not operation.get("security") or operation.get("security") == [{}]
            for code in SSO_ERROR_CODES.get(path, ()):
                responses.setdefault(code, {"description": SSO_ERRORS[code], "content": {"application/json": {"schema": ref}}})
            for code, description in ERROR_STATUSES.items():
                if code in responses:
                    continue
                if public_op and code in ("401", "403", "429") and not _public_answers(path, code):
                    continue
                if method == "get" and code in ("400", "409", "413"):
                    continue
                if code == "503" and not (method == "post" and path.startswith(RETRIED_PATHS)):
                    continue
                responses[code] = {"description": description, "content": {"application/json": {"schema": ref}}}
                if code == "429":
                    responses[code]["headers"] = RATE_LIMIT_HEADERS
    return result


_SECONDS = {"type": "integer", "minimum": 0}
RATE_LIMIT_HEADERS = {
    "Retry-After": {"description": "Seconds until a request is counted again.", "schema": {**_SECONDS, "minimum": 1}},
    "X-RateLimit-Limit": {"description": "Requests per window.", "schema": _SECONDS},
    "X-RateLimit-Remaining": {"description": "Requests left in the window (0).", "schema": _SECONDS},
    "X-RateLimit-Reset": {"description": "Unix time when the oldest counted request leaves the window.", "schema": _SECONDS},
}


ANSWERS_NULL = "x-answers-null"
"""extend_schema(extensions={ANSWERS_NULL: True}): the 200 body may be a JSON null (documented as 'X or null')."""
_ANY_OR_NULL = ({}, {"type": "null"})


def fix_nullables(result, generator, request, public):
    """Postprocessing hook. A nullable JSONField comes out as oneOf [{}, null], which no value satisfies
    (null matches both): it becomes {} (any value, null included). An operation marked ANSWERS_NULL
    documents its 200 body as the schema or null."""
    def walk(node):
        if isinstance(node, dict):
            if "oneOf" in node and len(node["oneOf"]) == 2 and all(part in node["oneOf"] for part in _ANY_OR_NULL):
                del node["oneOf"]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(result.get("components", {}))
    for methods in result.get("paths", {}).values():
        for operation in methods.values():
            if isinstance(operation, dict) and operation.pop(ANSWERS_NULL, False):
                content = operation["responses"]["200"]["content"]["application/json"]
                content["schema"] = {"oneOf": [content["schema"], {"type": "null"}]}
    return result


def _public_answers(path: str, code: str) -> bool:
    return any(path.startswith(prefix) and code in codes for prefix, codes in PUBLIC_ERRORS.items())


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "common.authentication.ApiKeyAuthentication"
    name = "apiKey"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "API key: sk_test_… or sk_live_…"}


class SessionTokenScheme(OpenApiAuthenticationExtension):
    target_class = "common.authentication.SessionTokenAuthentication"
    name = "sessionToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "Session token st_… from POST /v1/auth/login"}


class CookieScheme(OpenApiAuthenticationExtension):
    target_class = "common.authentication.CookieSessionAuthentication"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}
