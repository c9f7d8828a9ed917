"""On-chain status updates: rows first (docs/architecture.md §6). A service that changes what the oracle should say
about a wallet writes one row in its transaction; the chain work publishes pending rows later.

Travel-rule transfers (docs/travel-rule.md) and the organization's travel-rule policy."""

from decimal import Decimal

from django.db import models
from django.db.models import Q

from common.models import BaseModel, TenantModel


class OnchainStatus(models.TextChoices):
    PENDING = "pending"
    PUBLISHED = "published"
    CONFIRMED = "confirmed"
    SUPERSEDED = "superseded"  # a later row for the same wallet and chain was published instead


# Sensible confirmation depths: L1 testnets 2 blocks, L2s and the local node 1.
KNOWN_CHAINS = (
    (11155111, "Sepolia", 2), (17000, "Holesky", 2), (560048, "Hoodi", 2), (84532, "Base Sepolia", 1),
    (421614, "Arbitrum Sepolia", 1), (80002, "Polygon Amoy", 1), (31337, "Local (anvil)", 1),
)


class Chain(BaseModel):
    """A chain the oracle is published to (docs/oracle.md). The signer's key is never stored: it comes from
    the environment (CHAIN_SIGNER_KEY_<chain_id>); CHAIN_RPC_URL_<chain_id> (comma-separated) overrides rpc_urls.
    `next_nonce` is the signer's next nonce, taken under this row's lock by the publisher."""

    chain_id = models.PositiveBigIntegerField(unique=True)
    name = models.CharField(max_length=100)
    rpc_urls = models.JSONField(default=list, blank=True,
                                help_text="JSON-RPC URLs, tried in order; CHAIN_RPC_URL_{chain_id} in the environment overrides them.")
    oracle_address = models.CharField(max_length=42, blank=True, default="", help_text="Blank until deployed (manage.py deploy_oracle).")
    confirmations = models.PositiveIntegerField(default=2, help_text="Blocks deep a publication must be to count as confirmed.")
    enabled = models.BooleanField(default=False)
    batch_size = models.PositiveIntegerField(default=100, help_text="Wallets per setStatuses transaction.")
    next_nonce = models.PositiveBigIntegerField(null=True, blank=True)
    nonce_signer = models.CharField(max_length=42, blank=True, default="",
                                    help_text="The signer address next_nonce counts for; a new key starts from the node's count.")
    last_error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["chain_id"]

    def __str__(self):
        return f"{self.name} ({self.chain_id})"


class ChainTxStatus(models.TextChoices):
    SENT = "sent"  # signed and stored; broadcast (again) until a receipt shows
    MINED = "mined"  # a successful receipt, not yet deep enough
    CONFIRMED = "confirmed"
    REVERTED = "reverted"
    REPLACED = "replaced"  # another transaction of the same nonce (a fee-bumped replacement, or the original) was mined
    DROPPED = "dropped"  # the nonce was used by a transaction the publisher did not sign: its rows went back to pending


class ChainTransaction(BaseModel):
    """One signed setStatuses transaction, stored before it is broadcast: a retry sends the identical bytes. A stuck one
    is replaced by another of the same nonce and rows with higher fees (`replaces`); the one mined wins, the others
    become `replaced`."""

    chain = models.ForeignKey(Chain, on_delete=models.CASCADE, related_name="transactions")
    nonce = models.PositiveBigIntegerField()
    tx_hash = models.CharField(max_length=66, unique=True)
    raw = models.TextField(help_text="The signed transaction (hex).")
    gas = models.PositiveBigIntegerField()
    max_fee_per_gas = models.PositiveBigIntegerField()
    max_priority_fee_per_gas = models.PositiveBigIntegerField()
    status = models.CharField(max_length=10, choices=ChainTxStatus.choices, default=ChainTxStatus.SENT)
    sent_at = models.DateTimeField(null=True, blank=True)
    block_number = models.PositiveBigIntegerField(null=True, blank=True)
    block_hash = models.CharField(max_length=66, blank=True, default="")
    error = models.TextField(blank=True, default="")
    sender = models.CharField(max_length=42, blank=True, default="", help_text="The signer address that signed it.")
    replaces = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="replacements",
                                 help_text="The transaction of the same nonce this one replaces with higher fees (stuck).")

    class Meta:
        ordering = ["chain", "nonce", "created_at"]
        indexes = [models.Index(fields=["chain", "status"])]

    def __str__(self):
        return f"{self.chain_id} nonce {self.nonce} {self.tx_hash} ({self.status})"


