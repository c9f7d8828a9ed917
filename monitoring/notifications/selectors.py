from django.db.models import QuerySet

from monitoring.models import Notification, NotificationType
from organizations.choices import Role

CONFIDENTIAL = {NotificationType.SAR_FILED: Role.L2_INVESTIGATOR}
"""Notification types only some roles may read: that a SAR was filed is itself confidential (31 CFR
1020.320(e)), so analysts and viewers, who do not see filed reports, do not see these either."""


def visible_notifications(*, organization, mode: str, role: str | None) -> QuerySet[Notification]:
    hidden = [kind for kind, needed in CONFIDENTIAL.items() if not Role.at_least(role, needed)]
    return Notification.objects.filter(organization=organization, mode=mode).exclude(type__in=hidden)


def notifications_of(*, organization, mode: str, role: str | None, unread_only: bool = False) -> QuerySet[Notification]:
    notifications = visible_notifications(organization=organization, mode=mode, role=role)
    if unread_only:
        notifications = notifications.filter(read=False)
    return notifications.order_by("-created_at", "id")


def unread_count(*, organization, mode: str, role: str | None) -> int:
    return visible_notifications(organization=organization, mode=mode, role=role).filter(read=False).count()
