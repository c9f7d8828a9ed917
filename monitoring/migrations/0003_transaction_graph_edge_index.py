"""An index for rule 15 (cyclic flow): transfers into a wallet, among transfers with a customer on
both sides (the transfer graph). The engine walks the graph backwards from a batch's candidate
transfers level by level (monitoring.engine.reads.arrivals) instead of loading every transfer
between customers of the last 7 days for every batch and every single ingest.

Partial (only transfers between customers, a small share of the table), so it costs little on
insert. Built CONCURRENTLY on PostgreSQL (no write lock on a large table), hence not atomic. Plain
SQL rather than a model index: the models belong to another part of the code base; the
autodetector does not see RunPython, so no later makemigrations will try to drop it.
"""

from django.db import migrations

NAME = "monitoring_tx_graph_arrivals"
COLUMNS = "(organization_id, mode, chain_id, to_address, timestamp)"
CONDITION = "WHERE from_entity_id IS NOT NULL AND to_entity_id IS NOT NULL"


def create(apps, schema_editor):
    concurrently = "CONCURRENTLY " if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(f"CREATE INDEX {concurrently}IF NOT EXISTS {NAME} ON monitoring_transaction {COLUMNS} {CONDITION}")


def drop(apps, schema_editor):
    concurrently = "CONCURRENTLY " if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(f"DROP INDEX {concurrently}IF EXISTS {NAME}")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("monitoring", "0002_activity_alerts_configuration")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
