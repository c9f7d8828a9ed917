"""System checks of the deployment that Django's own do not cover (`manage.py check --deploy --database default`)."""

from django.core import checks
from django.db import connections

AUTOVACUUM_OFF = "common.W001"


@checks.register(checks.Tags.database, deploy=True)
def postgresql_autovacuum(app_configs=None, databases=None, **kwargs):
    """Monitoring sums each entity's older transfers from covering indexes alone (monitoring.engine.reads),
    which PostgreSQL can do only for table pages marked all-visible, and it is (auto)vacuum that marks
    them: with autovacuum off, the sums visit the table too and cost ~1.7 times as much
    (docs/monitoring-performance.md, session 14), and the tables' dead rows are never reclaimed."""
    found = []
    for alias in databases or ():
        connection = connections[alias]
        if connection.vendor != "postgresql":
            continue
        with connection.cursor() as cursor:
            cursor.execute("SHOW autovacuum")
            (setting,) = cursor.fetchone()
        if setting != "on":
            found.append(checks.Warning(
                f"PostgreSQL's autovacuum is {setting} on the database '{alias}'.",
                hint="Turn it on (autovacuum = on in postgresql.conf, the default), or VACUUM the monitoring tables on a "
                     "schedule: transaction monitoring reads its sums from covering indexes, which needs vacuumed pages.",
                id=AUTOVACUUM_OFF))
    return found
