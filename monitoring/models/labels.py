"""Labels of entities for measuring rules: what an analyst knows about an account's history
(docs/backtests.md). Alert dispositions are labels too; these are the uploaded ones."""

from django.conf import settings
from django.db import models

from common.models import TenantModel


class LabelValue(models.TextChoices):
    POSITIVE = "positive"  # the entity laundered (a true positive for any rule that flags it)
    NEGATIVE = "negative"


class EntityLabel(TenantModel):
    entity = models.ForeignKey("onboarding.Entity", on_delete=models.CASCADE, related_name="labels")
    label = models.CharField(max_length=8, choices=LabelValue.choices)
    typology = models.CharField(max_length=60, blank=True, default="", help_text="The laundering typology, when known.")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["entity_id"]
        constraints = [models.UniqueConstraint(fields=["organization", "mode", "entity"], name="entity_label_unique")]

    def __str__(self):
        return f"{self.label} ({self.typology})" if self.typology else self.label
