"""Report drafts (what a member prepared, for the four-eyes rule) and filing records (what was filed)."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from common.models import TenantModel
from filings.choices import ReportFamily, ReportKind


class ReportDraft(TenantModel):
    """The form data of a report being prepared: one per case (suspicious activity) or per
    rule-24 alert (large transaction). `prepared_by_*` is the member or key that last changed the
    form data (docs/cases.md, "Four eyes")."""

    family = models.CharField(max_length=20, choices=ReportFamily.choices)
    kind = models.CharField(max_length=4, choices=ReportKind.choices)
    jurisdiction = models.CharField(max_length=2)
    entity = models.ForeignKey("onboarding.Entity", on_delete=models.CASCADE, related_name="+")
    case = models.ForeignKey("filings.Case", null=True, blank=True, on_delete=models.CASCADE, related_name="drafts")
    alert = models.ForeignKey("monitoring.Alert", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    form_data = models.JSONField(default=dict)
    prepared_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    prepared_by_actor = models.CharField(max_length=80, help_text="user:{id} or api_key:{id}: who changed the form data last.")
    prepared_by_label = models.CharField(max_length=255, blank=True, default="")
    prepared_at = models.DateTimeField()
    validated_at = models.DateTimeField(null=True, blank=True)
    valid = models.BooleanField(null=True, blank=True, help_text="The outcome of the last validation of this form data.")
    selection = models.JSONField(default=dict, blank=True,
                                 help_text="Alert id → true (included) or false (left out): the investigator's choices over the "
                                           "default of what a SAR covers (filings.reports.coverage).")

    class Meta:
        ordering = ["-prepared_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["case", "family"], condition=Q(case__isnull=False), name="draft_one_per_case"),
            models.UniqueConstraint(fields=["alert", "kind"], condition=Q(alert__isnull=False), name="draft_one_per_alert"),
            models.UniqueConstraint(fields=["organization", "mode", "entity", "kind"], condition=Q(case__isnull=True, alert__isnull=True),
                                    name="draft_one_loose_per_entity"),
        ]

    def __str__(self):
        return f"{self.kind} draft for {self.entity_id}"


class FilingRecord(TenantModel):
    """A filed report: the document exactly as filed, and the facts the histories and webhooks show."""

    family = models.CharField(max_length=20, choices=ReportFamily.choices)
    kind = models.CharField(max_length=4, choices=ReportKind.choices)
    jurisdiction = models.CharField(max_length=2)
    entity = models.ForeignKey("onboarding.Entity", on_delete=models.PROTECT, related_name="filings")
    case = models.ForeignKey("filings.Case", null=True, blank=True, on_delete=models.SET_NULL, related_name="filings")
    alert = models.ForeignKey("monitoring.Alert", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    tracking_id = models.CharField(max_length=60, help_text="The service's id of this filing, e.g. SAR-US-20260301-7F3A9C2B.")
    bsa_id = models.CharField(max_length=20, blank=True, default="", help_text="The regulator's acknowledgement id, once known.")
    report_reference = models.CharField(max_length=100, blank=True, default="")
    amendment_type = models.CharField(max_length=12, default="initial")
    prior_report_id = models.CharField(max_length=100, blank=True, default="")
    amount = models.DecimalField(max_digits=24, decimal_places=2)
    currency = models.CharField(max_length=3)
    activity_start_date = models.DateField(null=True, blank=True)
    activity_end_date = models.DateField(null=True, blank=True)
    filing_date = models.DateField()
    filer = models.JSONField(default=dict, help_text="The filer block of the report as filed.")
    form_data = models.JSONField(default=dict)
    document = models.BinaryField()
    content_type = models.CharField(max_length=40)
    filename = models.CharField(max_length=120)
    attachments = models.JSONField(default=dict, blank=True, help_text="File name → base64 content (e.g. the SAR's CSV).")
    document_sha256 = models.CharField(max_length=64)
    warnings = models.JSONField(default=list, blank=True)
    filed_at = models.DateTimeField()
    filed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    filed_by_actor = models.CharField(max_length=80)
    filed_by_label = models.CharField(max_length=255, blank=True, default="")
    prepared_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    prepared_by_actor = models.CharField(max_length=80, blank=True, default="")
    prepared_by_label = models.CharField(max_length=255, blank=True, default="")
    selection = models.JSONField(default=dict, blank=True,
                                 help_text="What the SAR covers, as filed: the included and excluded alerts with the reason of each.")
    four_eyes_required = models.BooleanField(null=True, blank=True,
                                             help_text="Whether four-eyes filing applied (the filer could not be the preparer).")
    four_eyes_setting = models.CharField(max_length=10, blank=True, default="",
                                         help_text="The organization's setting when filed: default, on or off.")

    class Meta:
        ordering = ["-filed_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "mode", "tracking_id"], name="filing_unique_tracking_id"),
            # One initial large-transaction report per alert: a second is a correction or amendment.
            models.UniqueConstraint(fields=["alert", "kind"], condition=Q(alert__isnull=False, amendment_type="initial"),
                                    name="filing_one_initial_per_alert"),
        ]
        indexes = [models.Index(fields=["entity", "family", "filed_at"])]

    def __str__(self):
        return self.tracking_id
