"""common.pg.update_each and insert_all: what bulk_update and bulk_create store, in one statement on
PostgreSQL (and through the ORM elsewhere), on both databases."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from common import pg
from common.models import AuditLogEntry
from common.pg import insert_all, on_postgres, update_each
from filings.cases import metrics
from filings.models import Case
from onboarding.models import Entity
from organizations.models import Organization
from webhooks.models import Event

pytestmark = pytest.mark.django_db

FIELDS = ("risk_score", "risk_tier", "risk_factors", "risk_updated_at", "updated_at")
EARLIER = datetime(2026, 10, 1, 9, tzinfo=UTC)


def make(org, count: int) -> list[Entity]:
    return [Entity.objects.create(organization=org, mode="test", legal_name=f"Customer {i}", entity_type="individual",
                                  jurisdiction="US", risk_score=1, risk_tier="low", risk_factors=[{"name": "old"}],
                                  risk_updated_at=EARLIER)
            for i in range(count)]


def stored(entities) -> dict:
    rows = Entity.objects.filter(pk__in=[e.pk for e in entities]).values_list("pk", *FIELDS)
    return {row[0]: row[1:] for row in rows}


def test_each_row_takes_its_own_instances_values_and_nothing_else_changes(org):
    entities = make(org, 4)
    changed, untouched = entities[:3], entities[3]
    before_untouched = stored([untouched])
    moments = [datetime(2026, 11, 1 + i, 12, tzinfo=UTC) for i in range(3)]
    for i, entity in enumerate(changed):
        entity.risk_score, entity.risk_tier = 10 * (i + 1), ("low", "medium", "critical")[i]
        entity.risk_factors = [{"name": "screening", "contribution": 1.5 * i, "detail": f"it's \"{i}\""}]
        entity.risk_updated_at = moments[i] if i != 1 else None  # a value becomes NULL among values
        entity.updated_at = moments[i]
        entity.legal_name = "not saved"  # a field not named is left alone
    update_each(Entity, (entity for entity in changed), FIELDS)  # any iterable, read once
    rows = stored(entities)
    for i, entity in enumerate(changed):
        assert rows[entity.pk] == (10 * (i + 1), ("low", "medium", "critical")[i],
                                   [{"name": "screening", "contribution": 1.5 * i, "detail": f"it's \"{i}\""}],
                                   moments[i] if i != 1 else None, moments[i])
    assert rows[untouched.pk] == before_untouched[untouched.pk]
    assert set(Entity.objects.filter(pk__in=[e.pk for e in changed]).values_list("legal_name", flat=True)) == {
        "Customer 0", "Customer 1", "Customer 2"}


def test_a_column_of_nulls_only_replaces_values(org):
    entities = make(org, 2)
    for entity in entities:
        entity.risk_score, entity.risk_updated_at = None, None
    update_each(Entity, entities, ("risk_score", "risk_updated_at"))
    assert set(Entity.objects.filter(pk__in=[e.pk for e in entities]).values_list("risk_score", "risk_updated_at")) == {(None, None)}


def test_no_objects_run_nothing(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("no statement was due")

    monkeypatch.setattr(pg, "pg_rows", refuse)
    monkeypatch.setattr(Entity.objects, "bulk_update", refuse)
    with CaptureQueriesContext(connection) as captured:
        update_each(Entity, [], FIELDS)
    assert len(captured) == 0


def test_what_bulk_update_would_refuse_or_leave_to_chance_is_refused(org):
    first, second = make(org, 2)
    unsaved = Entity(legal_name="no key")
    unsaved.pk = None
    for objs, fields in (([first, first], FIELDS), ([first, unsaved], FIELDS), ([first], ()),
                         ([first], ("risk_score", "risk_score")), ([first], ("id", "risk_score"))):
        with pytest.raises(ValueError):
            update_each(Entity, objs, fields)
    assert stored([first, second])[first.pk][0] == 1  # nothing written


def test_cases_derived_fields_are_stored_as_bulk_update_stores_them(org):
    """The case extension's fields (filings.cases.attach._extend), the same changes made through
    bulk_update on one set of cases and update_each on another."""
    start = datetime(2026, 11, 2, 8, tzinfo=UTC)

    def cases(first_number: int) -> list[Case]:
        return [Case.objects.create(organization=org, mode="test", number=first_number + i, entity=entity, detected_at=start,
                                    sla_started_at=start, sla_due_at=start + timedelta(days=30),
                                    sla_breach_notified_at=start if i == 0 else None)
                for i, entity in enumerate(make(org, 3))]

    def change(rows: list[Case]) -> list[Case]:
        for i, case in enumerate(rows):
            case.priority = ("medium", "high", "critical")[i]
            case.detected_at = start - timedelta(hours=i)
            case.report_due_at = start + timedelta(days=30 - i) if i != 2 else None
            case.sla_due_at = start + timedelta(days=5 + i)
            case.sla_breach_notified_at = None if i == 0 else start + timedelta(days=i)
            case.updated_at = start + timedelta(minutes=i)
        return rows

    fields = [*metrics.DERIVED_FIELDS, "updated_at"]
    by_orm, by_each = change(cases(1)), change(cases(11))
    Case.objects.bulk_update(by_orm, fields)
    update_each(Case, by_each, fields)

    def stored_cases(rows):
        return [tuple(row) for row in Case.objects.filter(pk__in=[c.pk for c in rows]).order_by("number").values_list(*fields)]

    assert stored_cases(by_each) == stored_cases(by_orm)
    assert stored_cases(by_each)[0][0] == "medium" and stored_cases(by_each)[2][2] is None


def test_postgresql_builds_no_case_expression(org):
    """bulk_update's CASE WHEN per field and row is what this replaces: on PostgreSQL the ORM runs
    nothing (the one statement goes through psycopg, outside Django's query log); elsewhere it is
    bulk_update's."""
    entities = make(org, 3)
    for entity in entities:
        entity.risk_score = 42
    with CaptureQueriesContext(connection) as captured:
        update_each(Entity, entities, ("risk_score",))
    case_expressions = [query["sql"] for query in captured if "CASE WHEN" in query["sql"]]
    assert (len(captured), len(case_expressions)) == ((0, 0) if on_postgres() else (1, 1))
    assert set(Entity.objects.filter(pk__in=[e.pk for e in entities]).values_list("risk_score", flat=True)) == {42}


def _events(org, count: int, start: int = 0) -> list[Event]:
    return [Event(organization=org, mode="test", public_id=f"evt_insert_all_{start + i}", type="alert.created",
                  data={"n": i, "amount": "12.50", "nested": {"ids": [str(i)], "none": None}}) for i in range(count)]


def test_insert_all_stores_what_bulk_create_stores(org):
    """Every column as bulk_create writes it (JSON, the auto_now times, the tenant), the instances
    left saved; on PostgreSQL in one statement outside the ORM, elsewhere through bulk_create."""
    by_insert, by_orm = _events(org, 3), _events(org, 3, start=10)
    with CaptureQueriesContext(connection) as captured:
        returned = insert_all(Event, by_insert)
    Event.objects.bulk_create(by_orm)
    assert len(returned) == 3 and all(a is b for a, b in zip(returned, by_insert, strict=True))
    assert len(captured) == (0 if on_postgres() else 1)
    assert all(not event._state.adding and event._state.db == "default" for event in by_insert)
    columns = ("organization_id", "mode", "type", "data")

    def stored(events):
        rows = {row[0]: row[1:] for row in Event.objects.filter(pk__in=[e.pk for e in events]).values_list("pk", "public_id", *columns)}
        return [rows[event.pk] for event in events]

    assert [row[1:] for row in stored(by_insert)] == [row[1:] for row in stored(by_orm)]
    assert [row[0] for row in stored(by_insert)] == [e.public_id for e in by_insert]
    assert all(event.created_at is not None and event.created_at == Event.objects.get(pk=event.pk).created_at for event in by_insert)


def test_insert_all_refuses_a_conflict_and_stores_nothing_of_the_statement(org):
    first = _events(org, 2)
    insert_all(Event, first)
    again = _events(org, 1, start=5) + [Event(organization=org, mode="test", public_id=first[0].public_id, type="x", data={})]
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_all(Event, again)
    assert Event.objects.filter(public_id__startswith="evt_insert_all_").count() == 2


def test_insert_all_gives_each_instance_the_key_the_database_numbered_its_row(org):
    entries = [AuditLogEntry(organization_id=org.pk, mode="test", actor_type="system", action="test.insert_all", object_type="thing",
                             object_id=str(i), actor_label="system") for i in range(5)]
    insert_all(AuditLogEntry, entries)
    assert all(entry.pk is not None and not entry._state.adding for entry in entries)
    assert [AuditLogEntry.objects.get(pk=entry.pk).object_id for entry in entries] == ["0", "1", "2", "3", "4"]


def test_insert_all_refuses_an_unsaved_related_object_as_bulk_create_does(org):
    unsaved = Organization(name="Not stored", slug="not-stored")
    unsaved.pk = None  # as an instance the database numbers is before it is saved
    with pytest.raises(ValueError, match="unsaved related object"):
        insert_all(Event, [Event(organization=unsaved, mode="test", public_id="evt_unsaved", type="x", data={})])
    assert not Event.objects.filter(public_id="evt_unsaved").exists()
