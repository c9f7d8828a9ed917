"""The event tables' foreign keys lose their single-column indexes (see monitoring.models.activity).

Django's AlterField would drop and re-add each foreign-key constraint, re-checking every stored row
under a lock; only the indexes change, so the database side drops them and nothing else
(CONCURRENTLY on PostgreSQL, hence not atomic, like 0003) while the model state records the fields
as unindexed. The indexes are found by introspection (a single-column, non-unique index on the
column), not by Django's generated names.
"""

import django.db.models.deletion
from django.db import migrations, models

COLUMNS = {"monitoring_transaction": ("organization_id", "from_entity_id", "to_entity_id"),
           "monitoring_fiatevent": ("organization_id", "entity_id")}


def _own_indexes(schema_editor, table: str, column: str) -> list[str]:
    with schema_editor.connection.cursor() as cursor:
        constraints = schema_editor.connection.introspection.get_constraints(cursor, table)
    return [name for name, info in constraints.items()
            if info["index"] and not info["unique"] and not info["primary_key"] and info["columns"] == [column]]


def drop(apps, schema_editor):
    concurrently = "CONCURRENTLY " if schema_editor.connection.vendor == "postgresql" else ""
    for table, columns in COLUMNS.items():
        for column in columns:
            for name in _own_indexes(schema_editor, table, column):
                schema_editor.execute(f"DROP INDEX {concurrently}IF EXISTS {schema_editor.quote_name(name)}")


def create(apps, schema_editor):
    concurrently = "CONCURRENTLY " if schema_editor.connection.vendor == "postgresql" else ""
    for table, columns in COLUMNS.items():
        for column in columns:
            if not _own_indexes(schema_editor, table, column):
                name = schema_editor.quote_name(f"{table}_{column}_own")
                schema_editor.execute(f"CREATE INDEX {concurrently}IF NOT EXISTS {name} ON {table} ({column})")


def _unindexed(model: str, name: str, target: str, on_delete, **options):
    return migrations.AlterField(model_name=model, name=name, field=models.ForeignKey(
        db_index=False, on_delete=on_delete, related_name="+", to=target, **options))


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("monitoring", "0003_transaction_graph_edge_index")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop, create, elidable=False)],
            state_operations=[
                _unindexed("fiatevent", "entity", "onboarding.entity", django.db.models.deletion.PROTECT),
                _unindexed("fiatevent", "organization", "organizations.organization", django.db.models.deletion.CASCADE),
                _unindexed("transaction", "from_entity", "onboarding.entity", django.db.models.deletion.PROTECT, blank=True, null=True),
                _unindexed("transaction", "organization", "organizations.organization", django.db.models.deletion.CASCADE),
                _unindexed("transaction", "to_entity", "onboarding.entity", django.db.models.deletion.PROTECT, blank=True, null=True),
            ],
        ),
    ]
