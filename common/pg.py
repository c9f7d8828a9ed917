"""PostgreSQL fast paths (monitoring's ingestion and engine, and the writes a monitoring batch sets
off: alerts, cases, events, risk scores): statements with array parameters run through a psycopg
cursor on Django's connection (same transaction), with server-side binding and binary results.
Callers keep an ORM path for other databases (SQLite)."""

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from decimal import Decimal
from uuid import UUID

import psycopg
from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.db.models import Field
from psycopg.types.numeric import Int8BinaryLoader


def on_postgres() -> bool:
    return connection.vendor == "postgresql"


def serial_plans() -> None:
    """No parallel workers for the rest of the current transaction (PostgreSQL, inside one). A
    batch's reads are index probes for a thousand entities; a parallel plan of them finishes no
    sooner on a busy server and costs more CPU in all: each worker starts, scans and hands its
    rows to the leader (the batch's sums: 94 ms of CPU in parallel, 52 ms serial, measured on the
    benchmark's data; docs/monitoring-performance.md)."""
    if on_postgres() and connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL max_parallel_workers_per_gather = 0")


# PostgreSQL's binary form of a timestamptz is a 64-bit count of microseconds since 2000-01-01 UTC.
PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def pg_rows(sql: str, params: dict | list, *, timestamps_as_micros: bool = False) -> list[tuple]:
    """The rows of one statement (it must return rows: add RETURNING to writes). Pass arrays as
    binary parameters (`%(name)b`): psycopg then sends them without quoting every element.
    `timestamps_as_micros`: timestamptz columns come back as that count of microseconds since
    PG_EPOCH, read by psycopg's integer loader, instead of as datetimes (for the tens of thousands
    of history rows a batch reads, whose times the engine wants as integers anyway)."""
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        if timestamps_as_micros:
            cursor.adapters.register_loader("timestamptz", Int8BinaryLoader)
        cursor.execute(sql, params, binary=True)
        return cursor.fetchall()


def uuid_list(ids: Iterable) -> list[UUID]:
    return [value if isinstance(value, UUID) else UUID(value) for value in ids]


# Field classes whose values psycopg takes as they are when they already have this Python type:
# get_db_prep_save would hand them on unchanged (it is the costly part of preparing a batch).
_NATIVE = ((models.UUIDField, UUID), (models.CharField, str), (models.TextField, str), (models.BooleanField, bool),
           (models.IntegerField, int), (models.DateTimeField, datetime), (models.DecimalField, Decimal))


def _native_type(model_field) -> type | None:
    target = model_field.target_field if model_field.is_relation else model_field
    return next((python_type for field_class, python_type in _NATIVE if isinstance(target, field_class)), None)


def _column(model_field, objs: list, wrapper, *, pre_save: bool = True) -> list:
    """One column's values as the ORM would send them: pre_save where the field has one (auto_now
    timestamps land on the instances; an insert's, not an update's), then get_db_prep_save unless
    every value is already of the column's plain Python type (or None where the column allows it)."""
    if not pre_save or type(model_field).pre_save is Field.pre_save:
        attname = model_field.attname
        values = [getattr(obj, attname) for obj in objs]
    else:
        values = [model_field.pre_save(obj, True) for obj in objs]
    native = _native_type(model_field)
    if native is not None and all(type(value) is native or (value is None and model_field.null) for value in values):
        return values
    prepare = model_field.get_db_prep_save
    return [prepare(value, wrapper) for value in values]


_TYPE_MODIFIERS = re.compile(r"\([^)]*\)")


def _arrays(fields, wrapper) -> str:
    """One binary array parameter per field, cast to an array of the column's type without its
    modifiers (varchar(10) -> varchar[]; the column's own type checks the values on assignment)."""
    return ", ".join(f"%b::{_TYPE_MODIFIERS.sub('', model_field.db_type(wrapper))}[]" for model_field in fields)


def insert_ignoring_conflicts(model, objs: list) -> set:
    """INSERT … SELECT FROM unnest(one array per column) ON CONFLICT DO NOTHING RETURNING pk: what
    `bulk_create(ignore_conflicts=True)` does, in a statement of a fixed size whatever the number of
    rows, and telling which rows went in. Values are prepared as the ORM prepares them (pre_save
    fills auto_now fields on the instances, get_db_prep_save adapts)."""
    return {row[0] for row in inserted_rows(model, objs, returning=(model._meta.pk.column,))}


def inserted_rows(model, objs: list, *, returning: tuple[str, ...]) -> list[tuple]:
    """`insert_ignoring_conflicts`, returning the given columns of the rows that went in."""
    if not objs:
        return []
    return _insert(model, objs, " ON CONFLICT DO NOTHING", returning)


