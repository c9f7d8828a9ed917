import ipaddress
import os
import re
import tempfile

from django.conf import settings
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.messages.storage import default_storage
from django.core.handlers.wsgi import LimitedStream
from django.http import HttpResponse, JsonResponse
from django.utils.functional import SimpleLazyObject, empty

from common.context import RequestContext, bind_request, unbind_request
from common.errors import error_response, json_error

REQUEST_ID_PATTERN = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def is_api_path(path: str) -> bool:
    return path.startswith("/v1/") or path == "/v1" or path.startswith("/health")


def _ip(value: str) -> str | None:
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        return None


def client_ip(request) -> str | None:
    """The client's address: with TRUST_X_FORWARDED_FOR, the last X-Forwarded-For entry, the one our
    proxy appended (the entries before it are whatever the client sent, so the first one would let
    anyone choose their address for the audit trail and the sign-in limit); else REMOTE_ADDR. Not an
    address → None (the audit column is an inet on PostgreSQL)."""
    if settings.TRUST_X_FORWARDED_FOR:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded.strip():
            return _ip(forwarded.rsplit(",", 1)[-1])
    return _ip(request.META.get("REMOTE_ADDR") or "")


class RequestContextMiddleware:
    """Gives every request an id (the caller's X-Request-Id when sane) and binds it, with the
    client IP, for the audit writer; echoes the id back."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        incoming = request.META.get("HTTP_X_REQUEST_ID", "")
        request_id = incoming if REQUEST_ID_PATTERN.match(incoming) else f"req_{os.urandom(16).hex()}"
        request.request_id = request_id
        token = bind_request(
            RequestContext(request_id=request_id, ip=client_ip(request),
                           user_agent=request.META.get("HTTP_USER_AGENT", "")[:255])
        )
        try:
            response = self.get_response(request)
        finally:
            unbind_request(token)
        response["X-Request-Id"] = request_id
        return response


class LazyMessageMiddleware(MessageMiddleware):
    """Django's messages (the console's notices), with the storage set up when a message is first
    added or read rather than on every request: the API never uses it, and building the cookie
    and session storage cost an API request about 25 µs."""

    def process_request(self, request):
        request._messages = SimpleLazyObject(lambda: default_storage(request))

    def process_response(self, request, response):
        storage = getattr(request, "_messages", None)
        if isinstance(storage, SimpleLazyObject) and storage._wrapped is empty:
            return response
        return super().process_response(request, response)


CHUNK = 64 * 1024


class BodySizeLimitMiddleware:
    """Refuses bodies over the limit before reading them: 413 in the envelope.

    A chunked body (`Transfer-Encoding: chunked`, no Content-Length) is read here, up to the same
    limit, and then handed on as a body of that length. Django reads a WSGI body by its
    Content-Length only, so it saw none: a chunked PATCH answered 200 having changed nothing, a
    chunked POST was refused for missing fields, and the size limit was never applied."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return json_error(400, "BAD_REQUEST", "Content-Length is not a number.")
        content_type = request.META.get("CONTENT_TYPE", "")
        limit = settings.MAX_UPLOAD_BYTES if content_type.startswith("multipart/") else settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if length > limit and is_api_path(request.path):
            return json_error(413, "PAYLOAD_TOO_LARGE", f"The request body is larger than {limit} bytes.")
        if "chunked" not in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
            return self.get_response(request)
        with tempfile.SpooledTemporaryFile(max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE) as body:
            if not self._read_chunked(request, body, limit):
                if is_api_path(request.path):
                    return json_error(413, "PAYLOAD_TOO_LARGE", f"The request body is larger than {limit} bytes.")
                return HttpResponse(f"The request body is larger than {limit} bytes.", status=413, content_type="text/plain")
            return self.get_response(request)

    @staticmethod
    def _read_chunked(request, body, limit: int) -> bool:
        """Copies the body (the server has decoded the chunks) into `body`, and makes it the request's
        stream with its Content-Length; False, with nothing handed on, when it passes `limit`."""
        source = getattr(request, "environ", {}).get("wsgi.input") or request._stream  # WSGI: raw input; ASGI: the read body
        size = 0
        while data := source.read(min(CHUNK, limit + 1 - size)):
            size += len(data)
            if size > limit:
                return False
            body.write(data)
        body.seek(0)
        request.META["CONTENT_LENGTH"] = str(size)
        request._stream = LimitedStream(body, size)
        return True


class ApiExceptionMiddleware:
    """Under /v1 and /health, anything Django itself answers (404 of an unknown route, an error
    outside DRF, a 500) comes back in the JSON error envelope, never as an HTML page or a trace."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if is_api_path(request.path) and response.status_code >= 400 and not isinstance(response, JsonResponse):
            content_type = response.get("Content-Type", "")
            if not content_type.startswith("application/json"):
                return self._replace(response)
        return response

    def process_exception(self, request, exception):
        if not is_api_path(request.path):
            return None
        code_status, body, headers = error_response(exception)
        response = JsonResponse(body, status=code_status)
        for name, value in headers.items():
            response[name] = value
        return response

    @staticmethod
    def _replace(response):
        messages = {
            400: ("BAD_REQUEST", "The request was malformed."),
            403: ("FORBIDDEN", "Forbidden."),
            404: ("NOT_FOUND", "Not found."),
            405: ("METHOD_NOT_ALLOWED", "Method not allowed."),
            413: ("PAYLOAD_TOO_LARGE", "The request body is larger than allowed."),
        }
        code, message = messages.get(response.status_code, ("INTERNAL_ERROR", "An internal error occurred."))
        if response.status_code >= 500:
            code_status = 500
        else:
            code_status = response.status_code
        return json_error(code_status, code, message)
