"""An organization's KYB review policy: how long a passing KYB verification holds, by risk tier."""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from common.models import BaseModel

MAX_VALID_DAYS = 3650
_DAYS = (MinValueValidator(1), MaxValueValidator(MAX_VALID_DAYS))


class KybPolicy(BaseModel):
    """One row per organization, edited in the console; the defaults apply without one. Risk-based
    periodic review: the riskier the customer, the sooner its verification must be renewed."""

    organization = models.OneToOneField("organizations.Organization", on_delete=models.CASCADE, related_name="+")
    valid_days_low = models.PositiveIntegerField(default=1095, validators=_DAYS, help_text="Low risk (default 3 years).")
    valid_days_medium = models.PositiveIntegerField(
        default=730, validators=_DAYS, help_text="Medium risk, and entities not scored yet (default 2 years).")
    valid_days_high = models.PositiveIntegerField(default=365, validators=_DAYS, help_text="High risk (default 1 year).")
    valid_days_critical = models.PositiveIntegerField(default=365, validators=_DAYS, help_text="Critical risk (default 1 year).")

    tenant_scope = ("organization",)

    class Meta:
        verbose_name = "KYB review policy"
        verbose_name_plural = "KYB review policies"

    def __str__(self):
        return (f"KYB valid {self.valid_days_low} / {self.valid_days_medium} / {self.valid_days_high} / "
                f"{self.valid_days_critical} days (low / medium / high / critical)")