class OnchainStatusUpdate(TenantModel):
    wallet = models.ForeignKey("onboarding.Wallet", on_delete=models.CASCADE, related_name="onchain_updates")
    entity = models.ForeignKey("onboarding.Entity", on_delete=models.CASCADE, related_name="onchain_updates")
    chain_id = models.PositiveBigIntegerField()
    address = models.CharField(max_length=200)
    flagged = models.BooleanField()
    reason = models.CharField(max_length=300, blank=True, default="")
    risk_tier = models.PositiveSmallIntegerField(default=0, help_text="The status word's risk tier (0 none .. 4 critical).")
    flags = models.PositiveIntegerField(default=0, help_text="The status word's flag bits (compliance.onchain.contracts.Flag).")
    version = models.PositiveBigIntegerField(null=True, blank=True, help_text="The version published (set when published).")
    transaction = models.ForeignKey(ChainTransaction, on_delete=models.SET_NULL, null=True, blank=True, related_name="updates")
    status = models.CharField(max_length=10, choices=OnchainStatus.choices, default=OnchainStatus.PENDING)
    tx_hash = models.CharField(max_length=80, blank=True, default="")
    published_at = models.DateTimeField(null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["status", "created_at"]), models.Index(fields=["chain_id", "status"])]
        verbose_name = "on-chain status update"

    def __str__(self):
        return f"{self.chain_id}:{self.address} flagged={self.flagged} ({self.status})"


class TravelRuleStatus(models.TextChoices):
    """A travel-rule transfer's states (docs/travel-rule.md). Each state names those it may move to."""

    PENDING = "pending"  # recorded; the travel-rule process has not decided yet
    ACKNOWLEDGED = "acknowledged"  # both sides compliant, travel-rule data exchanged: the caller may execute it
    REJECTED = "rejected"  # a side was no longer compliant when the process ran
    COMPLETED = "completed"  # the chain service confirmed, or the indexer saw, the transaction that executed it
    EXPIRED = "expired"  # acknowledged but not executed in time: initiate again

    @classmethod
    def transitions(cls) -> dict[str, frozenset[str]]:
        return {cls.PENDING: frozenset({cls.ACKNOWLEDGED, cls.REJECTED, cls.EXPIRED}),  # expired: no VASP answer in time
                cls.ACKNOWLEDGED: frozenset({cls.COMPLETED, cls.EXPIRED}),
                # completed → acknowledged: the block of its transaction was orphaned by a reorganisation (travel_rule.chain)
                cls.REJECTED: frozenset(), cls.COMPLETED: frozenset({cls.ACKNOWLEDGED}), cls.EXPIRED: frozenset()}

    @classmethod
    def can_move(cls, current: str, target: str) -> bool:
        return target in cls.transitions().get(current, frozenset())


class TravelRulePolicy(BaseModel):
    """An organization's travel-rule settings (one row, edited in the console; defaults without one)."""

    organization = models.OneToOneField("organizations.Organization", on_delete=models.CASCADE, related_name="+")
    threshold_usd = models.DecimalField(
        max_digits=20, decimal_places=2, default=Decimal("1000.00"),
        help_text="Transfers worth this much or more (USD, from the asset price table) must carry IVMS101 originator and "
                  "beneficiary data. FATF Recommendation 16: USD/EUR 1,000; US FinCEN (31 CFR 1010.410(f)): 3,000.")
    acknowledgement_valid_hours = models.PositiveIntegerField(
        default=24, help_text="How long an acknowledged transfer may be executed on chain before it expires.")

    tenant_scope = ("organization",)

    class Meta:
        verbose_name = "travel-rule policy"
        verbose_name_plural = "travel-rule policies"

    def __str__(self):
        return f"travel rule from {self.threshold_usd} USD"


