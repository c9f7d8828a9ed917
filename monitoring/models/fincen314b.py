"""FinCEN 314(b) (31 CFR 1010.540): voluntary information sharing between institutions that have
each filed a 314(b) notice with FinCEN. Partners are the other institutions; requests go both ways."""

from datetime import date

from django.db import models

from common.errors import Conflict
from common.models import TenantModel


class PartnerStatus(models.TextChoices):
    """pending_verification → verified (verify with `verified` true); verified → pending_verification
    (verify with `verified` false: the check failed or the notice lapsed, sharing stops)."""

    PENDING_VERIFICATION = "pending_verification"
    VERIFIED = "verified"


class RequestDirection(models.TextChoices):
    OUTBOUND = "outbound"
    INBOUND = "inbound"


class RequestStatus(models.TextChoices):
    """Outbound: sent → responded | expired. Inbound: received → responded | expired."""

    SENT = "sent"
    RECEIVED = "received"
    RESPONDED = "responded"
    EXPIRED = "expired"

    @classmethod
    def open_statuses(cls) -> tuple[str, str]:
        return (cls.SENT, cls.RECEIVED)


class Fincen314bPartner(TenantModel):
    institution_name = models.CharField(max_length=200)
    ein = models.CharField(max_length=10, help_text="NN-NNNNNNN")
    status = models.CharField(max_length=20, choices=PartnerStatus.choices, default=PartnerStatus.PENDING_VERIFICATION)
    contact_name = models.CharField(max_length=200)
    contact_email = models.EmailField()
    contact_phone = models.CharField(max_length=40, blank=True, default="")
    certification_date = models.DateField(help_text="When the partner's 314(b) notice took effect.")
    certification_expiry = models.DateField(help_text="A notice is valid for one year (31 CFR 1010.540(b)(2)).")
    verified_at = models.DateTimeField(null=True, blank=True)
    verified_by = models.CharField(max_length=255, blank=True, default="")
    verification_method = models.CharField(max_length=100, blank=True, default="")
    verification_notes = models.TextField(blank=True, default="")
    created_by_label = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        ordering = ["institution_name", "id"]
        verbose_name = "314(b) partner"
        constraints = [models.UniqueConstraint(fields=["organization", "mode", "ein"], name="fincen314b_partner_unique_ein")]

    def __str__(self):
        return f"{self.institution_name} ({self.ein})"

    def certification_expired(self, today: date) -> bool:
        return self.certification_expiry < today

    def require_shareable(self, today: date) -> None:
        """Sharing needs a verified partner whose notice is in force on `today`."""
        if self.status != PartnerStatus.VERIFIED:
            raise Conflict(f"{self.institution_name} is not verified as a 314(b) participant: verify the partner before sharing.")
        if self.certification_expired(today):
            raise Conflict(f"{self.institution_name}'s 314(b) certification expired on {self.certification_expiry:%Y-%m-%d}: "
                           "record its renewed notice and verify it again before sharing.")


class Fincen314bRequest(TenantModel):
    partner = models.ForeignKey(Fincen314bPartner, on_delete=models.PROTECT, related_name="requests")
    direction = models.CharField(max_length=8, choices=RequestDirection.choices)
    status = models.CharField(max_length=10, choices=RequestStatus.choices)
    subject_name = models.CharField(max_length=300)
    subject_ein = models.CharField(max_length=10, blank=True, default="")
    subject_address = models.CharField(max_length=500, blank=True, default="")
    subject_wallet_addresses = models.JSONField(default=list, blank=True)
    reason = models.TextField()
    # A plain id (a case of filings, same organization and mode, checked by the service), as
    # monitoring keeps no migration dependency on filings (docs/decisions.md, "Cases and filings").
    case_id = models.UUIDField(null=True, blank=True)
    response_deadline = models.DateTimeField()
    created_by_label = models.CharField(max_length=255, blank=True, default="")
    # The other side's copy when both institutions use this service (an outbound request's inbound
    # copy at the recipient, and back).
    counterpart = models.OneToOneField("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    has_match = models.BooleanField(null=True, blank=True)
    response_details = models.TextField(blank=True, default="")
    share_sar_reference = models.BooleanField(default=False)
    sar_bsa_id = models.CharField(max_length=14, blank=True, default="")
    responded_at = models.DateTimeField(null=True, blank=True)
    responded_by = models.CharField(max_length=255, blank=True, default="")
    expired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "314(b) request"
        indexes = [
            models.Index(fields=["organization", "mode", "status", "created_at"]),
            models.Index(fields=["status", "response_deadline"]),
        ]

    def __str__(self):
        return f"{self.direction} {self.subject_name} ({self.status})"
