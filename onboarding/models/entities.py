"""Entities (customers), their beneficial owners and their wallets."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from common.crypto import masked
from common.models import BaseModel, TenantModel
from onboarding.choices import EntityStatus, EntityType, RiskTier, WalletStatus


class TaxIdMixin(models.Model):
    """A tax id (SSN/EIN/ITIN) kept encrypted, shown masked, matched through a keyed hash."""

    tax_id_encrypted = models.TextField(blank=True, default="")
    tax_id_last4 = models.CharField(max_length=4, blank=True, default="")
    tax_id_hash = models.CharField(max_length=64, blank=True, default="", db_index=True)

    class Meta:
        abstract = True

    @property
    def tax_id_masked(self) -> str | None:
        return masked(self.tax_id_last4)


class Entity(TaxIdMixin, TenantModel):
    legal_name = models.CharField(max_length=300)
    entity_type = models.CharField(max_length=12, choices=EntityType.choices)
    jurisdiction = models.CharField(max_length=2, help_text="ISO 3166-1 alpha-2")
    external_id = models.CharField(max_length=120, blank=True, default="", help_text="The client's own reference.")
    registration_number = models.CharField(max_length=100, blank=True, default="")
    date_of_birth = models.DateField(null=True, blank=True)
    address = models.JSONField(default=dict, blank=True)
    industry = models.CharField(max_length=100, blank=True, default="")
    website = models.URLField(max_length=300, blank=True, default="")
    email = models.EmailField(blank=True, default="")
    phone = models.CharField(max_length=40, blank=True, default="")
    expected_monthly_volume_usd = models.DecimalField(max_digits=20, decimal_places=2, null=True, blank=True)
    metadata = models.JSONField(default=dict, blank=True)

    status = models.CharField(max_length=14, choices=EntityStatus.choices, default=EntityStatus.PENDING, db_index=True)
    status_reason = models.CharField(max_length=500, blank=True, default="")
    status_changed_at = models.DateTimeField(null=True, blank=True)
    risk_score = models.PositiveSmallIntegerField(null=True, blank=True)
    risk_tier = models.CharField(max_length=10, choices=RiskTier.choices, blank=True, default="", db_index=True)
    risk_factors = models.JSONField(default=list, blank=True, help_text="The current score's named factors and contributions.")
    risk_updated_at = models.DateTimeField(null=True, blank=True)
    # Compliance flags, kept here by the services that change them (onboarding.services.flags) so a
    # status look-up is one indexed row; high_risk and suspended follow from risk_tier and status.
    sanctioned = models.BooleanField(default=False)
    pep = models.BooleanField(default=False)
    adverse_media = models.BooleanField(default=False)
    flags_updated_at = models.DateTimeField(null=True, blank=True)
    # The latest passing KYB verification (onboarding.services.kyb); when it falls due is the
    # organization's KYB review policy for the entity's risk tier (onboarding.kyb).
    kyb_verified_at = models.DateTimeField(null=True, blank=True, help_text="When the latest passing KYB check was recorded.")
    kyb_check = models.ForeignKey("onboarding.ComplianceCheck", null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+", help_text="The latest passing KYB check.")
    kyb_expired_at = models.DateTimeField(
        null=True, blank=True, help_text="When that verification fell due (account.kyb_expired was sent); empty while valid.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # Claims on the entity's sanctions screening (onboarding.services.screening_claims), leases as webhook
    # deliveries take them: a screening task queued until then (the sweep sends no other), one running until then.
    screening_queued_until = models.DateTimeField(
        null=True, blank=True, help_text="A screening task for this entity is queued until then: the sweep sends no other.")
    screening_running_until = models.DateTimeField(
        null=True, blank=True, help_text="A screening of this entity is running until then: another one started meanwhile does nothing.")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(fields=["organization", "mode", "external_id"], condition=~Q(external_id=""),
                                    name="entity_unique_external_id"),
        ]
        indexes = [
            models.Index(fields=["organization", "mode", "status", "created_at"]),
            models.Index(fields=["organization", "mode", "legal_name"]),
            # The KYB expiry sweep's candidates: verified and not yet expired.
            models.Index(fields=["kyb_verified_at"], condition=Q(kyb_verified_at__isnull=False, kyb_expired_at__isnull=True),
                         name="entity_kyb_due"),
        ]

    def __str__(self):
        return self.legal_name


class BeneficialOwner(TaxIdMixin, BaseModel):
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="ubos")
    name = models.CharField(max_length=300)
    date_of_birth = models.DateField(null=True, blank=True)
    nationality = models.CharField(max_length=2, blank=True, default="")
    ownership_pct = models.DecimalField(max_digits=6, decimal_places=3, null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = "beneficial owner"

    def __str__(self):
        return self.name


class Wallet(TenantModel):
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="wallets")
    chain_id = models.PositiveBigIntegerField(default=0, help_text="0 = off-chain")
    address = models.CharField(max_length=200, help_text="Lower-case for EVM chains")
    label = models.CharField(max_length=100, blank=True, default="")
    status = models.CharField(max_length=10, choices=WalletStatus.choices, default=WalletStatus.ACTIVE)
    flagged = models.BooleanField(default=False)
    flag_reason = models.CharField(max_length=500, blank=True, default="")
    flagged_at = models.DateTimeField(null=True, blank=True)
    first_seen_at = models.DateTimeField(null=True, blank=True, help_text="Earliest activity seen (monitoring).")

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "mode", "chain_id", "address"], name="wallet_unique_address"),
        ]
        # Every registration of an address, across organizations and modes: the on-chain status is the most
        # restrictive of them (compliance.services.onchain_updates_write).
        indexes = [models.Index(fields=["chain_id", "address"], name="wallet_chain_address")]

    def __str__(self):
        return f"{self.chain_id}:{self.address}"
