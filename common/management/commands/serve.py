"""`make run`'s last step: the web server, a Celery worker and beat, together in the foreground.

Ctrl-C (or SIGTERM) stops all three; if one dies the others are stopped too, so a half-running
service is never left behind.
"""

import errno
import os
import signal
import socket
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

LOCAL_ADDRESSES = {"127.0.0.1", "0.0.0.0", "::1", "::", "localhost"}


def port_problem(host: str, port: int) -> str | None:
    """Why gunicorn could not listen on host:port, or None when it can. Checked before anything
    starts: gunicorn itself retries for five seconds, logs "Connection in use" and exits without a hint."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        return f"Cannot listen on {host}:{port}: {exc.strerror}; set HOST to an address of this machine."
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn does: a closed server's TIME_WAIT is no obstacle
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"Port {port} is in use; stop the other server or run `PORT={port + 1} make run`."
            return f"Cannot listen on {host}:{port}: {exc.strerror}."
    return None


class Command(BaseCommand):
    help = "Serve the API and console with a Celery worker and beat; Ctrl-C stops everything."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=settings.PORT)
        parser.add_argument("--host", default=settings.HOST, help="address to listen on (default: HOST or 127.0.0.1)")
        parser.add_argument("--web-workers", type=int, default=None,
                            help="gunicorn processes (default: gunicorn.conf.py, WEB_CONCURRENCY or 3)")
        parser.add_argument("--check-port", action="store_true",
                            help="only check that the port is free (make run does it before migrating and loading)")

    def handle(self, *args, port, host, web_workers, check_port, **options):
        problem = port_problem(host, port)
        if problem:
            raise CommandError(problem)
        if check_port:
            return
        python = sys.executable
        commands = {
            # Worker class, processes and threads come from gunicorn.conf.py (as in the benchmarks).
            "web": [python, "-m", "gunicorn", "config.wsgi:application", "--bind", f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
                    *(["--workers", str(web_workers)] if web_workers else []), "--access-logfile", "-",
                    "--graceful-timeout", "5"],
            "worker": [python, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO", "--concurrency", "2"],
            "beat": [python, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO",
                     "--schedule", str(settings.DATA_DIR / "celerybeat-schedule")],
        }
        processes = {name: subprocess.Popen(cmd, start_new_session=True) for name, cmd in commands.items()}
        shown = "localhost" if host in LOCAL_ADDRESSES else host
        self.stdout.write(f"Serving on http://{shown}:{port}  (API /v1/docs, console /admin/, health /health)")
        self.stdout.write("Press Ctrl-C to stop the web server, the worker and beat.")
        stopping = {"flag": False}

        def stop(signum, frame):
            stopping["flag"] = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping["flag"]:
                dead = [name for name, proc in processes.items() if proc.poll() is not None]
                if dead:
                    self.stderr.write(f"{', '.join(dead)} stopped; stopping the rest.")
                    break
                time.sleep(0.5)
        finally:
            self._shutdown(processes)

    def _shutdown(self, processes):
        # SIGTERM to each parent only: gunicorn's master and Celery's main process stop their own
        # children gracefully (a warm shutdown lets a running task finish); SIGKILL to the whole
        # group only after the deadline.
        for proc in processes.values():
            if proc.poll() is None:
                proc.terminate()
        deadline = time.time() + 15
        for proc in processes.values():
            try:
                proc.wait(timeout=max(deadline - time.time(), 0.1))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        self.stdout.write("Stopped.")
