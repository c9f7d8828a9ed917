"""SSO reads: an organization's connections, and which connection signs in an e-mail address."""

from accounts.models import SSOConnection, SSODomain
from common.errors import NotFound


def connections_of(organization):
    return SSOConnection.objects.filter(organization=organization).prefetch_related("domains").order_by("created_at", "id")


def connection_of(organization, connection_id, *, lock: bool = False) -> SSOConnection:
    """The organization's connection of this id, or a 404 (another organization's too)."""
    connections = SSOConnection.objects.filter(organization=organization)
    if lock:
        connections = connections.select_for_update()
    connection = connections.select_related("organization").filter(pk=connection_id).first()
    if connection is None:
        raise NotFound("No SSO connection of your organization has this id.")
    return connection


def active_connection(connection_id, protocol: str) -> SSOConnection | None:
    """An active connection of this protocol, for the public sign-in endpoints."""
    return (SSOConnection.objects.select_related("organization")
            .filter(pk=connection_id, protocol=protocol, status="active").first())


def email_domain(email: str) -> str:
    """The address's domain as connections store theirs: lower-case, IDNA (punycode), so that
    "p@bücher.example" is in the domain "xn--bcher-kva.example" (else its password sign-in would
    escape an enforcing connection)."""
    domain = email.rpartition("@")[2].strip().lower().rstrip(".")
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:  # not a domain name: matches no connection
        return domain


def verified_domain_for_email(email: str) -> SSODomain | None:
    """The verified domain (of an active connection) this address belongs to, if any."""
    return (SSODomain.objects.select_related("connection", "organization")
            .filter(domain=email_domain(email), verified_at__isnull=False, connection__status="active").first())


def enforcing_domain_for_email(email: str) -> SSODomain | None:
    """The same, when its connection enforces SSO: the address must sign in through it."""
    domain = verified_domain_for_email(email)
    return domain if domain is not None and domain.connection.enforce else None


def connection_with_domains(connection_id) -> SSOConnection:
    return SSOConnection.objects.prefetch_related("domains").get(pk=connection_id)
