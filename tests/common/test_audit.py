"""The audit log is append-only: the ORM, the admin and (on PostgreSQL) the database refuse changes."""

import pytest
from django.db import DatabaseError, connection, transaction

from common.audit import audit_record
from common.context import RequestContext, bind_request, unbind_request
from common.models import AuditLogEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def entry(org):
    token = bind_request(RequestContext(request_id="req_test", ip="203.0.113.9"))
    try:
        return audit_record(actor=None, action="thing.done", object_type="thing", object_id="42", organization=org,
                            mode="test", before={"a": 1}, after={"a": 2})
    finally:
        unbind_request(token)


def test_entry_records_who_what_and_request(entry):
    stored = AuditLogEntry.objects.get(pk=entry.pk)
    assert (stored.actor_type, stored.action, stored.object_id, stored.request_id, stored.ip_address) == (
        "system", "thing.done", "42", "req_test", "203.0.113.9")
    assert (stored.before, stored.after) == ({"a": 1}, {"a": 2})


def test_orm_refuses_update_and_delete(entry):
    entry.action = "rewritten"
    with pytest.raises(PermissionError):
        entry.save()
    with pytest.raises(PermissionError):
        entry.delete()
    with pytest.raises(PermissionError):
        AuditLogEntry.objects.filter(pk=entry.pk).update(action="rewritten")
    with pytest.raises(PermissionError):
        AuditLogEntry.objects.all().delete()
    assert AuditLogEntry.objects.get(pk=entry.pk).action == "thing.done"


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger exists on PostgreSQL only")
def test_database_trigger_refuses_raw_sql(entry):
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE common_auditlogentry SET action = 'x' WHERE id = %s", [entry.pk])
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM common_auditlogentry WHERE id = %s", [entry.pk])
    assert AuditLogEntry.objects.get(pk=entry.pk).action == "thing.done"


def test_admin_is_read_only(admin_client, entry):
    page = admin_client.get(f"/admin/common/auditlogentry/{entry.pk}/change/")
    assert page.status_code == 200 and b"thing.done" in page.content
    assert admin_client.get("/admin/common/auditlogentry/add/").status_code == 403
    assert admin_client.post(f"/admin/common/auditlogentry/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert admin_client.post(f"/admin/common/auditlogentry/{entry.pk}/change/", {"action": "x"}).status_code == 403
    assert AuditLogEntry.objects.get(pk=entry.pk).action == "thing.done"


def test_services_write_the_audit_in_their_transaction(api, member, org):
    _, token = member(org, "admin")
    before = AuditLogEntry.objects.count()
    response = api(token).patch("/v1/organizations/me", {"name": "Acme Holdings"}, format="json",
                                HTTP_X_REQUEST_ID="req-abc")
    assert response.status_code == 200
    entry = AuditLogEntry.objects.get(action="organization.updated")
    assert AuditLogEntry.objects.count() == before + 1
    assert entry.request_id == "req-abc" and entry.before["name"] == "Acme" and entry.after["name"] == "Acme Holdings"
