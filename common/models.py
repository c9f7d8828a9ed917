"""Base models every domain app builds on, and the append-only audit log."""

import uuid

from django.db import models

from common.choices import Mode


class BaseModel(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class TenantModel(BaseModel):
    """A record of one organization in one mode (test or live): docs/architecture.md §3.

    Every query over these goes through a selector that filters on both columns; the /v1 base
    viewset filters again, so an id of another organization or mode is a 404.
    """

    organization = models.ForeignKey("organizations.Organization", on_delete=models.CASCADE, related_name="+")
    mode = models.CharField(max_length=4, choices=Mode.choices)

    tenant_scope = ("organization", "mode")

    class Meta:
        abstract = True


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionError("the audit log is append-only")

    def delete(self):
        raise PermissionError("the audit log is append-only")


class AuditLogEntry(models.Model):
    """Who did what to which object, with the state before and after. Written only by
    common.audit.audit_record inside the service's transaction; never updated or deleted
    (refused here, in the admin, and by a trigger on PostgreSQL)."""

    class ActorType(models.TextChoices):
        USER = "user"
        API_KEY = "api_key"
        SYSTEM = "system"

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey(
        "organizations.Organization", null=True, blank=True, on_delete=models.DO_NOTHING,
        db_constraint=False, related_name="+",
    )
    mode = models.CharField(max_length=4, blank=True, default="")
    actor_type = models.CharField(max_length=8, choices=ActorType.choices)
    actor_id = models.CharField(max_length=64, blank=True, default="")
    actor_label = models.CharField(max_length=255, blank=True, default="")
    action = models.CharField(max_length=100)
    object_type = models.CharField(max_length=100)
    object_id = models.CharField(max_length=64)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    request_id = models.CharField(max_length=64, blank=True, default="")
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["organization", "object_type", "object_id", "created_at"]),
            models.Index(fields=["organization", "created_at"]),
        ]
        verbose_name = "audit log entry"
        verbose_name_plural = "audit log"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise PermissionError("the audit log is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("the audit log is append-only")

    def __str__(self):
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.actor_label or self.actor_type} {self.action}"


class RateLimitHit(models.Model):
    """One counted request of a sliding-window limit, for the limiter's database backend
    (used when no Redis is configured)."""

    bucket = models.CharField(max_length=120)
    at = models.FloatField()

    class Meta:
        indexes = [models.Index(fields=["bucket", "at"])]


class RateLimitBucket(models.Model):
    """The row a database-backed limit check locks, so two processes never count at once."""

    bucket = models.CharField(max_length=120, primary_key=True)
    touched_at = models.FloatField(default=0)




class OutboundEmail(BaseModel):
    """An e-mail to send, written in the business transaction (docs/architecture.md §6) and sent by a worker.

    It stores no secret: links with tokens are made at send time from `kind` and `context`
    (a password-reset token, for one, is only ever in the message itself).
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        SENT = "sent"
        FAILED = "failed"

    kind = models.CharField(max_length=40)
    to = models.EmailField()
    context = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True, db_index=True)
    last_error = models.TextField(blank=True, default="")
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "outbound e-mail"
