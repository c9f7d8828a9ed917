"""A backtest run in a worker: the request, then its report (POST .../backtest answers 202 with
this job's address when the range is large)."""

from django.conf import settings
from django.db import models

from common.models import TenantModel


class JobStatus(models.TextChoices):
    """queued → running → succeeded | failed."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class BacktestJob(TenantModel):
    rule_code = models.CharField(max_length=60)
    request = models.JSONField(help_text="The validated request: parameters, grid, objective and range.")
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    result = models.JSONField(null=True, blank=True)
    error = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    enqueued_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "enqueued_at"])]

    def __str__(self):
        return f"backtest of {self.rule_code} ({self.status})"
