"""Outbound webhooks (endpoints, events, deliveries and their attempts) and inbound provider callbacks.

Rows first (docs/architecture.md §6): an Event and its Deliveries are written in the business transaction that
causes them; workers deliver afterwards, and every attempt leaves a DeliveryAttempt row.
"""

from django.db import models

from common.models import BaseModel, TenantModel


class WebhookEndpoint(TenantModel):
    """A customer's HTTPS receiver. The signing secret is kept as it is (the service must sign with
    it) and is never shown again after creation or rotation; see docs/webhooks.md."""

    url = models.URLField(max_length=2048)
    description = models.CharField(max_length=200, blank=True, default="")
    event_types = models.JSONField(default=list)
    enabled = models.BooleanField(default=True)
    signing_secret = models.CharField(max_length=100)
    secret_rotated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "id"]
        indexes = [models.Index(fields=["organization", "mode", "enabled"])]
        verbose_name = "webhook endpoint"

    def __str__(self):
        return f"{self.url} ({self.mode})"

    def subscribes_to(self, event_type: str) -> bool:
        return event_type in self.event_types


class Event(TenantModel):
    """One occurrence of an event type, as receivers see it: `public_id` is the envelope's `id` and
    the receivers' idempotency key."""

    public_id = models.CharField(max_length=40, unique=True)
    type = models.CharField(max_length=60, db_index=True)
    data = models.JSONField(default=dict)

    class Meta:
        ordering = ["-created_at", "id"]
        indexes = [models.Index(fields=["organization", "mode", "created_at"])]

    def __str__(self):
        return f"{self.public_id} {self.type}"


class DeliveryStatus(models.TextChoices):
    """pending → succeeded | failed; failed → pending only by a manual retry."""

    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"

    @classmethod
    def can_retry_manually(cls, status: str) -> bool:
        return status == cls.FAILED


class Delivery(TenantModel):
    """One event for one endpoint. `next_attempt_at` is when it is due; while an attempt is in
    flight it holds the end of that attempt's lease, so no other worker starts the same attempt.
    `enqueued_at` is when a task message was last sent for it, so the sweeper does not send a
    second one for a delivery already waiting in the queue. `claimed_by` names the process holding
    the lease (host:pid:start), so a restarted worker can hand back at once what a killed one held."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=200, blank=True, default="")
    last_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "id"]
        verbose_name_plural = "deliveries"
        constraints = [models.UniqueConstraint(fields=["event", "endpoint"], name="delivery_unique_event_endpoint")]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"]),
            models.Index(fields=["endpoint", "created_at"]),
        ]

    def __str__(self):
        return f"{self.event_id} → {self.endpoint_id} ({self.status})"


class DeliveryAttempt(models.Model):
    """One POST. Written when the attempt starts and completed when it ends: a row left without
    `finished_at` is an attempt whose worker was lost before it could record the outcome."""

    id = models.BigAutoField(primary_key=True)
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveSmallIntegerField()
    at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    duration_ms = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["delivery", "number"]
        constraints = [models.UniqueConstraint(fields=["delivery", "number"], name="attempt_unique_number")]

    def __str__(self):
        return f"attempt {self.number} of {self.delivery_id}"

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class InboundStatus(models.TextChoices):
    """received → processing → processed | failed | unhandled (no handler for the provider);
    failed → received when its automatic retry is due, or by a reprocess (unhandled too)."""

    RECEIVED = "received"
    PROCESSING = "processing"
    PROCESSED = "processed"
    FAILED = "failed"
    UNHANDLED = "unhandled"


class InboundCallback(BaseModel):
    """A verified callback of a provider, stored raw before it is processed. The unique signature
    per provider is what refuses a replay; `external_id` (the provider's event id) lets a provider
    re-send an event with a fresh signature without it being processed twice. `attempts` counts the
    times it was handed to its handler; `next_attempt_at` is when a failed one is retried
    automatically (null once it is not any more: then it waits for a reprocess)."""

    provider = models.CharField(max_length=40)
    external_id = models.CharField(max_length=200)
    signature = models.CharField(max_length=128)
    signed_at = models.DateTimeField()
    headers = models.JSONField(default=dict)
    body = models.TextField()
    status = models.CharField(max_length=12, choices=InboundStatus.choices, default=InboundStatus.RECEIVED)
    result = models.TextField(blank=True, default="")
    claimed_at = models.DateTimeField(null=True, blank=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "id"]
        verbose_name = "inbound callback"
        constraints = [
            models.UniqueConstraint(fields=["provider", "signature"], name="inbound_unique_signature"),
            models.UniqueConstraint(fields=["provider", "external_id"], name="inbound_unique_external_id"),
        ]
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self):
        return f"{self.provider} {self.external_id} ({self.status})"
