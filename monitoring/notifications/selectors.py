from django.db.models import QuerySet

from common.confidentiality import SAR_NOTIFICATION_TYPES, sar_visible
from monitoring.models import Notification


def visible_notifications(*, organization, mode: str, role: str | None) -> QuerySet[Notification]:
    """That a SAR was filed is itself confidential (common.confidentiality): `sar_filed` from l2_investigator."""
    notifications = Notification.objects.filter(organization=organization, mode=mode)
    return notifications if sar_visible(role) else notifications.exclude(type__in=SAR_NOTIFICATION_TYPES)


def notifications_of(*, organization, mode: str, role: str | None, unread_only: bool = False) -> QuerySet[Notification]:
    notifications = visible_notifications(organization=organization, mode=mode, role=role)
    if unread_only:
        notifications = notifications.filter(read=False)
    return notifications.order_by("-created_at", "id")


def unread_count(*, organization, mode: str, role: str | None) -> int:
    return visible_notifications(organization=organization, mode=mode, role=role).filter(read=False).count()
