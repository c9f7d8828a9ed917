"""GET /v1/monitoring/notifications and POST .../{id}/read, and notification_create."""

import uuid

import pytest

from common.errors import ValidationFailed
from common.models import AuditLogEntry
from monitoring.models import Notification
from monitoring.notifications.services import notification_create

pytestmark = pytest.mark.django_db
BASE = "/v1/monitoring/notifications"


def make(org, n: int = 1, mode: str = "test", **fields) -> list[Notification]:
    return [
        notification_create(organization=org, mode=mode, type=fields.get("type", "alert_created"), title=f"Alert {i}",
                            body="Rule large_transfer fired", alert_id=fields.get("alert_id"), entity_id=fields.get("entity_id"))
        for i in range(n)
    ]


class TestCreate:
    def test_all_six_types(self, org):
        for kind in ["alert_created", "case_assigned", "sla_breach", "sar_filed", "entity_status_changed", "screening_complete"]:
            notification_create(organization=org, mode="live", type=kind, title=kind)
        assert Notification.objects.filter(organization=org, mode="live", read=False).count() == 6

    def test_unknown_type(self, org):
        with pytest.raises(ValidationFailed):
            notification_create(organization=org, mode="live", type="coffee_ready", title="x")
        assert not Notification.objects.exists()


class TestList:
    def test_anonymous(self, api):
        response = api().get(BASE)
        assert response.status_code == 401 and response.json()["error"]["code"] == "UNAUTHENTICATED"

    def test_only_own_organization_and_mode(self, api, key, org, other_org):
        mine = make(org, 2, entity_id=uuid.uuid4())
        make(other_org, 3)
        make(org, 4, mode="live")
        body = api(key(org, role="viewer")).get(BASE).json()
        assert body["unread_count"] == 2
        assert [n["id"] for n in body["notifications"]] == [str(n.pk) for n in reversed(mine)]
        first = body["notifications"][0]
        assert set(first) == {"id", "type", "title", "body", "read", "entity_id", "alert_id", "case_id", "created_at", "read_at"}
        assert first["entity_id"] == str(mine[1].entity_id) and first["alert_id"] is None and first["read"] is False

    @pytest.mark.parametrize("role, sees", [("viewer", False), ("l1_analyst", False), ("l2_investigator", True), ("admin", True)])
    def test_a_filed_sar_is_told_only_to_those_who_see_filed_reports(self, api, key, org, role, sees):
        """That a SAR was filed is itself confidential (31 CFR 1020.320(e)): not for analysts and viewers."""
        alert = make(org)[0]
        sar = make(org, type="sar_filed")[0]
        client = api(key(org, role=role))
        body = client.get(BASE).json()
        assert [n["id"] for n in body["notifications"]] == ([str(sar.pk)] if sees else []) + [str(alert.pk)]
        assert body["unread_count"] == (2 if sees else 1)
        response = client.post(f"{BASE}/{sar.pk}/read")
        assert response.status_code == (200 if sees else 404)
        sar.refresh_from_db()
        assert sar.read is sees

    def test_unread_only_and_limit(self, api, key, org):
        made = make(org, 25)
        Notification.objects.filter(pk__in=[n.pk for n in made[:5]]).update(read=True)
        client = api(key(org, role="viewer"))
        everything = client.get(BASE).json()
        assert len(everything["notifications"]) == 20 and everything["unread_count"] == 20
        unread = client.get(f"{BASE}?unread_only=true&limit=100").json()
        assert len(unread["notifications"]) == 20 and not any(n["read"] for n in unread["notifications"])
        assert len(client.get(f"{BASE}?limit=3").json()["notifications"]) == 3

    @pytest.mark.parametrize("query", ["limit=101", "limit=0", "limit=x", "unread_only=perhaps", "offset=-1", "colour=red"])
    def test_bad_query(self, api, key, org, query):
        response = api(key(org, role="viewer")).get(f"{BASE}?{query}")
        assert response.status_code == 422 and response.json()["error"]["code"] == "VALIDATION_ERROR"


class TestRead:
    def test_anonymous(self, api, org):
        (notification,) = make(org)
        response = api().post(f"{BASE}/{notification.pk}/read")
        assert response.status_code == 401
        notification.refresh_from_db()
        assert not notification.read

    def test_other_tenant_and_other_mode(self, api, key, org, other_org):
        (theirs,) = make(other_org)
        (live,) = make(org, mode="live")
        client = api(key(org, role="viewer"))
        for notification in (theirs, live):
            response = client.post(f"{BASE}/{notification.pk}/read")
            assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"
            notification.refresh_from_db()
            assert not notification.read

    def test_unknown_id(self, api, key, org):
        assert api(key(org)).post(f"{BASE}/{uuid.uuid4()}/read").status_code == 404
        assert api(key(org)).post(f"{BASE}/not-a-uuid/read").status_code == 404

    def test_success_is_idempotent(self, api, key, org):
        (notification,) = make(org, alert_id=uuid.uuid4())
        client = api(key(org, role="viewer"))
        first = client.post(f"{BASE}/{notification.pk}/read")
        assert first.status_code == 200
        assert first.json()["read"] is True and first.json()["id"] == str(notification.pk)
        assert first.json()["alert_id"] == str(notification.alert_id)
        second = client.post(f"{BASE}/{notification.pk}/read")
        assert second.status_code == 200 and second.json() == first.json()
        notification.refresh_from_db()
        assert notification.read and notification.read_at is not None
        assert AuditLogEntry.objects.filter(action="notification.read", object_id=str(notification.pk)).count() == 1
        assert client.get(BASE).json()["unread_count"] == 0

    def test_a_session_reads_its_live_notifications(self, api, member, org):
        (notification,) = make(org, mode="live")
        _, token = member(org, "l1_analyst")
        response = api(token).post(f"{BASE}/{notification.pk}/read")
        assert response.status_code == 200 and response.json()["read"] is True
