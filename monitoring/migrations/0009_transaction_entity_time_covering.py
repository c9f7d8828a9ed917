"""The (entity, timestamp) indexes of transfers carry usd_value and the other side's entity, so a
batch's sums over its entities' older transfers (monitoring.engine.reads.VOLUME_GROUPS_SQL) are
index-only scans: PostgreSQL reads the index entries of each entity's 29 days and no longer visits
a heap page per transfer (each on a page of its own, since the table is in arrival order).

On SQLite the same indexes are built without the included columns (Django leaves them out there).
On PostgreSQL each new index is built CONCURRENTLY (no write lock on a large table) before the old
one is dropped, so the (entity, timestamp) reads always have an index; hence not atomic.
"""

from django.db import migrations, models

NEW = (
    ("transaction_sender_time", "from_entity_id, timestamp", "usd_value, to_entity_id"),
    ("transaction_receiver_time", "to_entity_id, timestamp", "usd_value, from_entity_id"),
)
OLD = (
    ("monitoring__from_en_ee41bd_idx", "from_entity_id, timestamp"),
    ("monitoring__to_enti_44b9f6_idx", "to_entity_id, timestamp"),
)


def _build(schema_editor, indexes, drops):
    postgres = schema_editor.connection.vendor == "postgresql"
    concurrently = "CONCURRENTLY " if postgres else ""
    for name, columns, include in indexes:
        covering = f" INCLUDE ({include})" if postgres and include else ""
        schema_editor.execute(f"CREATE INDEX {concurrently}IF NOT EXISTS {name} ON monitoring_transaction ({columns}){covering}")
    for name in drops:
        schema_editor.execute(f"DROP INDEX {concurrently}IF EXISTS {name}")


def forwards(apps, schema_editor):
    _build(schema_editor, NEW, [name for name, _ in OLD])


def backwards(apps, schema_editor):
    _build(schema_editor, [(name, columns, "") for name, columns in OLD], [name for name, _, _ in NEW])


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("monitoring", "0008_transaction_amount_115_characters"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(forwards, backwards)],
            state_operations=[
                migrations.RemoveIndex(model_name="transaction", name="monitoring__from_en_ee41bd_idx"),
                migrations.RemoveIndex(model_name="transaction", name="monitoring__to_enti_44b9f6_idx"),
                migrations.AddIndex(model_name="transaction", index=models.Index(
                    fields=["from_entity", "timestamp"], include=("usd_value", "to_entity"), name="transaction_sender_time")),
                migrations.AddIndex(model_name="transaction", index=models.Index(
                    fields=["to_entity", "timestamp"], include=("usd_value", "from_entity"), name="transaction_receiver_time")),
            ],
        ),
    ]
