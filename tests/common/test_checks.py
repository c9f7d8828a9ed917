"""common.checks: the deployment check that PostgreSQL vacuums the monitoring tables
(`check --deploy --database default`)."""

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection

from common import checks as deployment_checks
from common.checks import AUTOVACUUM_OFF, AUTOVACUUM_UNKNOWN, postgresql_autovacuum

pytestmark = pytest.mark.django_db
postgresql_only = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="autovacuum is PostgreSQL's")
ON = {"autovacuum": "on", "track_counts": "on", "disabled_tables": []}


def deploy_check_output(capsys) -> str:
    call_command("check", "--deploy", "--database", "default", "--fail-level", "CRITICAL")  # the test settings have warnings
    captured = capsys.readouterr()
    return captured.out + captured.err


@postgresql_only
def test_the_settings_read_are_the_servers():
    with connection.cursor() as cursor:
        cursor.execute("SELECT setting FROM pg_settings WHERE name = 'autovacuum'")
        (autovacuum,) = cursor.fetchone()
    settings = deployment_checks.vacuum_settings(connection)
    assert settings["autovacuum"] == autovacuum and settings["track_counts"] in ("on", "off")
    assert settings["disabled_tables"] == []
    assert (AUTOVACUUM_OFF in {w.id for w in postgresql_autovacuum(databases=["default"])}) == (
        autovacuum != "on" or settings["track_counts"] != "on")


@postgresql_only
@pytest.mark.parametrize(("found", "expected"), [
    (ON, None),
    ({**ON, "autovacuum": "off"}, "autovacuum is off"),
    ({**ON, "track_counts": "off"}, "track_counts is off"),
    ({**ON, "disabled_tables": ["monitoring_transaction"]}, "autovacuum_enabled = false on monitoring_transaction"),
])
def test_check_deploy_warns_whenever_the_monitoring_tables_would_go_unvacuumed(monkeypatch, capsys, found, expected):
    monkeypatch.setattr(deployment_checks, "vacuum_settings", lambda connection: found)
    output = deploy_check_output(capsys)
    if expected is None:
        assert AUTOVACUUM_OFF not in output
    else:
        assert AUTOVACUUM_OFF in output and expected in output and "VACUUM the monitoring tables" in output


@postgresql_only
def test_settings_that_cannot_be_read_are_a_warning_not_a_crash(monkeypatch, capsys):
    def refuse(connection):
        raise DatabaseError("permission denied for view pg_settings")

    monkeypatch.setattr(deployment_checks, "vacuum_settings", refuse)
    output = deploy_check_output(capsys)
    assert AUTOVACUUM_UNKNOWN in output and "permission denied" in output


def test_nothing_is_asked_without_a_database_or_of_sqlite(monkeypatch):
    monkeypatch.setattr(deployment_checks, "vacuum_settings", lambda connection: {**ON, "autovacuum": "off"})
    assert postgresql_autovacuum(databases=None) == []  # a plain `check` names no database
    assert bool(postgresql_autovacuum(databases=["default"])) == (connection.vendor == "postgresql")
