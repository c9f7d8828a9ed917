"""One error envelope for every failure (docs/architecture.md §4):
{"error": {"code": ..., "message": ..., "details": [{"field": ..., "message": ...}]}}
"""

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response

logger = logging.getLogger("common.errors")


class ServiceError(Exception):
    """Raised by services and views; carries its HTTP status, code and details."""

    status_code = status.HTTP_400_BAD_REQUEST
    code = "BAD_REQUEST"
    default_message = "The request could not be processed."
    default_headers: dict[str, str] = {}

    def __init__(self, message: str | None = None, *, code: str | None = None, details=None, headers=None):
        self.message = message or self.default_message
        if code:
            self.code = code
        self.details = details or []
        self.headers = headers or dict(self.default_headers)
        super().__init__(self.message)


class BadRequest(ServiceError):
    pass


class Unauthenticated(ServiceError):
    status_code = 401
    code = "UNAUTHENTICATED"
    default_message = ("No credentials were sent: send the header Authorization: Bearer <key>, with an API key or a session "
                       "token from POST /v1/auth/login.")
    default_headers = {"WWW-Authenticate": 'Bearer realm="api"'}


class Forbidden(ServiceError):
    status_code = 403
    code = "FORBIDDEN"
    default_message = "Your role does not allow this operation."


class NotFound(ServiceError):
    status_code = 404
    code = "NOT_FOUND"
    default_message = "Not found."
    about_a_record = True
    """False for a path no operation answers: the credentials' mode has nothing to do with it."""


class Conflict(ServiceError):
    status_code = 409
    code = "CONFLICT"
    default_message = "The request conflicts with the current state."


class PayloadTooLarge(ServiceError):
    status_code = 413
    code = "PAYLOAD_TOO_LARGE"
    default_message = "The request body is larger than allowed."


class ValidationFailed(ServiceError):
    status_code = 422
    code = "VALIDATION_ERROR"
    default_message = "The request has invalid fields."

    def __init__(self, message: str | None = None, **kwargs):
        details = kwargs.get("details") or []
        super().__init__(message or (_summary(details) if details else None), **kwargs)

    @classmethod
    def for_field(cls, field: str | None, message: str) -> "ValidationFailed":
        return cls(message, details=[{"field": field, "message": message}])


class RateLimited(ServiceError):
    status_code = 429
    code = "RATE_LIMIT_EXCEEDED"


class ServiceBusy(ServiceError):
    """The work collided with concurrent writes more often than it is retried; nothing was stored."""

    status_code = 503
    code = "SERVICE_BUSY"
    default_message = "The request collided with concurrent writes and nothing was stored; send it again."
    default_headers = {"Retry-After": "1"}


def envelope(code: str, message: str, details=None) -> dict:
    body = {"error": {"code": code, "message": message}}
    if details:
        body["error"]["details"] = details
    return body


def flatten_details(detail, prefix: str = "") -> list[dict]:
    """DRF's nested error detail → [{"field": "a.b.0.c", "message": "..."}]."""
    if isinstance(detail, dict):
        items = []
        for key, value in detail.items():
            name = prefix if key in ("non_field_errors", "__all__") else f"{prefix}.{key}" if prefix else str(key)
            items.extend(flatten_details(value, name))
        return items
    if isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            return [{"field": prefix or None, "message": str(item)} for item in detail]
        items = []
        for index, value in enumerate(detail):
            if value:
                items.extend(flatten_details(value, f"{prefix}.{index}" if prefix else str(index)))
        return items
    return [{"field": prefix or None, "message": str(detail)}]


def _summary(details: list[dict]) -> str:
    first = details[0] if details else None
    if not first:
        return ValidationFailed.default_message
    where = f"{first['field']}: " if first.get("field") else ""
    more = f" (and {len(details) - 1} more)" if len(details) > 1 else ""
    return f"{where}{first['message']}{more}"


DRF_CODES = {
    exceptions.ParseError: (400, "BAD_REQUEST"),
    exceptions.AuthenticationFailed: (401, "UNAUTHENTICATED"),
    exceptions.NotAuthenticated: (401, "UNAUTHENTICATED"),
    exceptions.PermissionDenied: (403, "FORBIDDEN"),
    exceptions.NotFound: (404, "NOT_FOUND"),
    exceptions.MethodNotAllowed: (405, "METHOD_NOT_ALLOWED"),
    exceptions.NotAcceptable: (406, "NOT_ACCEPTABLE"),
    exceptions.UnsupportedMediaType: (415, "UNSUPPORTED_MEDIA_TYPE"),
    exceptions.Throttled: (429, "RATE_LIMIT_EXCEEDED"),
}


def _drf_message(exc: exceptions.APIException, media_types: list[str]) -> str:
    if isinstance(exc, exceptions.UnsupportedMediaType):
        if media_types and media_types != ["application/json"]:
            return f"{exc.detail} This operation takes {' or '.join(f'`{m}`' for m in media_types)}."
        return f"{exc.detail} The API takes JSON: send the body with `Content-Type: application/json`."
    return str(exc.detail)


def error_response(exc, media_types: list[str] | None = None) -> tuple[int, dict, dict]:
    """Map any exception to (status, body, headers). Unknown exceptions become a 500 with no trace.
    `media_types`: the request bodies the operation takes (its parsers'), named by a 415."""
    if isinstance(exc, ServiceError):
        return exc.status_code, envelope(exc.code, exc.message, exc.details), exc.headers
    if isinstance(exc, exceptions.ValidationError):
        details = flatten_details(exc.detail)
        return 422, envelope("VALIDATION_ERROR", _summary(details), details), {}
    if isinstance(exc, DjangoValidationError):
        details = flatten_details(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
        return 422, envelope("VALIDATION_ERROR", _summary(details), details), {}
    if isinstance(exc, RequestDataTooBig):
        return 413, envelope("PAYLOAD_TOO_LARGE", "The request body is larger than allowed."), {}
    if isinstance(exc, Http404):
        return 404, envelope("NOT_FOUND", "Not found."), {}
    if isinstance(exc, DjangoPermissionDenied):
        return 403, envelope("FORBIDDEN", "You do not have permission to perform this action."), {}
    if isinstance(exc, SuspiciousOperation):
        return 400, envelope("BAD_REQUEST", "The request was malformed."), {}
    for exc_type, (code_status, code) in DRF_CODES.items():
        if isinstance(exc, exc_type):
            headers = {}
            if isinstance(exc, exceptions.AuthenticationFailed | exceptions.NotAuthenticated):
                headers["WWW-Authenticate"] = 'Bearer realm="api"'
            return code_status, envelope(code, _drf_message(exc, media_types or [])), headers
    if isinstance(exc, exceptions.APIException):
        return exc.status_code, envelope("ERROR", str(exc.detail)), {}
    logger.exception("unhandled error", exc_info=exc)
    return 500, envelope("INTERNAL_ERROR", "An internal error occurred. It has been logged."), {}


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER. A 404 to a caller with credentials says which mode they see: a test
    key asking for a live record (or the other way round) is the usual cause."""
    view = context.get("view")
    media_types = [parser.media_type for parser in view.get_parsers()] if hasattr(view, "get_parsers") else None
    code_status, body, headers = error_response(exc, media_types)
    mode = getattr(getattr(context.get("request"), "auth", None), "mode", None)
    if code_status == 404 and mode and getattr(exc, "about_a_record", True):
        body["error"]["message"] += f" (These credentials see {mode}-mode records only.)"
    return Response(body, status=code_status, headers=headers)


def json_error(code_status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse(envelope(code, message), status=code_status)
