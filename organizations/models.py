
from django.conf import settings
from django.db import models
from django.utils import timezone

from common.models import BaseModel
from organizations.choices import InvitationStatus, Mode, Role, Tier


class Organization(BaseModel):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=60, unique=True)
    # The filer identity a SAR/CTR needs (31 CFR 1020.320): legal name, TIN, address, regulator, contact.
    filer_profile = models.JSONField(default=dict, blank=True)
    # Four-eyes: the member who prepared a report cannot be the one who files it. None (the default):
    # on in live mode, off in test mode; True: on in both modes; False: off in both (an admin's choice, audited).
    four_eyes_filing = models.BooleanField(
        null=True, blank=True, default=None,
        help_text="Four-eyes filing (the preparer of a report cannot file it). Unknown = the default: on in live mode, off in "
                  "test mode; Yes = on in both modes; No = off in both modes.")

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return f"{self.name} ({self.slug})"

    def four_eyes_in(self, mode: str) -> bool:
        """Whether four-eyes filing applies to reports filed in `mode` (docs/cases.md, "Four eyes")."""
        if self.four_eyes_filing is None:
            return mode == Mode.LIVE
        return self.four_eyes_filing

    @property
    def four_eyes_setting(self) -> str:
        """default (on in live mode only), on, or off."""
        return {None: "default", True: "on", False: "off"}[self.four_eyes_filing]


class Membership(BaseModel):
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.VIEWER)

    tenant_scope = ("organization",)

    class Meta:
        ordering = ["created_at"]
        constraints = [models.UniqueConstraint(fields=["organization", "user"], name="membership_unique_user")]

    def __str__(self):
        return f"{self.user} in {self.organization.slug} as {self.role}"


class Invitation(BaseModel):
    """An e-mailed invitation. Its token is a signature over its id (organizations.selectors), so
    nothing secret is stored and the link can be sent again."""

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.VIEWER)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    tenant_scope = ("organization",)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.email} → {self.organization.slug} ({self.status})"

    @property
    def status(self) -> str:
        if self.accepted_at:
            return InvitationStatus.ACCEPTED
        if self.revoked_at:
            return InvitationStatus.REVOKED
        if self.expires_at <= timezone.now():
            return InvitationStatus.EXPIRED
        return InvitationStatus.PENDING


class ApiKey(BaseModel):
    """A secret of one organization, one mode, one tier and one role. Only its SHA-256 is kept:
    the key has ≥ 190 bits of entropy, so a slow hash would add latency to every request and no
    protection."""

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    mode = models.CharField(max_length=4, choices=Mode.choices)
    tier = models.CharField(max_length=10, choices=Tier.choices, default=Tier.STANDARD)
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.L3_OFFICER)
    prefix = models.CharField(max_length=16, help_text="First characters of the key, to recognise it.")
    key_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    # Listed across both modes: an admin manages the test and live keys together.
    tenant_scope = ("organization",)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API key"

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


