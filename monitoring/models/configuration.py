"""Per-organization rule settings and the lists the rules read (docs/rules.md, "Default lists")."""

from django.conf import settings
from django.db import models

from common.models import BaseModel


class OrgScoped(BaseModel):
    organization = models.ForeignKey("organizations.Organization", on_delete=models.CASCADE, related_name="+")

    tenant_scope = ("organization",)

    class Meta:
        abstract = True


class RuleSetting(OrgScoped):
    rule_code = models.CharField(max_length=60)
    enabled = models.BooleanField(default=True)
    parameters = models.JSONField(default=dict, blank=True, help_text="Overrides of the rule's defaults.")
    severity = models.CharField(max_length=10, blank=True, default="", help_text="Overrides the default severity.")
    shadow = models.BooleanField(default=False, help_text="Evaluated and recorded on the events, but raises no alert.")
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["rule_code"]
        constraints = [models.UniqueConstraint(fields=["organization", "rule_code"], name="rule_setting_unique")]

    def __str__(self):
        return self.rule_code


class AssetPrice(OrgScoped):
    asset = models.CharField(max_length=20, help_text="Asset label as transactions carry it (upper-cased).")
    usd_rate = models.DecimalField(max_digits=30, decimal_places=12, help_text="USD per whole unit of the asset.")
    decimals = models.PositiveSmallIntegerField(
        default=0, help_text="Decimal places of the amounts this organization submits for the asset: 0 when amounts are "
                             "whole units (1500.25 USDC), 6 or 18 when they are raw base units (USDC's 6, ETH's 18).")

    class Meta:
        ordering = ["asset"]
        constraints = [models.UniqueConstraint(fields=["organization", "asset"], name="asset_price_unique")]

    def __str__(self):
        return f"{self.asset} = {self.usd_rate} USD"


class AddressTag(OrgScoped):
    chain_id = models.PositiveBigIntegerField(null=True, blank=True, help_text="Empty = every chain")
    address = models.CharField(max_length=200)
    category = models.CharField(max_length=40, help_text="e.g. mixer, darknet, exchange, sanctions")
    source = models.CharField(max_length=100, blank=True, default="")

    class Meta:
        ordering = ["category", "address"]
        constraints = [models.UniqueConstraint(fields=["organization", "chain_id", "address", "category"], name="address_tag_unique")]
        indexes = [models.Index(fields=["organization", "address"])]

    def __str__(self):
        return f"{self.address} [{self.category}]"


class BlockedAddress(OrgScoped):
    chain_id = models.PositiveBigIntegerField(null=True, blank=True, help_text="Empty = every chain")
    address = models.CharField(max_length=200)
    reason = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["address"]
        verbose_name_plural = "blocked addresses"
        constraints = [models.UniqueConstraint(fields=["organization", "chain_id", "address"], name="blocked_address_unique")]

    def __str__(self):
        return self.address


class CodeListEntry(OrgScoped):
    """One code of a simple list: high-risk jurisdictions (ISO alpha-2), privacy assets (labels),
    high-risk merchant category codes."""

    class ListName(models.TextChoices):
        HIGH_RISK_JURISDICTIONS = "high_risk_jurisdictions"
        PRIVACY_ASSETS = "privacy_assets"
        HIGH_RISK_MCCS = "high_risk_mccs"

    list_name = models.CharField(max_length=30, choices=ListName.choices)
    code = models.CharField(max_length=20)
    note = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["list_name", "code"]
        constraints = [models.UniqueConstraint(fields=["organization", "list_name", "code"], name="code_list_unique")]
        verbose_name = "list entry"
        verbose_name_plural = "list entries (jurisdictions, privacy assets, MCCs)"

    def __str__(self):
        return f"{self.list_name}: {self.code}"
