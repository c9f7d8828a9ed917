"""common.checks: the deployment check that PostgreSQL's autovacuum is on (`check --deploy --database default`)."""

import pytest
from django.core.management import call_command
from django.db import connection

from common.checks import AUTOVACUUM_OFF, postgresql_autovacuum

pytestmark = pytest.mark.django_db


def server_autovacuum() -> str | None:
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT setting FROM pg_settings WHERE name = 'autovacuum'")
        return cursor.fetchone()[0]


def test_the_check_warns_exactly_when_the_server_runs_without_autovacuum():
    warnings = postgresql_autovacuum(databases=["default"])
    if server_autovacuum() in (None, "on"):  # SQLite has no autovacuum to miss
        assert warnings == []
    else:
        assert [(w.id, w.msg) for w in warnings] == [(AUTOVACUUM_OFF, "PostgreSQL's autovacuum is off on the database 'default'.")]
        assert "VACUUM" in warnings[0].hint
    assert postgresql_autovacuum(databases=None) == []  # a plain `check` names no database: nothing is queried


def test_check_deploy_with_the_database_reports_it(capsys):
    call_command("check", "--deploy", "--database", "default", "--fail-level", "CRITICAL")  # the test settings' own warnings
    captured = capsys.readouterr()
    assert (AUTOVACUUM_OFF in captured.err + captured.out) == (server_autovacuum() == "off")
