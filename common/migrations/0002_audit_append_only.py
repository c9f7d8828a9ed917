"""On PostgreSQL, a trigger refuses UPDATE and DELETE of audit rows, whatever the client."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION common_audit_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER common_auditlogentry_append_only
  BEFORE UPDATE OR DELETE ON common_auditlogentry
  FOR EACH ROW EXECUTE FUNCTION common_audit_append_only();
"""
DROP = """
DROP TRIGGER IF EXISTS common_auditlogentry_append_only ON common_auditlogentry;
DROP FUNCTION IF EXISTS common_audit_append_only();
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("common", "0001_initial")]
    operations = [migrations.RunPython(forwards, backwards)]
