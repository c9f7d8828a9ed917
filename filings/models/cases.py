"""Investigation cases: the alerts of one entity worked together, their timeline and deadlines."""

from django.conf import settings
from django.db import models

from common.ids import uuid7
from common.models import TenantModel
from filings.choices import CaseEventKind, CaseOrigin, CasePriority, CaseStatus, FilingStatus


class Case(TenantModel):
    """One investigation of one entity. Alerts join it through `CaseAlert` (an alert is in at most
    one case); every step is a `CaseEvent`. Status moves only through `CaseStatus`'s transitions,
    by conditional updates (filings.cases.services)."""

    number = models.PositiveIntegerField(help_text="Sequential per organization and mode; shown as CASE-000123.")
    entity = models.ForeignKey("onboarding.Entity", on_delete=models.PROTECT, related_name="cases")
    title = models.CharField(max_length=200, blank=True, default="")
    status = models.CharField(max_length=14, choices=CaseStatus.choices, default=CaseStatus.OPEN)
    priority = models.CharField(max_length=10, choices=CasePriority.choices, default=CasePriority.LOW)
    origin = models.CharField(max_length=10, choices=CaseOrigin.choices, default=CaseOrigin.ALERT)
    assigned_to = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    assigned_at = models.DateTimeField(null=True, blank=True)
    detected_at = models.DateTimeField(help_text="Initial detection: creation of the earliest alert (31 CFR 1020.320(b)(3)).")
    report_due_at = models.DateTimeField(null=True, blank=True, help_text="When the suspicious-activity report is due.")
    sla_started_at = models.DateTimeField()
    sla_due_at = models.DateTimeField()
    sla_breach_notified_at = models.DateTimeField(null=True, blank=True)
    filing_status = models.CharField(max_length=10, choices=FilingStatus.choices, default=FilingStatus.NONE)
    last_filed_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    opened_by_label = models.CharField(max_length=255, blank=True, default="")
    merged_into = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    alerts = models.ManyToManyField("monitoring.Alert", through="CaseAlert", related_name="cases", blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["organization", "mode", "number"], name="case_unique_number")]
        indexes = [
            models.Index(fields=["organization", "mode", "status", "sla_due_at"]),
            models.Index(fields=["entity", "status", "created_at"]),
            models.Index(fields=["assigned_to", "status"]),
        ]

    def __str__(self):
        return f"{self.reference} ({self.status})"

    @property
    def reference(self) -> str:
        return f"CASE-{self.number:06d}"

    @property
    def is_closed(self) -> bool:
        return self.status == CaseStatus.CLOSED


class CaseAlert(models.Model):
    """The link of an alert to its case. One-to-one on the alert: an alert is in one case at most,
    enforced by the database, so two concurrent attaches cannot put it in two cases."""

    id = models.BigAutoField(primary_key=True)
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="alert_links")
    alert = models.OneToOneField("monitoring.Alert", on_delete=models.CASCADE, related_name="case_link")
    attached_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["attached_at", "id"]

    def __str__(self):
        return f"{self.alert_id} in {self.case_id}"


class CaseEvent(TenantModel):
    """One step on a case's timeline (creation, alerts attached, assignment, status, comment,
    draft saved, report filed, SLA breach). Append-only: services create them, nothing edits them."""

    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=20, choices=CaseEventKind.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    actor_label = models.CharField(max_length=255, blank=True, default="")
    body = models.TextField(blank=True, default="")
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["case", "created_at"])]

    def __str__(self):
        return f"{self.kind} on {self.case_id}"


class CaseSequence(models.Model):
    """The last case number of an organization and mode (locked while numbers are taken)."""

    organization = models.ForeignKey("organizations.Organization", on_delete=models.CASCADE, related_name="+")
    mode = models.CharField(max_length=4)
    last = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organization", "mode"], name="case_sequence_unique")]