def insert_all(model, objs: list) -> list:
    """What `bulk_create(objs)` does: on PostgreSQL one INSERT … SELECT FROM unnest(one array per
    column) with binary parameters, where the ORM builds a statement and quotes every value in
    Python (twice the time for the thirty-odd events, notifications, cases and audit entries of a
    monitoring batch); the ORM's bulk_create elsewhere. Keys the database numbers (the audit log's)
    are read back in the rows' order, as bulk_create reads them (RETURNING follows the unnest's
    order); instances that bring such a key of their own go through bulk_create. Related objects
    are checked as bulk_create checks them (an unsaved one is a ValueError). A conflict raises
    Django's IntegrityError, as bulk_create does. As with pg_rows, the statement goes through
    psycopg, so Django's query log does not show it. Returns `objs`, saved."""
    if not objs:
        return objs
    meta = model._meta
    numbered = meta.auto_field is not None
    if not on_postgres() or (numbered and any(obj.pk is not None for obj in objs)):
        return model.objects.bulk_create(objs)
    for obj in objs:
        obj._prepare_related_fields_for_save(operation_name="bulk_create")
    with connection.wrap_database_errors:  # psycopg's errors as the ORM's
        keys = _insert(model, objs, "", (meta.pk.column,))
    for obj, (key,) in zip(objs, keys, strict=True):
        if numbered:
            setattr(obj, meta.pk.attname, key)
        obj._state.adding, obj._state.db = False, connection.alias  # as bulk_create leaves them
    return objs


def _insert(model, objs: list, on_conflict: str, returning: tuple[str, ...]) -> list[tuple]:
    meta = model._meta
    fields = [model_field for model_field in meta.concrete_fields if model_field is not meta.auto_field]  # the database numbers those
    wrapper = connections[DEFAULT_DB_ALIAS]  # resolved once, not per value through the thread-local proxy
    columns = [_column(model_field, objs, wrapper) for model_field in fields]
    names = ", ".join(wrapper.ops.quote_name(model_field.column) for model_field in fields)
    sql = (f"INSERT INTO {connection.ops.quote_name(meta.db_table)} ({names}) SELECT * FROM unnest({_arrays(fields, wrapper)})"
           f"{on_conflict} RETURNING {', '.join(wrapper.ops.quote_name(column) for column in returning)}")
    return pg_rows(sql, columns)


def update_each(model, objs, field_names) -> None:
    """What `QuerySet.bulk_update(objs, field_names)` does (each row set to its own instance's
    values, no pre_save) in one `UPDATE … FROM unnest(one array per column)` on PostgreSQL, a
    statement of a fixed size, instead of one `CASE WHEN pk = … THEN …` per field and row, which
    the ORM builds and compiles in Python (a third of a monitoring batch's risk recomputation in the
    worker). The ORM's bulk_update elsewhere. Plain values only (no expressions); every object
    with a primary key and named once (ValueError otherwise). On PostgreSQL the statement goes through psycopg, as
    pg_rows' do: a refusal is psycopg's error, and Django's query log does not show it."""
    objs, field_names = list(objs), list(field_names)
    if not objs:
        return
    meta = model._meta
    fields = [meta.pk, *(meta.get_field(name) for name in field_names)]
    if not field_names or len(set(field_names)) != len(field_names) or meta.pk in fields[1:]:
        raise ValueError("update_each needs distinct field names, the primary key not among them")
    keys = [obj.pk for obj in objs]
    if None in keys or len(set(keys)) != len(keys):
        raise ValueError("update_each needs objects with a primary key, each once")
    if not on_postgres():
        model.objects.bulk_update(objs, field_names)
        return
    wrapper = connections[DEFAULT_DB_ALIAS]
    columns = [_column(model_field, objs, wrapper, pre_save=False) for model_field in fields]
    names = [wrapper.ops.quote_name(model_field.column) for model_field in fields]
    assignments = ", ".join(f"{name} = v.{name}" for name in names[1:])
    pg_rows(f"UPDATE {wrapper.ops.quote_name(meta.db_table)} AS t SET {assignments} FROM unnest({_arrays(fields, wrapper)}) "
            f"AS v({', '.join(names)}) WHERE t.{names[0]} = v.{names[0]} RETURNING t.{names[0]}", columns)


def insert_new(model, records: list) -> list:
    """Insert, leaving out rows whose unique key is stored already (or was, an instant earlier, by a
    concurrent transaction); returns the records that went in."""
    if not records:
        return []
    if on_postgres():
        inserted = insert_ignoring_conflicts(model, records)
        for record in records:
            record._state.adding, record._state.db = record.pk not in inserted, connection.alias  # as save() leaves them
    else:
        model.objects.bulk_create(records, ignore_conflicts=True)
        inserted = set(model.objects.filter(pk__in=[r.pk for r in records]).values_list("pk", flat=True))
    return [record for record in records if record.pk in inserted]
