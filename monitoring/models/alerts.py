"""Alerts: one open alert per (entity, rule); later hits of the rule add to it (dedupe)."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from common.models import BaseModel, TenantModel
from monitoring.choices import AlertStatus, Disposition, Severity
from monitoring.models.activity import FiatEvent, Transaction


class Alert(TenantModel):
    entity = models.ForeignKey("onboarding.Entity", on_delete=models.PROTECT, related_name="alerts")
    rule_number = models.PositiveSmallIntegerField()
    rule_code = models.CharField(max_length=60)
    rule_name = models.CharField(max_length=200)
    severity = models.CharField(max_length=10, choices=Severity.choices)
    score = models.PositiveSmallIntegerField(default=0)
    description = models.TextField()
    status = models.CharField(max_length=10, choices=AlertStatus.choices, default=AlertStatus.OPEN)
    evidence = models.JSONField(default=dict, help_text="The first hit's parameters and measured values.")
    hit_count = models.PositiveIntegerField(default=1)
    first_triggered_at = models.DateTimeField()
    last_triggered_at = models.DateTimeField()
    sla_due_at = models.DateTimeField()
    disposition = models.CharField(max_length=16, choices=Disposition.choices, blank=True, default="")
    disposition_notes = models.TextField(blank=True, default="")
    disposed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    disposed_by_label = models.CharField(max_length=255, blank=True, default="")
    disposed_at = models.DateTimeField(null=True, blank=True)
    sla_breach_notified_at = models.DateTimeField(null=True, blank=True)
    transactions = models.ManyToManyField(Transaction, related_name="alerts", blank=True)
    fiat_events = models.ManyToManyField(FiatEvent, related_name="alerts", blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "mode", "entity", "rule_code"], condition=~Q(status=AlertStatus.CLOSED),
                                    name="alert_one_open_per_rule"),
        ]
        indexes = [
            models.Index(fields=["organization", "mode", "status", "severity", "created_at"]),
            models.Index(fields=["organization", "mode", "status", "sla_due_at"]),  # overdue: the console's dashboard and queue
            models.Index(fields=["entity", "created_at"]),
            models.Index(fields=["organization", "mode", "rule_code", "disposition"]),
            # the console's alert charts (console.charts.alert_tallies): the window's alerts counted by rule, status, disposition and
            # day from this index alone, read in the grouping's order (created_at last: before them, SQLite sorts every row)
            models.Index(fields=["organization", "mode", "rule_code", "status", "disposition", "created_at"]),
        ]

    def __str__(self):
        return f"{self.rule_name} on {self.entity} ({self.status})"  # the console capitalises a message's first letter


class AlertHit(BaseModel):
    """One evaluation that fired: the evidence of that moment (parameters and measured values)."""

    alert = models.ForeignKey(Alert, on_delete=models.CASCADE, related_name="hits")
    event_id = models.UUIDField()
    event_kind = models.CharField(max_length=20)
    triggered_at = models.DateTimeField(help_text="The evaluated event's own timestamp.")
    evidence = models.JSONField(default=dict)

    class Meta:
        ordering = ["triggered_at", "created_at"]

    def __str__(self):
        return f"{self.event_kind} at {self.triggered_at:%Y-%m-%d %H:%M:%S}"
