"""gunicorn's own error answers in the API's envelope.

gunicorn refuses some requests before Django sees them (a request line over 4,094 bytes, too many or
too large headers, a malformed request line) and answered those with an HTML page. `write_error`
replaces gunicorn.util.write_error (gunicorn.conf.py installs it in the master, before the workers
fork) so that they too are JSON: {"error": {"code", "message"}}.
"""

import json

from gunicorn import util

CODES = {
    400: "BAD_REQUEST",
    403: "FORBIDDEN",
    414: "URI_TOO_LONG",
    417: "BAD_REQUEST",
    431: "HEADERS_TOO_LARGE",
    500: "INTERNAL_ERROR",
    501: "NOT_IMPLEMENTED",
}
MESSAGES = {
    414: "The request line (method, path and query) is over 4,094 bytes; send long input in a JSON body.",
    431: "The request headers are too many or too large.",
    500: "An internal error occurred. It has been logged.",
}


def write_error(sock, status_int, reason, mesg):
    message = MESSAGES.get(status_int) or (f"{reason}: {mesg}" if mesg else reason)
    body = json.dumps({"error": {"code": CODES.get(status_int, "BAD_REQUEST"), "message": message}}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin1")
    util.write_nonblock(sock, head + body)


def install():
    util.write_error = write_error
