"""Addresses an identity provider is allowed at, and the redirect targets a sign-in may end on."""

import ipaddress
from urllib.parse import urlsplit

from django.conf import settings

from accounts.sso.errors import SSOProviderUnavailable
from webhooks.transport import DestinationRefused, IPAddress, resolve_destination

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def idp_url_problem(url: str) -> str | None:
    """Why an identity provider's URL is refused, or None: https, or http on this machine
    (SSO_ALLOW_HTTP_LOOPBACK, for development and tests); no credentials, query or fragment."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- raises on a malformed port
    except ValueError:
        return "This is not a valid URL."
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "Give an absolute https:// URL."
    if parts.scheme == "http" and not (settings.SSO_ALLOW_HTTP_LOOPBACK and parts.hostname in LOOPBACK_HOSTS):
        return "The identity provider must be reached over https."
    if parts.username or parts.password or parts.fragment:
        return "The URL may not carry credentials or a fragment."
    return None


def _loopback_allowed(ip: IPAddress) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return settings.SSO_ALLOW_HTTP_LOOPBACK and ip.is_loopback


def _resolved(url: str) -> tuple[str | None, str | None]:
    """(the address to connect to, None), or (None, why the server may not call this URL)."""
    problem = idp_url_problem(url)
    if problem:
        return None, problem
    parts = urlsplit(url)
    try:
        return resolve_destination(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80),
                                   allow_private=False, exempt=_loopback_allowed), None
    except DestinationRefused as exc:
        return None, str(exc)


def idp_address_problem(url: str) -> str | None:
    """Why the server may not call this identity provider URL, or None: besides idp_url_problem,
    its host must resolve to public addresses only (webhooks.transport's guard), so that an org admin
    cannot point the server at its own network (cloud metadata, internal services); loopback only
    with SSO_ALLOW_HTTP_LOOPBACK."""
    return _resolved(url)[1]


def idp_address(url: str, what: str) -> str:
    """The checked address to connect to for the provider's `what` URL (accounts.sso.http connects
    to it rather than resolving the name again); SSOProviderUnavailable (502) when it may not be called."""
    address, problem = _resolved(url)
    if problem:
        raise SSOProviderUnavailable(f"The identity provider's {what} URL is refused: {problem}")
    return address


def safe_redirect(url: str) -> bool:
    """A path on this service ("/cases?x=1"): never another site, whatever a browser makes of it
    ("//evil", "/\\evil", "https://evil", control characters)."""
    if not url.startswith("/") or url.startswith(("//", "/\\")):
        return False
    if any(ord(ch) < 0x20 or ch in "\\\x7f" for ch in url):
        return False
    parts = urlsplit(url)
    return not parts.scheme and not parts.netloc