class TravelRuleTransfer(TenantModel):
    """A transfer announced before it is executed on chain, with the travel-rule (IVMS101) data of its
    originator and beneficiary. `amount` is the canonical decimal string (up to uint256, exact on every
    database); `commitment` is what the on-chain transfer can carry to refer to this record."""

    originator_entity = models.ForeignKey("onboarding.Entity", on_delete=models.PROTECT, related_name="+")
    beneficiary_entity = models.ForeignKey("onboarding.Entity", on_delete=models.PROTECT, related_name="+", null=True, blank=True,
                                           help_text="Empty when the beneficiary is a customer of another VASP.")
    beneficiary_vasp = models.ForeignKey("compliance.CounterpartyVasp", on_delete=models.PROTECT, related_name="+", null=True,
                                         blank=True, help_text="The beneficiary's VASP, when it is not this organization.")
    chain_id = models.PositiveBigIntegerField()
    asset = models.CharField(max_length=20)
    amount = models.CharField(max_length=120, help_text="Up to 78 digits, a point and 36 decimals (115 characters).")
    usd_value = models.DecimalField(max_digits=30, decimal_places=2, null=True, blank=True)
    from_address = models.CharField(max_length=200)
    to_address = models.CharField(max_length=200)
    originator = models.JSONField(null=True, blank=True, help_text="IVMS101 Originator")
    beneficiary = models.JSONField(null=True, blank=True, help_text="IVMS101 Beneficiary")
    travel_rule_required = models.BooleanField(help_text="At or above the threshold, or without a USD price.")
    threshold_usd = models.DecimalField(max_digits=20, decimal_places=2, help_text="The organization's threshold at initiation.")
    salt = models.CharField(max_length=66)
    commitment = models.CharField(max_length=66, unique=True)
    reference = models.CharField(max_length=200, blank=True, default="", help_text="The client's own reference (idempotency).")
    request_digest = models.CharField(max_length=64, help_text="SHA-256 of the request, to tell a retry from a reuse of its reference.")

    status = models.CharField(max_length=12, choices=TravelRuleStatus.choices, default=TravelRuleStatus.PENDING)
    status_reason = models.CharField(max_length=500, blank=True, default="")
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Execute on chain before this time.")
    rejected_at = models.DateTimeField(null=True, blank=True)
    expired_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True, help_text="When the chain confirmed the transaction.")
    tx_hash = models.CharField(max_length=80, blank=True, default="")
    block_number = models.PositiveBigIntegerField(null=True, blank=True)
    confirmations = models.PositiveIntegerField(null=True, blank=True)
    # The inquiry to the beneficiary VASP (compliance.travel_rule.vasp_exchange): attempts made, when the next is due,
    # the last failure, and when the VASP took it (then its answer is awaited on the callback).
    vasp_attempts = models.PositiveIntegerField(default=0)
    vasp_next_attempt_at = models.DateTimeField(null=True, blank=True)
    vasp_last_error = models.CharField(max_length=500, blank=True, default="")
    vasp_delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "travel-rule transfer"
        constraints = [
            models.UniqueConstraint(fields=["organization", "mode", "reference"], condition=~Q(reference=""),
                                    name="travel_rule_unique_reference"),
        ]
        indexes = [
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["status", "expires_at"]),
            models.Index(fields=["chain_id", "tx_hash"]),
            models.Index(fields=["organization", "mode", "tx_hash"]),
        ]

    def __str__(self):
        return f"{self.amount} {self.asset} on {self.chain_id} ({self.status})"


class VaspStatus(models.TextChoices):
    ACTIVE = "active"
    DISABLED = "disabled"


class CounterpartyVasp(TenantModel):
    """Another VASP this organization exchanges travel-rule messages with (docs/travel-rule.md,
    "Beneficiaries at another VASP"): where its inquiries go, and the secret both sides sign with."""

    name = models.CharField(max_length=200)
    lei = models.CharField(max_length=20, blank=True, default="", help_text="ISO 17442 Legal Entity Identifier (optional).")
    inquiry_url = models.CharField(max_length=2000, help_text="The VASP's https:// endpoint for our transfer inquiries.")
    shared_secret = models.CharField(max_length=200, help_text="Signs the messages both ways (HMAC-SHA256).")
    status = models.CharField(max_length=10, choices=VaspStatus.choices, default=VaspStatus.ACTIVE)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = "counterparty VASP"
        verbose_name_plural = "counterparty VASPs"

    def __str__(self):
        return f"{self.name} ({self.status})"


class InboundDecision(models.TextChoices):
    APPROVED = "approved"
    REJECTED = "rejected"


class InboundTravelRuleTransfer(TenantModel):
    """A transfer inquiry another VASP sent us (we are the beneficiary's VASP), with our answer."""

    originator_vasp = models.ForeignKey(CounterpartyVasp, on_delete=models.PROTECT, related_name="inbound_transfers")
    external_transfer_id = models.CharField(max_length=100, help_text="The originating VASP's id of the transfer.")
    beneficiary_entity = models.ForeignKey("onboarding.Entity", on_delete=models.PROTECT, related_name="+", null=True, blank=True)
    chain_id = models.PositiveBigIntegerField()
    asset = models.CharField(max_length=20)
    amount = models.CharField(max_length=120)
    from_address = models.CharField(max_length=200)
    to_address = models.CharField(max_length=200)
    originator = models.JSONField(null=True, blank=True, help_text="IVMS101 Originator (may be absent below the sender's threshold)")
    beneficiary = models.JSONField(help_text="IVMS101 Beneficiary")
    originating_vasp = models.JSONField(null=True, blank=True, help_text="IVMS101 OriginatingVasp")
    salt = models.CharField(max_length=66, blank=True, default="")
    commitment = models.CharField(max_length=66, blank=True, default="")
    decision = models.CharField(max_length=10, choices=InboundDecision.choices)
    reason = models.CharField(max_length=500, blank=True, default="")
    tx_hash = models.CharField(max_length=80, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "inbound travel-rule transfer"
        constraints = [models.UniqueConstraint(fields=["originator_vasp", "external_transfer_id"],
                                               name="inbound_travel_rule_unique_transfer")]

    def __str__(self):
        return f"{self.amount} {self.asset} from {self.originator_vasp_id} ({self.decision})"
