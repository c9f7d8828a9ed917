"""Compliance checks (built-in screening, provider checks, external results) and the sanctions hits
they found, with the false-positive decisions that keep a cleared hit from being raised again."""

from django.conf import settings
from django.db import models

from common.models import TenantModel
from onboarding.choices import CheckResult, CheckType, HitStatus, HitSubject
from onboarding.models.entities import BeneficialOwner, Entity, Wallet


class ComplianceCheck(TenantModel):
    """One screening or verification result about an entity. `details` is what the service made of
    it (explanations, subjects, list versions); `raw_response` is the provider's answer as received."""

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="checks")
    check_type = models.CharField(max_length=16, choices=CheckType.choices)
    result = models.CharField(max_length=16, choices=CheckResult.choices)
    provider = models.CharField(max_length=100, help_text="builtin, the provider's name, or the client's for external results.")
    external = models.BooleanField(default=False, help_text="Submitted by the client (POST /v1/monitoring/screening).")
    counts_toward_status = models.BooleanField(
        default=True, help_text="Read by the flag aggregator; an external result only with update_compliance_status.")
    score = models.FloatField(null=True, blank=True)
    summary = models.CharField(max_length=500, blank=True, default="")
    details = models.JSONField(default=dict, blank=True)
    raw_response = models.JSONField(null=True, blank=True)
    requested_by = models.CharField(max_length=255, blank=True, default="", help_text="Who asked: a key, a person, or system.")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["entity", "check_type", "created_at"]),
            models.Index(fields=["organization", "mode", "created_at"]),
        ]
        verbose_name = "compliance check"

    def __str__(self):
        return f"{self.check_type} {self.result} ({self.provider})"


class ScreeningFalsePositive(TenantModel):
    """An investigator's decision that a listed entry is not this entity. It holds for the entry's
    content as it was (`entry_version_hash`): when the publisher changes the entry, hits are raised again."""

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="false_positives")
    source = models.CharField(max_length=64)
    entry_uid = models.CharField(max_length=64)
    entry_version_hash = models.CharField(max_length=64)
    reason = models.CharField(max_length=1000)
    decided_by = models.CharField(max_length=255)
    decided_by_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["entity", "source", "entry_uid", "entry_version_hash"],
                                               name="false_positive_unique_entry_version")]
        verbose_name = "screening false positive"

    def __str__(self):
        return f"{self.source}:{self.entry_uid} cleared for {self.entity_id}"


class ScreeningHit(TenantModel):
    """A listed entry that matched a screened name or address. `active` is false once a later
    screening of the same subject supersedes it (the hit stays for the record)."""

    check_run = models.ForeignKey(ComplianceCheck, on_delete=models.CASCADE, related_name="hits")
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="screening_hits")
    subject_type = models.CharField(max_length=8, choices=HitSubject.choices)
    subject_key = models.CharField(max_length=64, help_text="entity, ubo:{id} or wallet:{id}: what a re-screening supersedes.")
    subject_value = models.CharField(max_length=300, help_text="The name or address screened.")
    ubo = models.ForeignKey(BeneficialOwner, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    wallet = models.ForeignKey(Wallet, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    source = models.CharField(max_length=64)
    entry_uid = models.CharField(max_length=64)
    entry_version_hash = models.CharField(max_length=64)
    primary_name = models.CharField(max_length=512)
    matched_name = models.CharField(max_length=512)
    score = models.FloatField()
    outcome = models.CharField(max_length=8)
    method = models.CharField(max_length=20, blank=True, default="")
    explanation = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=HitStatus.choices, default=HitStatus.OPEN)
    active = models.BooleanField(default=True)
    false_positive = models.ForeignKey(ScreeningFalsePositive, null=True, blank=True, on_delete=models.SET_NULL, related_name="hits")

    class Meta:
        ordering = ["-score", "created_at", "id"]
        indexes = [models.Index(fields=["entity", "active", "status"])]
        verbose_name = "screening hit"

    def __str__(self):
        return f"{self.subject_value} ~ {self.primary_name} ({self.score:.2f})"


class RiskAssessment(TenantModel):
    """One entry of an entity's risk history: written when the score or tier changes."""

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="risk_history")
    score = models.PositiveSmallIntegerField()
    tier = models.CharField(max_length=10)
    previous_score = models.PositiveSmallIntegerField(null=True, blank=True)
    previous_tier = models.CharField(max_length=10, blank=True, default="")
    reason = models.CharField(max_length=300)
    factors = models.JSONField(default=list)
    actor_label = models.CharField(max_length=255, blank=True, default="system")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["entity", "created_at"])]
        verbose_name = "risk assessment"

    def __str__(self):
        return f"{self.score} {self.tier}"
