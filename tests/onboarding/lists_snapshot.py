"""The real sanctions lists, loaded once per test process and written back from memory for later modules.

`load_sanctions` parses the bundled snapshot's five lists and writes about 57,000 rows: 15 to 50
seconds on this 2-core machine, and ten test modules each need the lists in place at their start and
gone at their end (tests/onboarding/conftest.py). The first module of a process runs the real
command; `SnapshotRows.capture` then reads back, column for column, every row the command added (the
lists' tables and its audit entries, found by counting every table before and after), and the later
modules get the same rows back by plain INSERTs: same ids, hashes, load times, so the screening
index, its signature and every query see exactly what the command wrote. Audit entries, which a
module's teardown never removes (the log is append-only), are written again as new rows, as a new
load writes them.
"""

import io
from collections.abc import Iterable

from django.apps import apps
from django.core.management import call_command
from django.db import connection, models, transaction


def _row_counts() -> dict[type[models.Model], int]:
    return {model: model._default_manager.count() for model in apps.get_models() if model._meta.managed and not model._meta.proxy}


def _auto_pk(model: type[models.Model]) -> bool:
    return isinstance(model._meta.pk, models.AutoField)


def _dependency_order(changed: Iterable[type[models.Model]]) -> list[type[models.Model]]:
    """Parents before children (foreign keys among the changed models)."""
    pending, ordered = set(changed), []
    while pending:
        ready = [m for m in pending if not any(f.related_model in pending and f.related_model is not m
                                               for f in m._meta.concrete_fields if f.is_relation)]
        if not ready:
            raise RuntimeError(f"circular foreign keys among {sorted(m._meta.label for m in pending)}")
        for model in sorted(ready, key=lambda m: m._meta.label):
            ordered.append(model)
            pending.discard(model)
    return ordered


class SnapshotRows:
    """What one real `load_sanctions` wrote: its output, and each changed table's new rows."""

    def __init__(self, output: str, tables: list[tuple[type[models.Model], list[models.Field], list[tuple]]]):
        self.output, self.tables = output, tables

    @classmethod
    def capture(cls) -> "SnapshotRows":
        """Run the real command on a database without lists and keep what it added."""
        before = _row_counts()
        last_auto = {model: model._default_manager.aggregate(top=models.Max("pk"))["top"] or 0
                     for model in before if _auto_pk(model)}
        out = io.StringIO()
        call_command("load_sanctions", stdout=out)
        changed = [model for model, count in _row_counts().items() if count != before[model]]
        tables = []
        for model in _dependency_order(changed):
            rows = model._default_manager.all()
            if _auto_pk(model):  # an append-only log: only the new rows, written again under new ids
                rows = rows.filter(pk__gt=last_auto[model])
                fields = [field for field in model._meta.concrete_fields if not field.primary_key]
            else:
                if before[model]:
                    raise RuntimeError(f"{model._meta.label} had rows before the load: cannot tell the load's apart")
                fields = list(model._meta.concrete_fields)
            tables.append((model, fields, list(rows.order_by("pk").values_list(*(field.attname for field in fields)))))
        return cls(out.getvalue(), tables)

    def restore(self) -> None:
        """Write the captured rows back, in one transaction."""
        with transaction.atomic(), connection.cursor() as cursor:
            for model, fields, rows in self.tables:
                table = connection.ops.quote_name(model._meta.db_table)
                columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
                prepared = [tuple(field.get_db_prep_save(value, connection) for field, value in zip(fields, row, strict=True))
                            for row in rows]
                if connection.vendor == "postgresql":  # COPY: one stream instead of a statement a row
                    with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                        for row in prepared:
                            copy.write_row(row)
                    continue
                statement = f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})"
                for start in range(0, len(prepared), 5000):
                    cursor.executemany(statement, prepared[start:start + 5000])
