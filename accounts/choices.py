from django.db import models


class SSOProtocol(models.TextChoices):
    SAML = "saml", "SAML 2.0"
    OIDC = "oidc", "OpenID Connect"


class SSOConnectionStatus(models.TextChoices):
    """An inactive connection keeps its settings and verified domains but signs no one in."""

    ACTIVE = "active", "Active"
    INACTIVE = "inactive", "Inactive"
