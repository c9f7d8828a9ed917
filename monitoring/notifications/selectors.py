from django.db.models import QuerySet

from monitoring.models import Notification


def notifications_of(*, organization, mode: str, unread_only: bool = False) -> QuerySet[Notification]:
    notifications = Notification.objects.filter(organization=organization, mode=mode)
    if unread_only:
        notifications = notifications.filter(read=False)
    return notifications.order_by("-created_at", "id")


def unread_count(*, organization, mode: str) -> int:
    return Notification.objects.filter(organization=organization, mode=mode, read=False).count()
