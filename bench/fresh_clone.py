"""A new user's first `make run`: time from the command to the first /health 200, and whether
screening is available at that moment.

    .venv/bin/python bench/fresh_clone.py [--port 8765] [--keep] [--env DEMO_DATA=0]

Clones this repository's HEAD into an empty temporary folder (nothing beside it), runs the README's
`make run` there exactly (creating the virtualenv and installing the packages: pip's cache on this
machine makes that faster than a user's very first install), polls /health every 0.2 s, and prints
each line `make run` printed with the seconds since the start, then the figures:

- seconds to the first /health answer of 200;
- whether the sanctions lists were loaded at that moment (screening available), with /health's
  status and the lists it names;
- an entity onboarded with the printed test key right then: its sanctions check's result (anything
  but an `error` saying the lists are not loaded means screening ran).

Stops `make run` with Ctrl-C (SIGINT), as a user would, and removes the folder unless --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def request(url: str, *, key: str | None = None, body: dict | None = None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    data = json.dumps(body).encode() if body is not None else None
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=5) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--keep", action="store_true", help="Keep the temporary clone.")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for make run (repeatable).")
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="fresh-clone-"))
    clone = folder / "repo"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], check=True)
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"Cloned {head} into {clone} (beside it: {sorted(path.name for path in folder.iterdir())})")
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DATA_DIR")}
    env.update(PORT=str(args.port), **dict(item.split("=", 1) for item in args.env))
    started = time.perf_counter()
    process = subprocess.Popen(["make", "run"], cwd=clone, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    lines: list[str] = []

    def read() -> None:
        serving = False
        for line in process.stdout:
            lines.append(line.rstrip())
            if not serving:  # make run's own lines up to "Serving on", not the servers' logs after it
                print(f"{time.perf_counter() - started:7.1f}s  {line.rstrip()}")
            serving = serving or line.startswith("Serving on")

    threading.Thread(target=read, daemon=True).start()
    health_url = f"http://127.0.0.1:{args.port}/health"
    first_ok = body = None
    try:
        while time.perf_counter() - started < args.timeout and process.poll() is None:
            try:
                status, body = request(health_url)
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
                status = None
            if status == 200:
                first_ok = time.perf_counter() - started
                break
            time.sleep(0.2)
        if first_ok is None:
            print("\nNo /health 200 before make run stopped or timed out.")
            return
        lists = body["sanctions_lists"].get("lists", [])
        key = next((match.group(0) for line in lines for match in [re.search(r"sk_test_\w+", line)] if match), None)
        api = f"http://127.0.0.1:{args.port}/v1"
        status, entity = request(f"{api}/onboarding/entities", key=key,
                                 body={"legal_name": "Fresh Clone Trading LLC", "entity_type": "business", "jurisdiction": "US"})
        check = None
        deadline = time.perf_counter() + 30
        while status == 201 and time.perf_counter() < deadline:
            _, checks = request(f"{api}/onboarding/entities/{entity['id']}/compliance-checks", key=key)
            rows = [row for row in checks.get("data", checks if isinstance(checks, list) else []) if row.get("check_type") == "sanctions"]
            if rows:
                check = rows[0]
                break
            time.sleep(0.5)
        print("\n== Figures ==")
        print(f"first /health 200 after: {first_ok:.1f} s (make run from a fresh clone, including the virtualenv and packages)")
        print(f"/health status then: {body['status']}; sanctions lists loaded: {len(lists)} "
              f"({', '.join(item['source'] for item in lists)})")
        print(f"screening available at that moment: {'yes' if lists else 'no'}")
        if check:
            print(f"a new entity's sanctions check: {check.get('result')} - {check.get('summary')}")
        else:
            print(f"a new entity's sanctions check: none within 30 s (entity answer {status})")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
