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


def settle_database(url: str) -> None:
    """After seeding, before measuring: VACUUM ANALYZE (fresh statistics and visibility map, so
    autovacuum does not wake up mid-run on the tables just filled) and a CHECKPOINT (the seeding's
    dirty pages written now, not during the measurement)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        conn.execute("CHECKPOINT")


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


def gunicorn_settings(workers: int | None = None, threads: int | None = None) -> str:
    """What the server runs with: gunicorn.conf.py's values (the production ones) unless overridden."""
    env = {**os.environ, **({"WEB_CONCURRENCY": str(workers)} if workers else {}),
           **({"WEB_THREADS": str(threads)} if threads else {})}
    code = ("import runpy; c = runpy.run_path('gunicorn.conf.py'); "
            "print(f\"gunicorn {c['worker_class']} {c['workers']} workers x {c['threads']} threads\")")
    return subprocess.run([PYTHON, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout.strip()


def start_gunicorn(env: dict, *, workers: int | None = None, threads: int | None = None,
                   extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen, str]:
    """A gunicorn serving the project on a free loopback port, in its own process group, answering,
    with gunicorn.conf.py's settings (worker class, processes, threads) unless `workers`/`threads`
    override them; returns the process and its base URL (stop it with stop_process)."""
    port = free_port()
    overrides = [*(["--workers", str(workers)] if workers else []), *(["--threads", str(threads)] if threads else [])]
    server = subprocess.Popen(
        [PYTHON, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}", *overrides,
         "--log-level", "warning", *extra],
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
def gunicorn(env: dict, *, workers: int | None = None, threads: int | None = None):
    """start_gunicorn as a context: yields the base URL and stops the server, whatever happens."""
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


def paced_run(base: str, requests: list[bytes], *, rate: float, duration: float, warmup: float = 2.0, max_connections: int = 64,
              trace: Path | None = None) -> dict:
    """An open-loop load at a fixed rate, unlike wrk's closed loop: request i is due at start +
    i/rate whether or not earlier answers have come back, and its latency runs from that due time
    (a request waiting for a free connection waits on the clock, so a stalled server cannot hide
    its queue). `requests` are complete HTTP/1.1 requests, sent in turn. Keep-alive connections
    are reused; one the server closes (gunicorn's sync workers answer `Connection: close`) is
    replaced by a new one, whose connect time counts. The first `warmup` seconds run at the same
    rate but are not counted: a client starts with no connection, so its first few hundred
    requests each open one (as a load balancer does once, not per request) and queue behind the
    handshakes; wrk2 likewise leaves out its calibration period. Returns the achieved rate,
    p50/p99/max in ms over the counted requests and the non-200 count; `trace` (a file) gets each
    answered request's due time and latency, warm-up included, for looking at where a tail comes from.
    The client's own collector is paused for the run (a full collection in this process would hold
    back sends and show as server latency), and how late the client itself sent is reported
    (`send_lag_max`, ms past the due time; requests sent over 5 ms late): a tail with no send lag
    is the server's."""
    import gc
    import selectors

    host, port = base.removeprefix("http://").split(":")
    address = (host, int(port))
    selector = selectors.DefaultSelector()
    idle: list[socket.socket] = []
    busy: dict = {}  # socket -> [due time, buffer]
    latencies, non200, open_count = [], 0, 0
    timeline = []
    total = int(rate * (warmup + duration))
    start = time.perf_counter() + 0.05
    cpu_start = time.process_time()
    sent, send_lag_max, late_sends = 0, 0.0, 0
    collecting = gc.isenabled()
    gc.disable()

    def connect() -> socket.socket:
        sock = socket.create_connection(address)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
        return sock

    def finish(buffer) -> bool | None:
        """None while the answer is incomplete; else whether the connection stays open."""
        head_end = buffer.find(b"\r\n\r\n")
        if head_end < 0:
            return None
        head = buffer[:head_end].decode("latin-1").lower()
        length = int(re.search(r"content-length:\s*(\d+)", head).group(1)) if "content-length" in head else 0
        if len(buffer) < head_end + 4 + length:
            return None
        return "connection: close" not in head

    while sent < total or busy:
        now = time.perf_counter()
        while sent < total and start + sent / rate <= now:
            if idle:
                sock = idle.pop()
            elif open_count < max_connections:
                sock, open_count = connect(), open_count + 1
            else:
                break
            request = requests[sent % len(requests)]
            lag = (time.perf_counter() - (start + sent / rate)) * 1000
            if sent / rate >= warmup:
                send_lag_max, late_sends = max(send_lag_max, lag), late_sends + (lag > 5)
            sock.send(request)
            busy[sock] = [start + sent / rate, bytearray(), request]
            selector.register(sock, selectors.EVENT_READ)
            sent += 1
        wait = max(0.0, start + sent / rate - time.perf_counter()) if sent < total else 0.05
        for key, _ in selector.select(timeout=min(wait, 0.05) if idle or open_count < max_connections else 0.05):
            sock = key.fileobj
            chunk = sock.recv(65536)
            due, buffer, request = busy[sock]
            if not chunk and not buffer:  # a kept-alive connection the server had closed: send again on a new one
                selector.unregister(sock)
                del busy[sock]
                sock.close()
                sock = connect()
                sock.send(request)
                busy[sock] = [due, bytearray(), request]
                selector.register(sock, selectors.EVENT_READ)
                continue
            buffer += chunk
            keep = finish(buffer) if chunk else False
            if keep is None:
                continue
            latency = (time.perf_counter() - due) * 1000
            timeline.append((due - start, latency))
            if due - start >= warmup:
                latencies.append(latency)
            if not chunk or not buffer.startswith(b"HTTP/1.1 200"):
                non200 += 1  # a connection closed without an answer counts as a failure
            selector.unregister(sock)
            del busy[sock]
            if keep:
                idle.append(sock)
            else:
                sock.close()
                open_count -= 1
    elapsed = time.perf_counter() - start
    if collecting:
        gc.enable()
    for sock in idle:
        sock.close()
    if trace:
        trace.write_text("".join(f"{at:.4f} {latency:.2f}\n" for at, latency in timeline))
    latencies.sort()
    return {"rps": len(latencies) / (elapsed - warmup), "offered": rate, "p50": latencies[len(latencies) // 2],
            "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))], "max": latencies[-1],
            "requests": len(latencies), "non200": non200, "send_lag_max": send_lag_max, "late_sends": late_sends,
            "client_cpu": (time.process_time() - cpu_start) / elapsed}  # share of one core the client used
