"""Notification writes: created by the services where their events happen; marked read by a member."""

from django.db import transaction
from django.utils import timezone

from common.audit import audit_record
from common.errors import NotFound, ValidationFailed
from common.pg import insert_all
from common.principal import Principal
from monitoring.models import Notification, NotificationType
from monitoring.notifications.selectors import visible_notifications


def notification_create(*, organization, mode: str, type: str, title: str, body: str = "", entity_id=None,
                        alert_id=None, case_id=None) -> Notification:
    """Called inside the transaction of the change it reports (an alert raised, a case assigned ...)."""
    (notification,) = notifications_create(organization=organization, mode=mode, items=[{
        "type": type, "title": title, "body": body, "entity_id": entity_id, "alert_id": alert_id, "case_id": case_id}])
    return notification


@transaction.atomic
def notification_mark_read(*, principal: Principal, notification_id) -> Notification:
    """Idempotent: marking a read notification again changes nothing and records nothing."""
    notification = visible_notifications(organization=principal.organization, mode=principal.mode, role=principal.role).select_for_update(
    ).filter(pk=notification_id).first()
    if notification is None:
        raise NotFound("No notification of yours has this id.")
    if not notification.read:
        notification.read, notification.read_at = True, timezone.now()
        notification.save(update_fields=["read", "read_at", "updated_at"])
        audit_record(actor=principal, action="notification.read", object_type="notification", object_id=notification.pk,
                     organization=principal.organization, mode=principal.mode, after={"read": True})
    return notification


def notifications_create(*, organization, mode: str, items: list[dict]) -> list[Notification]:
    """`notification_create` for many at once (one insert): each item has type, title and
    optionally body, entity_id, alert_id, case_id. Checked before anything is written, and no
    savepoint of its own: it writes inside its caller's transaction (docs/decisions.md)."""
    for item in items:
        if item["type"] not in NotificationType.values:
            raise ValidationFailed.for_field("type", f"Unknown notification type {item['type']!r}.")
    rows = [Notification(organization=organization, mode=mode, **{**item, "title": item["title"][:200]}) for item in items]
    with transaction.atomic(savepoint=False):
        return insert_all(Notification, rows)
