"""Contract fuzzing (issue 27): schemathesis over every operation of /v1/openapi.json, against a real
gunicorn on loopback, on PostgreSQL + Redis, with the demo portfolio seeded so that ids exist.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/NAME REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python -m tests.fuzz.run [--budget 330 | --max-time S] [--max-examples 25] [--seed N]

It (1) creates a fresh database NAME_fuzz on DATABASE_URL's server (dropped first when left over),
migrates it, runs bootstrap_demo and seed_demo, and issues FUZZ_KEYS premium keys (admin, test mode: FUZZ_ROLES);
(2) starts gunicorn (gunicorn.conf.py, 2 processes) on a free loopback port with a Redis key prefix of
its own; (3) runs `schemathesis run` with the checks not_a_server_error, status_code_conformance,
response_schema_conformance and content_type_conformance, each request carrying the next key in turn
(tests/fuzz/hooks.py); (4) prints the figures and exits non-zero on any 5xx or violation.
The database is dropped at the end (FUZZ_KEEP_DB=1 keeps it); reports go to DATA_DIR/fuzz-report (a temporary
folder unless FUZZ_DATA_DIR names one, removed after a clean run).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import requests

from tests.live_gunicorn import ROOT, Gunicorn

CHECKS = "not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance"
KEYS = int(os.environ.get("FUZZ_KEYS", 24))
# Each key's mode:role, in turn (FUZZ_ROLES="test:admin,test:viewer,live:admin" mixes them; admin reaches the most).
ROLES = [tuple(pair.split(":")) for pair in os.environ.get("FUZZ_ROLES", "test:admin").split(",")]


def fuzz_database_url(url: str) -> tuple[str, str]:
    """DATABASE_URL's server with the database NAME_fuzz: (its URL, its name)."""
    parts = urlsplit(url)
    if not parts.scheme.startswith("postgres"):
        raise SystemExit("tests/fuzz/run.py runs on PostgreSQL: set DATABASE_URL=postgres://...")
    name = (parts.path.lstrip("/") or "postgres") + "_fuzz"
    return urlunsplit(parts._replace(path="/" + name)), name


