"""common.bulk.insert_new stores what bulk_create stores (on SQLite by executemany, on PostgreSQL by insert_all)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from common.bulk import execute_each, insert_new
from onboarding.models import SanctionsEntry, SanctionsList, SanctionsName

pytestmark = pytest.mark.django_db

COLUMNS = ("entry_id", "name", "kind", "qualifier", "normalized")


def test_rows_are_those_bulk_create_stores():
    now = timezone.now()
    sanctions_list = SanctionsList.objects.create(source="test_list", loaded_at=now, checked_at=now, content_hash="x")
    entry = SanctionsEntry.objects.create(sanctions_list=sanctions_list, uid="1", kind="individual", primary_name="A", version_hash="h")
    made = [SanctionsName(entry=entry, name=f"Name {n} ‘ü’", kind="alias", qualifier="aka" if n % 2 else "", normalized=f"name {n}")
            for n in range(3)]
    compared = [SanctionsName(entry=entry, name=name.name, kind=name.kind, qualifier=name.qualifier, normalized=name.normalized)
                for name in made]

    insert_new(SanctionsName, made)
    SanctionsName.objects.bulk_create(compared)

    stored = {row["id"]: row for row in SanctionsName.objects.values("id", "created_at", "updated_at", *COLUMNS)}
    assert len(stored) == 6
    for ours, theirs in zip(made, compared, strict=True):
        assert [stored[ours.pk][column] for column in COLUMNS] == [stored[theirs.pk][column] for column in COLUMNS]
        assert stored[ours.pk]["created_at"] >= now and stored[ours.pk]["created_at"].tzinfo is not None
    insert_new(SanctionsName, [])  # nothing to do
    assert SanctionsName.objects.count() == 6


def test_ignore_conflicts_leaves_stored_rows_and_inserts_the_others():
    now = timezone.now()
    sanctions_list = SanctionsList.objects.create(source="test_list", loaded_at=now, checked_at=now, content_hash="x")
    entry = SanctionsEntry.objects.create(sanctions_list=sanctions_list, uid="1", kind="individual", primary_name="A", version_hash="h")
    first = SanctionsName(entry=entry, name="First", kind="alias", normalized="first")
    insert_new(SanctionsName, [first])
    again = SanctionsName(pk=first.pk, entry=entry, name="Changed", kind="alias", normalized="changed")
    other = SanctionsName(entry=entry, name="Other", kind="alias", normalized="other")

    insert_new(SanctionsName, [again, other], ignore_conflicts=True)

    assert dict(SanctionsName.objects.values_list("id", "name")) == {first.pk: "First", other.pk: "Other"}


def test_execute_each_prepares_values_as_the_orm_does():
    now = timezone.now()
    lists = [SanctionsList.objects.create(source=f"list_{n}", loaded_at=now, checked_at=now, content_hash="x") for n in range(2)]
    later = now + timedelta(hours=1)
    field = SanctionsList._meta.get_field("checked_at")

    execute_each("UPDATE onboarding_sanctionslist SET checked_at = %s WHERE id = %s", [field, SanctionsList._meta.pk],
                 [(later, lists[0].pk)])

    assert dict(SanctionsList.objects.values_list("id", "checked_at")) == {lists[0].pk: later, lists[1].pk: now}
