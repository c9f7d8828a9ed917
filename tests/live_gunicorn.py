"""A real gunicorn (gunicorn.conf.py, as `make run` starts it) on a loopback port, for what Django's
test client cannot send: raw request lines, chunked bodies."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Gunicorn:
    """start() → the port once a worker answers; stop() ends it. `env` is added to this process's
    environment; DJANGO_SETTINGS_MODULE is left to config.wsgi (the production settings)."""

    def __init__(self, data_dir: Path, **env: str):
        self.port = free_port()
        self.env = {**os.environ, "DATA_DIR": str(data_dir), "WEB_CONCURRENCY": "1", "WEB_THREADS": "1", **env}
        self.env.pop("DJANGO_SETTINGS_MODULE", None)
        self.process = None

    def start(self) -> int:
        self.process = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{self.port}"],
                                        cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Ready when a worker answers, not when the master accepts: on a busy machine the worker can take
        # longer than a test's read timeout to import the application after the port is bound.
        deadline = time.time() + 90
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=5) as probe:
                    probe.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    if probe.recv(16).startswith(b"HTTP/1."):
                        return self.port
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("gunicorn did not answer")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)
