"""A lean Redis connection for the one command every keyed request sends: the rate limiter's script.

redis-py spends about 100 µs of CPU per command in its own layers (connection pool, retries,
observability hooks, RESP3 parsing in Python) against about 10 µs for the round trip itself; on the
hot path that is a tenth of a whole request. This module keeps one plain socket per thread (and per
process: a forked worker opens its own), speaks RESP2, sends EVALSHA and falls back to EVAL when the
server has not got the script (a restart, SCRIPT FLUSH). Everything else (INCR, DELETE, SCAN) still
goes through redis-py.

Plain `redis://` URLs only (host, port, database, user and password); `rediss://` and `unix://`
return None from `for_url`, and the caller keeps redis-py. A broken connection is reopened and the
command sent once more, as redis-py's default retry does; failing again raises
redis.exceptions.ConnectionError, as redis-py would.
"""

import contextlib
import hashlib
import os
import socket
import threading
from urllib.parse import unquote, urlsplit

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

TIMEOUT_SECONDS = 5


def _command(*parts) -> bytes:
    encoded = [part if isinstance(part, bytes) else str(part).encode() for part in parts]
    return b"".join([b"*%d\r\n" % len(encoded), *(b"$%d\r\n%s\r\n" % (len(part), part) for part in encoded)])


def _read(reader):
    line = reader.readline()
    if not line.endswith(b"\r\n"):
        raise RedisConnectionError("Redis closed the connection.")
    kind, rest = line[:1], line[1:-2]
    if kind == b":":
        return int(rest)
    if kind == b"$":
        size = int(rest)
        if size < 0:
            return None
        data = reader.read(size + 2)
        if len(data) != size + 2:
            raise RedisConnectionError("Redis closed the connection.")
        return data[:-2]
    if kind == b"*":
        size = int(rest)
        return None if size < 0 else [_read(reader) for _ in range(size)]
    if kind == b"+":
        return rest
    if kind == b"-":
        return ResponseError(rest.decode(errors="replace"))
    raise RedisConnectionError(f"Unexpected reply from Redis: {line[:40]!r}")


class ScriptRunner:
    """Runs one Lua script on one Redis server, over a socket per thread."""

    def __init__(self, *, host: str, port: int, db: int, username: str | None, password: str | None, script: str):
        self.address = (host, port)
        self.db, self.username, self.password = db, username, password
        self.script = script.encode()
        self.sha = hashlib.sha1(self.script).hexdigest().encode()
        self._local = threading.local()

    @classmethod
    def for_url(cls, url: str, script: str) -> "ScriptRunner | None":
        parts = urlsplit(url)
        if parts.scheme != "redis":
            return None
        path = parts.path.strip("/")
        return cls(host=parts.hostname or "localhost", port=parts.port or 6379, db=int(path or 0),
                   username=unquote(parts.username) if parts.username else None,
                   password=unquote(parts.password) if parts.password else None, script=script)

    def __call__(self, keys: list, args: list):
        command = _command(b"EVALSHA", self.sha, len(keys), *keys, *args)
        try:
            reply = self._roundtrip(command)
        except (OSError, RedisConnectionError):
            self._close()
            reply = self._roundtrip(command)  # once more on a fresh connection, then let it raise
        if isinstance(reply, ResponseError) and str(reply).startswith("NOSCRIPT"):
            reply = self._roundtrip(_command(b"EVAL", self.script, len(keys), *keys, *args))
        if isinstance(reply, ResponseError):
            raise reply
        return reply

    def _roundtrip(self, command: bytes):
        sock, reader = self._connection()
        try:
            sock.sendall(command)
            return _read(reader)
        except TimeoutError as error:
            self._close()
            raise RedisConnectionError("Timeout reading from Redis.") from error
        except OSError as error:
            self._close()
            raise RedisConnectionError(str(error)) from error

    def _connection(self):
        local = self._local
        if getattr(local, "pid", None) != os.getpid() or local.sock is None:
            local.pid, local.sock, local.reader = os.getpid(), None, None
            try:
                sock = socket.create_connection(self.address, timeout=TIMEOUT_SECONDS)
            except OSError as error:
                raise RedisConnectionError(f"Cannot connect to Redis at {self.address}: {error}") from error
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            reader = sock.makefile("rb")
            local.sock, local.reader = sock, reader
            setup = []
            if self.password is not None:
                setup.append(_command(b"AUTH", *([self.username] if self.username else []), self.password))
            if self.db:
                setup.append(_command(b"SELECT", self.db))
            for command in setup:
                sock.sendall(command)
                reply = _read(reader)
                if isinstance(reply, ResponseError):
                    self._close()
                    raise reply
        return local.sock, local.reader

    def _close(self):
        local = self._local
        for handle in (getattr(local, "reader", None), getattr(local, "sock", None)):
            if handle is not None:
                with contextlib.suppress(OSError):
                    handle.close()
        local.sock = local.reader = None
