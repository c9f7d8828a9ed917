"""monitoring.engine.pg.update_each: what bulk_update stores, in one statement on PostgreSQL (and through
bulk_update elsewhere), on both databases."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from monitoring.engine.pg import on_postgres, update_each
from onboarding.models import Entity

pytestmark = pytest.mark.django_db

FIELDS = ("risk_score", "risk_tier", "risk_factors", "risk_updated_at", "updated_at")


def make(org, count: int) -> list[Entity]:
    return [Entity.objects.create(organization=org, mode="test", legal_name=f"Customer {i}", entity_type="individual",
                                  jurisdiction="US", risk_score=1, risk_tier="low", risk_factors=[{"name": "old"}])
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
        entity.risk_updated_at = moments[i] if i != 1 else None  # a NULL among values
        entity.updated_at = moments[i]
        entity.legal_name = "not saved"  # a field not named is left alone
    update_each(Entity, changed, FIELDS)
    rows = stored(entities)
    for i, entity in enumerate(changed):
        assert rows[entity.pk] == (10 * (i + 1), ("low", "medium", "critical")[i],
                                   [{"name": "screening", "contribution": 1.5 * i, "detail": f"it's \"{i}\""}],
                                   moments[i] if i != 1 else None, moments[i])
    assert rows[untouched.pk] == before_untouched[untouched.pk]
    assert set(Entity.objects.filter(pk__in=[e.pk for e in changed]).values_list("legal_name", flat=True)) == {
        "Customer 0", "Customer 1", "Customer 2"}


def test_a_column_of_nulls_only_and_no_rows_at_all(org):
    entities = make(org, 2)
    for entity in entities:
        entity.risk_score, entity.risk_updated_at = None, None
    update_each(Entity, entities, ("risk_score", "risk_updated_at"))
    assert set(Entity.objects.filter(pk__in=[e.pk for e in entities]).values_list("risk_score", "risk_updated_at")) == {(None, None)}
    with CaptureQueriesContext(connection) as captured:
        update_each(Entity, [], FIELDS)
    assert len(captured) == 0


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
