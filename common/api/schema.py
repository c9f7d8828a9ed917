"""OpenAPI: security schemes for our credentials and the error envelope on every operation."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema

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
    "422": "A field is missing, of the wrong type or out of range (VALIDATION_ERROR).",
    "429": "Rate limit exceeded (RATE_LIMIT_EXCEEDED).",
    "503": "Chosen to break a lock cycle with concurrent writes on every retry; nothing stored, send again (SERVICE_BUSY).",
}
# Only ingestion retries its transaction and can give up (monitoring.ingestion.retry).
RETRIED_PATHS = ("/v1/monitoring/transfers", "/v1/monitoring/fiat-events")


class AutoSchema(SpectacularAutoSchema):
    pass


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
            for code, description in ERROR_STATUSES.items():
                if code in responses:
                    continue
                if public_op and code in ("401", "403", "429"):
                    continue
                if method == "get" and code in ("400", "409", "413"):
                    continue
                if code == "503" and not (method == "post" and path.startswith(RETRIED_PATHS)):
                    continue
                responses[code] = {"description": description, "content": {"application/json": {"schema": ref}}}
    return result


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
