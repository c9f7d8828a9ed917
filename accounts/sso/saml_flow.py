"""SAML sign-in: this service as a service provider, one per connection (its entity id is the
connection's metadata URL), through pysaml2 (djangosaml2's engine)."""

from django.conf import settings

from accounts.models import SSOConnection


def sp_metadata_url(connection: SSOConnection) -> str:
    return f"{settings.PUBLIC_URL}/v1/sso/saml/metadata?connection_id={connection.pk}"


def acs_url() -> str:
    return f"{settings.PUBLIC_URL}/v1/sso/saml/acs"
