"""DNS TXT look-ups for domain verification, through the configured name servers
(SSO_DNS_NAMESERVERS) or the system's resolver."""

import dns.exception
import dns.resolver
from django.conf import settings

RECORD_PREFIX = "_compliance-sso"
VALUE_PREFIX = "compliance-sso-verification="


class LookupFailed(Exception):
    """The name server did not answer, or answered an error other than 'no such record'."""


def record_name(domain: str) -> str:
    return f"{RECORD_PREFIX}.{domain}"


def record_value(token: str) -> str:
    return f"{VALUE_PREFIX}{token}"


def _host_port(server: str) -> tuple[str, int]:
    """"1.2.3.4", "1.2.3.4:5353", "::1", "[::1]:5353" → (host, port)."""
    if server.startswith("["):
        host, _, port = server[1:].partition("]")
        return host, int(port.lstrip(":") or 53)
    if server.count(":") == 1:
        host, _, port = server.partition(":")
        return host, int(port)
    return server, 53


def _resolver() -> dns.resolver.Resolver:
    configured = settings.SSO_DNS_NAMESERVERS
    resolver = dns.resolver.Resolver(configure=not configured)
    if configured:
        servers = [_host_port(server) for server in configured]
        resolver.nameservers = [host for host, _ in servers]
        resolver.port = servers[0][1]  # one port for all: dnspython's Resolver has one
    resolver.lifetime = resolver.timeout = settings.SSO_DNS_TIMEOUT_SECONDS
    resolver.cache = None  # a record just published must be seen now
    return resolver


def txt_values(name: str) -> list[str]:
    """Every TXT string at `name` (the strings of one record joined, as RFC 7208 §3.3 reads them);
    [] when the name or its TXT records do not exist."""
    try:
        answer = _resolver().resolve(name, "TXT", search=False)
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
        return []
    except (dns.exception.DNSException, OSError) as exc:
        raise LookupFailed(str(exc) or type(exc).__name__) from None
    return [b"".join(record.strings).decode("utf-8", "replace") for record in answer]
