"""`make run`'s last step: the web server, a Celery worker and beat, together in the foreground.

Ctrl-C (or SIGTERM) stops all three; if one dies the others are stopped too, so a half-running
service is never left behind.
"""

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Serve the API and console with a Celery worker and beat; Ctrl-C stops everything."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=settings.PORT)
        parser.add_argument("--web-workers", type=int, default=None,
                            help="gunicorn processes (default: gunicorn.conf.py, WEB_CONCURRENCY or 3)")

    def handle(self, *args, port, web_workers, **options):
        python = sys.executable
        commands = {
            # Worker class, processes and threads come from gunicorn.conf.py (as in the benchmarks).
            "web": [python, "-m", "gunicorn", "config.wsgi:application", "--bind", f"0.0.0.0:{port}",
                    *(["--workers", str(web_workers)] if web_workers else []), "--access-logfile", "-",
                    "--graceful-timeout", "5"],
            "worker": [python, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO", "--concurrency", "2"],
            "beat": [python, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO",
                     "--schedule", str(settings.DATA_DIR / "celerybeat-schedule")],
        }
        processes = {name: subprocess.Popen(cmd, start_new_session=True) for name, cmd in commands.items()}
        self.stdout.write(f"Serving on http://localhost:{port}  (API /v1/docs, console /admin/, health /health)")
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
