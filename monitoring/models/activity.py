"""What is monitored: transactions (on-chain or submitted) and fiat events."""

from django.db import models
from django.db.models import Q

from common.ids import uuid7
from common.models import TenantModel
from monitoring.choices import CardType, CheckType, DepositMethod, FiatEventType, Source

# The foreign keys of the two event tables carry no single-column index of their own: each is the
# first column of a composite index below ((entity, timestamp); (organization, mode, ...)), which
# serves the same look-ups. A narrower index only made the planner read an entity's whole past
# through it and filter the window on the heap, and cost every insert one more index to update.
_UNINDEXED = {"db_index": False}


class Transaction(TenantModel):
    """A transfer between two addresses. `amount` is the canonical decimal string (up to uint256,
    exact on every database); `usd_value` is the numeric column SQL aggregates, null without a price."""

    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    organization = models.ForeignKey("organizations.Organization", on_delete=models.CASCADE, related_name="+", **_UNINDEXED)
    chain_id = models.PositiveBigIntegerField(default=0, help_text="0 = off-chain")
    tx_hash = models.CharField(max_length=100)
    log_index = models.PositiveIntegerField(default=0)
    from_address = models.CharField(max_length=200)
    to_address = models.CharField(max_length=200)
    amount = models.CharField(max_length=120)  # uint256 and 36 decimals: 115 characters
    asset = models.CharField(max_length=42, blank=True, default="", help_text="A label (USDC), or an unknown token's contract address.")
    usd_value = models.DecimalField(max_digits=30, decimal_places=2, null=True, blank=True)
    timestamp = models.DateTimeField()
    reference = models.CharField(max_length=200, blank=True, default="")
    # The customer on each side: a registered wallet's owner, or the request's entity_id.
    from_entity = models.ForeignKey("onboarding.Entity", null=True, blank=True, on_delete=models.PROTECT, related_name="+", **_UNINDEXED)
    to_entity = models.ForeignKey("onboarding.Entity", null=True, blank=True, on_delete=models.PROTECT, related_name="+", **_UNINDEXED)
    monitored = models.BooleanField(default=False)
    evaluation = models.JSONField(null=True, blank=True, help_text="Rules skipped and why (e.g. no USD price).")
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.API)
    orphaned = models.BooleanField(default=False, help_text="Its block was reorganised away (monitoring.indexer): kept for audit, "
                                                            "out of every rule's history.")

    class Meta:
        ordering = ["timestamp", "id"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "mode", "chain_id", "tx_hash", "log_index"], name="transaction_unique_hash"),
        ]
        indexes = [
            # Covering on PostgreSQL (plain on SQLite): a batch's sums over an entity's older transfers
            # (monitoring.engine.reads.VOLUME_GROUPS_SQL) are index-only scans, without a heap visit per transfer.
            models.Index(fields=["from_entity", "timestamp"], include=["usd_value", "to_entity"], name="transaction_sender_time"),
            models.Index(fields=["to_entity", "timestamp"], include=["usd_value", "from_entity"], name="transaction_receiver_time"),
            models.Index(fields=["organization", "mode", "timestamp"]),
            models.Index(fields=["organization", "mode", "monitored", "timestamp"]),
            # An entity's orphaned transfers (monitoring.alerts.selectors): few, their customers on IndexedTransfer.
            models.Index(fields=["organization", "mode"], condition=models.Q(orphaned=True), name="transaction_orphaned"),
        ]

    def __str__(self):
        return f"{self.chain_id}:{self.tx_hash}#{self.log_index}"


class FiatEvent(TenantModel):
    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    organization = models.ForeignKey("organizations.Organization", on_delete=models.CASCADE, related_name="+", **_UNINDEXED)
    entity = models.ForeignKey("onboarding.Entity", on_delete=models.PROTECT, related_name="+", **_UNINDEXED)
    event_type = models.CharField(max_length=16, choices=FiatEventType.choices)
    amount = models.DecimalField(max_digits=24, decimal_places=4)
    currency = models.CharField(max_length=3, default="USD")
    usd_value = models.DecimalField(max_digits=30, decimal_places=2, null=True, blank=True)
    timestamp = models.DateTimeField()
    counterparty_name = models.CharField(max_length=200, blank=True, default="")
    counterparty_bank = models.CharField(max_length=200, blank=True, default="")
    reference = models.CharField(max_length=200, blank=True, default="")
    card_type = models.CharField(max_length=8, choices=CardType.choices, blank=True, default="")
    merchant_category_code = models.CharField(max_length=4, blank=True, default="")
    merchant_country = models.CharField(max_length=2, blank=True, default="")
    check_type = models.CharField(max_length=12, choices=CheckType.choices, blank=True, default="")
    check_number = models.CharField(max_length=40, blank=True, default="")
    deposit_method = models.CharField(max_length=12, choices=DepositMethod.choices, blank=True, default="")
    monitored = models.BooleanField(default=False)
    evaluation = models.JSONField(null=True, blank=True)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.API)

    class Meta:
        ordering = ["timestamp", "id"]
        constraints = [
            # The client's reference makes a retried event idempotent, per customer and type (two
            # customers' banks may well use the same reference).
            models.UniqueConstraint(fields=["organization", "mode", "entity", "event_type", "reference"], condition=~Q(reference=""),
                                    name="fiat_event_unique_entity_reference"),
        ]
        indexes = [
            models.Index(fields=["entity", "timestamp"]),
            models.Index(fields=["organization", "mode", "monitored", "timestamp"]),
        ]

    def __str__(self):
        return f"{self.event_type} {self.amount} {self.currency}"
