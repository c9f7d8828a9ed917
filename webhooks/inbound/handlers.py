"""Which function ingests each provider's callbacks.

The app that owns the records a callback changes registers its handler when it loads
(`AppConfig.ready`), so this app does not import theirs:

    @inbound_handler("kyb-provider")
    def kyb_result(*, callback, payload) -> str:   # payload: the validated provider format
        ...                                         # returns a one-line summary for the log

A handler runs inside a transaction, the one that marks the callback processed (its work and that
mark commit together). Raising marks the callback failed with the error: it is retried a few times
(webhooks.inbound.services.RETRY_DELAYS), then left for a reprocess from the console.
"""

from collections.abc import Callable

Handler = Callable[..., str]
_handlers: dict[str, Handler] = {}


def inbound_handler(provider: str):
    def register(function: Handler) -> Handler:
        _handlers[provider] = function
        return function

    return register


def handler_for(provider: str) -> Handler | None:
    return _handlers.get(provider)

