"""System checks of the deployment that Django's own do not cover (`manage.py check --deploy --database default`)."""

from django.core import checks
from django.db import DatabaseError, connections

AUTOVACUUM_OFF = "common.W001"
AUTOVACUUM_UNKNOWN = "common.W002"
# The tables whose older rows monitoring reads from covering indexes (monitoring.engine.reads).
VACUUMED_TABLES = ("monitoring_transaction", "monitoring_fiatevent")


def vacuum_settings(connection) -> dict:
    """What decides whether (auto)vacuum keeps those tables' pages all-visible: the server's
    `autovacuum` and `track_counts` (autovacuum runs on the statistics those count) and the
    tables switched off one by one (`autovacuum_enabled = false`)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, setting FROM pg_settings WHERE name IN ('autovacuum', 'track_counts')")
        found = dict(cursor.fetchall())
        cursor.execute("SELECT relname FROM pg_class WHERE relname = ANY(%s) AND 'autovacuum_enabled=false' = ANY(reloptions)",
                       [list(VACUUMED_TABLES)])
        found["disabled_tables"] = sorted(name for (name,) in cursor.fetchall())
    return found


@checks.register(checks.Tags.database, deploy=True)
def postgresql_autovacuum(app_configs=None, databases=None, **kwargs):
    """Monitoring sums each entity's older transfers from covering indexes alone, which PostgreSQL
    can do only for table pages marked all-visible, and it is (auto)vacuum that marks them: with
    autovacuum off, the sums visit the table too and cost ~1.7 times as much
    (docs/monitoring-performance.md, session 14), and dead rows are never reclaimed."""
    found = []
    for alias in databases or ():
        connection = connections[alias]
        if connection.vendor != "postgresql":
            continue
        try:
            settings = vacuum_settings(connection)
        except DatabaseError as exc:
            found.append(checks.Warning(f"Could not read PostgreSQL's autovacuum settings of the database '{alias}': {exc}"[:300],
                                        id=AUTOVACUUM_UNKNOWN))
            continue
        gaps = [f"{name} is {settings.get(name)}" for name in ("autovacuum", "track_counts") if settings.get(name) != "on"]
        gaps += [f"autovacuum_enabled = false on {table}" for table in settings["disabled_tables"]]
        if gaps:
            found.append(checks.Warning(
                f"PostgreSQL will not vacuum the monitoring tables of the database '{alias}': {'; '.join(gaps)}.",
                hint="Keep autovacuum and track_counts on (the defaults), or VACUUM the monitoring tables on a schedule: "
                     "transaction monitoring reads its sums from covering indexes, which needs vacuumed pages.",
                id=AUTOVACUUM_OFF))
    return found