def recreate_database(url: str, name: str, *, drop_only: bool = False) -> None:
    maintenance = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(maintenance, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            connection.execute(f'CREATE DATABASE "{name}"')


def manage(env: dict, *args: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"manage.py {' '.join(args)} failed")
    return done.stdout


def prepare(env: dict) -> list[str]:
    manage(env, "migrate", "--noinput", "-v0")
    manage(env, "createcachetable", "-v0")
    manage(env, "bootstrap_demo")
    print(manage(env, "seed_demo").strip().splitlines()[-1])
    issue = ("from organizations.selectors import organization_by_slug\n"
             "from organizations.services import api_key_issue\n"
             "org = organization_by_slug('demo')\n"
             f"roles = {ROLES!r}\n"
             f"for n in range({KEYS}):\n"
             "    mode, role = roles[n % len(roles)]\n"
             "    print(api_key_issue(organization=org, mode=mode, tier='premium', role=role, name=f'fuzz key {n + 1}').secret)\n")
    return [word for word in manage(env, "shell", "-v0", "-c", issue).split() if word.startswith(("sk_test_", "sk_live_"))]


# The seeded records whose ids the hooks put in paths: (path parameter, or path prefix for a generic {id}; list to read).
HARVEST = [
    ("case_id", "/v1/onboarding/entities/{entity_id}/cases"),
    ("alert_id", "/v1/onboarding/entities/{entity_id}/alerts"),
    ("check_id", "/v1/onboarding/entities/{entity_id}/compliance-checks"),
    ("event_id", "/v1/onboarding/entities/{entity_id}/fiat-events"),
    ("transfer_id", "/v1/onboarding/entities/{entity_id}/transfers"),
    ("tx_hash", "/v1/onboarding/entities/{entity_id}/transfers", "tx_hash"),
    ("hit_id", "/v1/onboarding/entities/{entity_id}/screening-hits"),
    ("filing_id", "/v1/onboarding/entities/{entity_id}/filing-history"),
    ("rule_id", "/v1/monitoring/rules", "code"),
    ("file_id", "/v1/monitoring/314a/files"),
    ("match_id", "/v1/monitoring/314a/files/{file_id}/matches"),
    ("partner_id", "/v1/monitoring/314b/partners"),
    ("request_id", "/v1/monitoring/314b/requests"),
    ("notification_id", "/v1/monitoring/notifications"),
    ("/v1/developer/webhook-endpoints/", "/v1/developer/webhook-endpoints"),
    ("delivery_id", "/v1/developer/webhook-endpoints/{/v1/developer/webhook-endpoints/}/deliveries"),
    ("/v1/compliance/vasps/", "/v1/compliance/vasps"),
]


# (A counterparty VASP cannot be: its endpoint must resolve to a public address, and this machine has none.)
CREATED = [
    ("/v1/monitoring/314b/partners", {"institution_name": "Fuzz Partner Bank", "ein": "12-3456789", "contact_name": "Pat Doe",
                                      "contact_email": "pat@partner.example", "certification_date": "2026-01-01",
                                      "certification_expiry": "2026-12-31"}),
]


def records(body) -> list:
    rows = body if isinstance(body, list) else next((v for v in body.values() if isinstance(v, list)), []) if isinstance(body, dict) else []
    return [row for row in rows if isinstance(row, dict)]


def harvest(base: str, key: str) -> dict:
    """Real ids of the demo organization's test mode, read through the API as a client would: an entity
    with a case (so alerts, transfers, fiat events), then the records under it and the organization's."""
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {key}"

    def read(path: str) -> list:
        answer = session.get(base + path, timeout=60)
        return records(answer.json()) if answer.status_code == 200 else []

    for path, body in CREATED:  # what the demo portfolio has none of
        session.post(base + path, json=body, timeout=60)
    entities = [row["id"] for row in read("/v1/onboarding/entities?limit=100")]
    busy = next((entity for entity in entities if read(f"/v1/onboarding/entities/{entity}/cases")), None)
    ids = {"entity_id": busy or (entities[0] if entities else None)}
    for name, path, *field in HARVEST:
        for placeholder, value in ids.items():
            path = path.replace("{" + placeholder + "}", str(value))
        rows = read(path) if "{" not in path else []
        value = rows and (rows[0].get(field[0]) if field else rows[0].get(name) or rows[0].get("id"))
        if value:
            ids[name] = str(value)
    return {name: value for name, value in ids.items() if value}


def figures(report_dir: Path) -> dict:
    """Operations covered, cases run, 5xx answers and check failures, from schemathesis' reports."""
    report = json.loads(next(report_dir.glob("json-*.json")).read_text())
    statuses = [int(code) for line in next(report_dir.glob("ndjson-*.ndjson")).open()
                for code in re.findall(r'"status_code":\s*(\d{3})', line)]
    return {"operations": f"{report['operations']['tested']}/{report['operations']['total']}",
            "cases": report["test_cases"]["generated"], "requests": len(statuses),
            "5xx": sum(code >= 500 for code in statuses), "429": statuses.count(429),
            "violations": sum(failure["count"] for failure in report["failures"]),
            "errors": len(report["errors"]), "failures": [(failure["title"], failure["operations"]) for failure in report["failures"]]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, default=int(os.environ.get("FUZZ_BUDGET", 330)),
                        help="seconds for the whole step, set-up included (default 330); schemathesis gets what is left")
    parser.add_argument("--max-time", type=int, default=os.environ.get("FUZZ_MAX_TIME") and int(os.environ["FUZZ_MAX_TIME"]),
                        help="seconds schemathesis may spend, whatever the set-up took (instead of --budget)")
    parser.add_argument("--max-examples", type=int, default=int(os.environ.get("FUZZ_MAX_EXAMPLES", 25)),
                        help="generated cases per operation and phase (default 25)")
    parser.add_argument("--seed", type=int, default=None)
    options = parser.parse_args()
    started = time.monotonic()
    url, name = fuzz_database_url(os.environ.get("DATABASE_URL", ""))
    temporary = not os.environ.get("FUZZ_DATA_DIR")
    data_dir = Path(os.environ.get("FUZZ_DATA_DIR") or tempfile.mkdtemp(prefix="fuzz-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "DATABASE_URL": url, "DATA_DIR": str(data_dir), "CACHE_KEY_PREFIX": f"fuzz{os.getpid()}",
           "SCREENING_PROVIDER_URL": "", "EMAIL_URL": "console://", "LOG_LEVEL": "WARNING",
           # Tasks the requests queue go to a folder of this run (no worker runs): never into a broker
           # that a later test's worker, or a developer's, would consume against another database.
           "CELERY_BROKER_URL": "filesystem://localhost//"}
    recreate_database(url, name)
    server = None
    try:
        keys = prepare(env)
        prepared = time.monotonic()
        server = Gunicorn(data_dir, **{key: value for key, value in env.items() if key != "DATA_DIR"}, WEB_CONCURRENCY="2", WEB_THREADS="2")
        port = server.start()
        ids = harvest(f"http://127.0.0.1:{port}", keys[0])
        print(f"fuzz: {len(keys)} keys; real ids for {', '.join(sorted(ids))}")
        report_dir = data_dir / "fuzz-report"
        # What is left of the budget, less ~20 s to stop gunicorn and drop the database; never under a minute.
        max_time = options.max_time or max(60, int(options.budget - (time.monotonic() - started) - 20))
        command = [sys.executable, "-m", "schemathesis.cli", "run", f"http://127.0.0.1:{port}/v1/openapi.json",
                   "--checks", CHECKS, "--max-time", str(max_time), "--max-examples", str(options.max_examples),
                   "--workers", "2", "--request-timeout", "30", "--suppress-health-check", "all", "--no-shrink",
                   "--report", "json,ndjson", "--report-dir", str(report_dir), "--continue-on-failure",
                   *(["--seed", str(options.seed)] if options.seed is not None else [])]
        run = subprocess.run(command, cwd=data_dir, env={**env, "SCHEMATHESIS_HOOKS": "tests.fuzz.hooks", "FUZZ_API_KEYS": ",".join(keys),
                                                     "FUZZ_IDS": json.dumps(ids),
                                                     "PYTHONPATH": str(ROOT)})
        found = figures(report_dir)
        print(f"fuzz: {found['operations']} operations, {found['cases']} cases ({found['requests']} answers, {found['429']} of them 429), "
              f"{found['5xx']} 5xx, {found['violations']} violations, {found['errors']} errors; setup {prepared - started:.0f} s, "
              f"whole step {(time.monotonic() - started) / 60:.1f} min; reports in {report_dir}")
        for title, operations in found["failures"]:
            print(f"fuzz: {title}: {', '.join(operations)}")
        failed = run.returncode or int(bool(found["5xx"] or found["violations"] or found["errors"]))
    finally:
        if server:
            server.stop()
        if not os.environ.get("FUZZ_KEEP_DB"):
            recreate_database(url, name, drop_only=True)
    if temporary and not failed:  # the reports of a failed run stay for reading
        shutil.rmtree(data_dir, ignore_errors=True)
    return failed


if __name__ == "__main__":
    sys.exit(main())
