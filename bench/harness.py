"""What the HTTP benchmarks share: a fresh PostgreSQL database, management commands in the
benchmark's environment, a gunicorn server on a free port, and wrk (installed when missing)."""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ensure_wrk() -> str:
    if shutil.which("wrk"):
        return "wrk"
    if os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True, capture_output=True)
        return "wrk"
    sys.exit("wrk is not installed: apt-get install wrk")


def fresh_database(url: str) -> str:
    base, _, name = url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url


def manage(env, *args) -> str:
    return subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout


def wait_for(url: str, timeout: float = 30) -> None:
    import urllib.request

    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"server did not answer at {url}")


def start_gunicorn(env: dict, *, workers: int, threads: int, extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen, str]:
    """A gunicorn (gthread) serving the project on a free loopback port, in its own process group,
    answering; returns the process and its base URL (stop it with stop_process)."""
    port = free_port()
    server = subprocess.Popen(
        [PYTHON, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
         "--threads", str(threads), "--worker-class", "gthread", "--log-level", "warning", *extra],
        cwd=ROOT, env=env, start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(base + "/health/live", timeout=60)
    except RuntimeError:
        stop_process(server)
        raise
    return server, base


def start_celery_worker(env: dict, *, concurrency: int) -> subprocess.Popen:
    """One Celery worker (prefork, `concurrency` children) in its own process group."""
    return subprocess.Popen([PYTHON, "-m", "celery", "-A", "config", "worker", "--concurrency", str(concurrency), "-l", "warning"],
                            cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL)


def stop_process(process: subprocess.Popen, timeout: float = 30) -> None:
    """SIGTERM to the parent (gunicorn's master and Celery's main process stop their children
    gracefully; a Celery worker finishes the task in hand), SIGKILL to the group after `timeout`."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@contextmanager
def gunicorn(env: dict, *, workers: int, threads: int):
    """A gunicorn (gthread) serving the project on a free loopback port; yields its base URL and
    stops it, whatever happens."""
    server, base = start_gunicorn(env, workers=workers, threads=threads)
    try:
        yield base
    finally:
        stop_process(server, timeout=20)


def to_ms(value: str) -> float:
    number, unit = re.match(r"([\d.]+)(us|ms|s)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def parse_wrk(out: str) -> dict:
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": to_ms(re.search(r"\s50%\s+(\S+)", out).group(1)),
        "p99": to_ms(re.search(r"\s99%\s+(\S+)", out).group(1)),
        "requests": int(re.search(r"(\d+) requests in", out).group(1)),
        "non200": int(re.search(r"NON200 (\d+)", out).group(1)),
    }
