from django.db import models

from common.models import TenantModel


class NotificationType(models.TextChoices):
    """The six notification types (docs/webhooks.md, "Notifications")."""

    ALERT_CREATED = "alert_created"
    CASE_ASSIGNED = "case_assigned"
    SLA_BREACH = "sla_breach"
    SAR_FILED = "sar_filed"
    ENTITY_STATUS_CHANGED = "entity_status_changed"
    SCREENING_COMPLETE = "screening_complete"


class Notification(TenantModel):
    """The polling alternative to webhooks: one row per occurrence, per organization and mode,
    written in the transaction of the change it reports (docs/architecture.md §6). `read` is shared by the
    organization's members (one flag per notification)."""

    type = models.CharField(max_length=30, choices=NotificationType.choices)
    title = models.CharField(max_length=200)
    body = models.TextField(blank=True, default="")
    read = models.BooleanField(default=False)
    read_at = models.DateTimeField(null=True, blank=True)
    # Plain ids rather than foreign keys, so a notification outlives what it points to.
    entity_id = models.UUIDField(null=True, blank=True)
    alert_id = models.UUIDField(null=True, blank=True)
    case_id = models.UUIDField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "id"]
        indexes = [models.Index(fields=["organization", "mode", "read", "created_at"])]

    def __str__(self):
        return f"{self.type}: {self.title}"
