from django.db import models


class SSOProtocol(models.TextChoices):
    SAML = "saml", "SAML 2.0"
    OIDC = "oidc", "OpenID Connect"


def sso_sign_in_method(protocol: str) -> str:
    """How a session opened through an SSO connection records its sign-in (SessionToken.method)."""
    return f"sso_{protocol}"


SSO_SIGN_IN_METHODS = frozenset(sso_sign_in_method(protocol) for protocol in SSOProtocol.values)


class SSOConnectionStatus(models.TextChoices):
    """An inactive connection keeps its settings and verified domains but signs no one in."""

    ACTIVE = "active", "Active"
    INACTIVE = "inactive", "Inactive"
