"""Per-request context (request id, client IP) for code that has no request at hand: the audit writer."""

import contextvars
from dataclasses import dataclass


@dataclass(frozen=True)
class RequestContext:
    request_id: str = ""
    ip: str | None = None
    user_agent: str = ""


_current = contextvars.ContextVar("request_context", default=RequestContext())  # noqa: B039 - frozen


def current_request() -> RequestContext:
    return _current.get()


def bind_request(context: RequestContext) -> contextvars.Token:
    return _current.set(context)


def unbind_request(token: contextvars.Token) -> None:
    _current.reset(token)
