import uuid

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.utils import timezone

from accounts.choices import SSOConnectionStatus, SSOProtocol
from common.models import BaseModel
from organizations.choices import Role


class EmailUserManager(UserManager):
    def _create_user(self, username, email, password, **extra_fields):
        email = self.normalize_email(email).lower()
        user = self.model(email=email, **extra_fields)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_user(self, email=None, password=None, **extra_fields):
        extra_fields.setdefault("is_staff", False)
        extra_fields.setdefault("is_superuser", False)
        return self._create_user(None, email, password, **extra_fields)

    def create_superuser(self, email=None, password=None, **extra_fields):
        extra_fields.setdefault("is_staff", True)
        extra_fields.setdefault("is_superuser", True)
        return self._create_user(None, email, password, **extra_fields)


class User(AbstractUser):
    """A person. Signs in with e-mail; belongs to organizations through memberships."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    username = None
    email = models.EmailField(unique=True)
    job_title = models.CharField(max_length=100, blank=True, default="")
    email_verified_at = models.DateTimeField(null=True, blank=True)

    USERNAME_FIELD = "email"
    REQUIRED_FIELDS = []

    objects = EmailUserManager()

    class Meta:
        ordering = ["email"]

    def __str__(self):
        return self.email

    @property
    def email_verified(self) -> bool:
        return self.email_verified_at is not None


class SessionToken(BaseModel):
    """A bearer credential from /v1/auth/login (`st_…`). Only its SHA-256 is stored."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="session_tokens")
    token_hash = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=255, blank=True, default="")
    method = models.CharField(max_length=20, default="password",
                              help_text="How the person proved who they are: password, google, sso_oidc or sso_saml.")

    class Meta:
        ordering = ["-created_at"]

    @property
    def is_valid(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()


class SSOConnection(BaseModel):
    """An organization's identity provider (SAML or OIDC) for the e-mail domains it has verified.

    The OIDC client secret is kept encrypted (common.crypto) and never answered: only its last four
    characters, to recognise it."""

    organization = models.ForeignKey("organizations.Organization", on_delete=models.CASCADE, related_name="sso_connections")
    name = models.CharField(max_length=100)
    protocol = models.CharField(max_length=4, choices=SSOProtocol.choices)
    status = models.CharField(max_length=10, choices=SSOConnectionStatus.choices, default=SSOConnectionStatus.ACTIVE)
    enforce = models.BooleanField(default=False, help_text="Members whose e-mail is in a verified domain must sign in through SSO.")
    default_role = models.CharField(max_length=20, choices=Role.choices, default=Role.VIEWER,
                                    help_text="The role of a member created on first sign-in (just-in-time provisioning).")
    oidc_issuer = models.CharField(max_length=500, blank=True, default="")
    oidc_client_id = models.CharField(max_length=255, blank=True, default="")
    oidc_client_secret_encrypted = models.TextField(blank=True, default="")
    oidc_client_secret_last4 = models.CharField(max_length=4, blank=True, default="")
    oidc_scopes = models.CharField(max_length=255, blank=True, default="openid email profile")
    saml_idp_entity_id = models.CharField(max_length=500, blank=True, default="")
    saml_idp_metadata_xml = models.TextField(blank=True, default="")
    saml_idp_metadata_url = models.CharField(max_length=500, blank=True, default="")
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    tenant_scope = ("organization",)

    class Meta:
        ordering = ["created_at"]
        verbose_name = "SSO connection"

    def __str__(self):
        return f"{self.name} ({self.get_protocol_display()})"

    @property
    def is_active(self) -> bool:
        return self.status == SSOConnectionStatus.ACTIVE


class SSODomain(BaseModel):
    """An e-mail domain a connection signs in. Verified by a DNS TXT record carrying its token
    (docs/sso.md); once verified, no other connection (of any organization) can verify it."""

    connection = models.ForeignKey(SSOConnection, on_delete=models.CASCADE, related_name="domains")
    organization = models.ForeignKey("organizations.Organization", on_delete=models.CASCADE, related_name="+")
    domain = models.CharField(max_length=253)
    verification_token = models.CharField(max_length=64)
    verified_at = models.DateTimeField(null=True, blank=True)

    tenant_scope = ("organization",)

    class Meta:
        ordering = ["domain"]
        verbose_name = "SSO domain"
        constraints = [
            models.UniqueConstraint(fields=["connection", "domain"], name="sso_domain_once_per_connection"),
            models.UniqueConstraint(fields=["domain"], condition=models.Q(verified_at__isnull=False),
                                    name="sso_domain_verified_once"),
        ]

    def __str__(self):
        return self.domain

    @property
    def is_verified(self) -> bool:
        return self.verified_at is not None


class SSOLoginAttempt(BaseModel):
    """A sign-in started at /v1/sso/…/login (or /v1/auth/google) and not yet finished: the state (only its hash), the
    nonce and PKCE verifier (OIDC) or request id (SAML), where to go afterwards, and a hash of the
    browser-binding cookie. Kept in the database so any web process can finish it; used once."""

    connection = models.ForeignKey(SSOConnection, null=True, blank=True, on_delete=models.CASCADE, related_name="+",
                                   help_text="Empty for a Google sign-in (/v1/auth/google).")
    state_hash = models.CharField(max_length=64, unique=True)
    browser_hash = models.CharField(max_length=64)
    nonce = models.CharField(max_length=100, blank=True, default="")
    code_verifier_encrypted = models.TextField(blank=True, default="")
    redirect_url = models.CharField(max_length=2000, default="/")
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
