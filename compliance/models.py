"""On-chain status updates: rows first (DESIGN §6). A service that changes what the oracle should say
about a wallet writes one row in its transaction; the chain work publishes pending rows later."""

from django.db import models

from common.models import TenantModel


class OnchainStatus(models.TextChoices):
    PENDING = "pending"
    PUBLISHED = "published"
    CONFIRMED = "confirmed"


class OnchainStatusUpdate(TenantModel):
    wallet = models.ForeignKey("onboarding.Wallet", on_delete=models.CASCADE, related_name="onchain_updates")
    entity = models.ForeignKey("onboarding.Entity", on_delete=models.CASCADE, related_name="onchain_updates")
    chain_id = models.PositiveBigIntegerField()
    address = models.CharField(max_length=200)
    flagged = models.BooleanField()
    reason = models.CharField(max_length=300, blank=True, default="")
    status = models.CharField(max_length=10, choices=OnchainStatus.choices, default=OnchainStatus.PENDING)
    tx_hash = models.CharField(max_length=80, blank=True, default="")
    published_at = models.DateTimeField(null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["status", "created_at"])]
        verbose_name = "on-chain status update"

    def __str__(self):
        return f"{self.chain_id}:{self.address} flagged={self.flagged} ({self.status})"
